//! A successful call's reply: the body's output as JSON, held to the char cap, shaped as MCP
//! content (an object is structuredContent plus the same JSON as text).

use std::any::Any;

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde::Serialize;
use serde_json::Value;

use crate::content::{Block, Content};
use crate::guards::chars;
use crate::guards::redact::Redactions;
#[cfg(feature = "gateway")]
use crate::upstream::Reply;

/// The reply for a successful call, with the char cap applied: a JSON object becomes
/// structuredContent (and the same JSON as text); a string becomes plain text; anything
/// else becomes JSON text.
pub(crate) fn success(
    value: Value,
    max_chars: Option<u64>,
) -> (CallToolResult, Option<chars::Cut>) {
    match value {
        Value::String(text) => {
            let capped = max_chars.and_then(|max| chars::cap_text(&text, max));
            let cut = capped.as_ref().map(|_| chars::Cut {
                strings: 1,
                array_items: 0,
                original_chars: text.chars().count() as u64,
            });
            (
                CallToolResult::success(vec![ContentBlock::text(capped.unwrap_or(text))]),
                cut,
            )
        }
        mut value => {
            // Serialized once: the text block is also what the cap measures, so a result
            // within the cap (the usual case) is neither counted nor serialized again.
            let text = json_text(&value);
            let within = max_chars
                .is_none_or(|max| text.len() as u64 <= max || text.chars().count() as u64 <= max);
            if within {
                return (json_result(value, text), None);
            }
            let cut = max_chars
                .map(|max| chars::cap_value(&mut value, max))
                .filter(|cut| !cut.is_empty());
            let text = json_text(&value);
            (json_result(value, text), cut)
        }
    }
}

/// `value` as compact JSON, the same text as its `Display`, written into one buffer that
/// starts large enough for a typical result (`Display` goes through the formatter and grows
/// its string from nothing).
fn json_text(value: &Value) -> String {
    serde_json::to_string(value).expect("a JSON value serializes")
}

/// A JSON result whose serialization is `text`: an object is structuredContent (with the
/// same JSON as text, as `CallToolResult::structured` makes it); anything else is text.
pub(crate) fn json_result(value: Value, text: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if value.is_object() {
        result.structured_content = Some(value);
    }
    result
}

/// `_meta` on a successful result, when a guard changed it: `harness/truncated` (what the
/// char cap cut) and `harness/redacted` (secrets redacted, per kind).
pub(crate) fn with_meta(
    reply: CallToolResult,
    truncated: Option<Value>,
    redacted: &Redactions,
) -> CallToolResult {
    if truncated.is_none() && redacted.is_empty() {
        return reply;
    }
    let mut meta = MetaObject::new();
    if let Some(truncated) = truncated {
        meta.0.insert("harness/truncated".to_owned(), truncated);
    }
    if !redacted.is_empty() {
        meta.0
            .insert("harness/redacted".to_owned(), redacted.to_json());
    }
    reply.with_meta(Some(meta))
}

/// What a body returned: content blocks, or a value shaped as JSON.
pub(crate) enum Output {
    /// A [`Content`] output: blocks in order.
    Blocks(Vec<Block>),
    /// Anything else, as JSON.
    Json(Value),
}

/// The output as blocks or JSON. A body that returns [`Content`], an upstream's `Reply` or
/// a `serde_json::Value` hands it over as is: `serde_json::to_value` would rebuild a value node by node, which for
/// a 1,000-row table cost more than every guard together.
pub(crate) fn output_of<O: Serialize + 'static>(output: O) -> Result<Output, serde_json::Error> {
    let mut slot = Some(output);
    let any = &mut slot as &mut dyn Any;
    if let Some(value) = any.downcast_mut::<Option<Value>>() {
        return Ok(Output::Json(
            value.take().expect("the slot was just filled"),
        ));
    }
    if let Some(content) = any.downcast_mut::<Option<Content>>() {
        let content = content.take().expect("the slot was just filled");
        return Ok(Output::Blocks(content.into_blocks()));
    }
    #[cfg(feature = "gateway")]
    if let Some(reply) = any.downcast_mut::<Option<Reply>>() {
        return Ok(match reply.take().expect("the slot was just filled") {
            Reply::Json(value) => Output::Json(value),
            Reply::Blocks(content) => Output::Blocks(content.into_blocks()),
        });
    }
    serde_json::to_value(slot.take().expect("the slot was just filled")).map(Output::Json)
}

/// [`output_of`] for JSON only.
#[cfg(test)]
fn output_json<O: Serialize + 'static>(output: O) -> Result<Value, serde_json::Error> {
    match output_of(output)? {
        Output::Json(value) => Ok(value),
        Output::Blocks(_) => panic!("content is not JSON"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Serialize)]
    struct Row {
        id: u32,
        region: &'static str,
    }

    #[test]
    fn output_json_takes_a_value_as_is_and_serializes_anything_else() {
        let table = json!([{"id": 1, "region": "eu"}, {"id": 2, "region": "us"}]);
        assert_eq!(output_json(table.clone()).unwrap(), table);
        let rows = vec![
            Row {
                id: 1,
                region: "eu",
            },
            Row {
                id: 2,
                region: "us",
            },
        ];
        assert_eq!(output_json(rows).unwrap(), table);
        assert_eq!(output_json("text").unwrap(), json!("text"));
        let content = Content::new().text("a");
        assert!(
            matches!(output_of(content), Ok(Output::Blocks(blocks)) if blocks == [Block::Text("a".into())])
        );
    }

    #[test]
    fn a_result_within_the_cap_is_what_rmcp_would_build() {
        let object = json!({"message": "hello", "n": [1, 2]});
        let (result, cut) = success(object.clone(), Some(4000));
        assert!(cut.is_none());
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            serde_json::to_value(CallToolResult::structured(object)).unwrap()
        );
        let (result, _) = success(json!([1, 2]), None);
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            serde_json::to_value(CallToolResult::success(vec![ContentBlock::text("[1,2]")]))
                .unwrap()
        );
    }

    #[test]
    fn a_result_over_the_cap_is_cut_and_its_text_matches_the_cut_value() {
        let object = json!({"log": "x".repeat(500)});
        let (result, cut) = success(object, Some(100));
        let cut = cut.expect("over the cap");
        assert_eq!(cut.strings, 1);
        let structured = result
            .structured_content
            .as_ref()
            .expect("still structured");
        let text = &result.content[0].as_text().expect("text").text;
        assert_eq!(text, &structured.to_string());
        assert!(text.chars().count() <= 100, "{text}");
    }
}
