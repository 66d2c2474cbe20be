//! What a stdio upstream writes, read line by line: a plain `tools/call` reply is decoded
//! here, in one pass, into rmcp's `CallToolResult`; a reply to the direct lane
//! (crate::upstream::lane) is recognised by its id; every other line goes on, byte for byte,
//! to rmcp's own line transport, which decodes it (and answers what it cannot) as it always
//! did.
//!
//! rmcp decodes every message through untagged enums: the line is buffered into serde's
//! `Content` and tried against one variant after another, each failure formatting an error,
//! about a third of the gateway's instructions a call (BENCHMARKS.md, section 2d). A plain
//! reply is `{"jsonrpc":"2.0","id":...,"result":{...}}` whose result holds `content` and at
//! most `structuredContent`, `isError`, `resultType` (`complete`) and `_meta`: the shape only
//! a tool's result has, which rmcp's decoding also takes for a `CallToolResult`, read here
//! member by member as rmcp's own deserializer reads them (the tests compare the two). Anything
//! else takes rmcp's path.

use rmcp::model::{
    CallToolResult, ContentBlock, JsonRpcVersion2_0, MetaObject, RequestId, ResultType,
};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The longest line read, as rmcp's line transport bounds it: a longer one is dropped.
pub(crate) const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// A plain reply: exactly these members (a repeated one is refused, as derived readers do).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainReply {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    result: PlainResult,
}

/// A tool result's own members and nothing else; `content` is required.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PlainResult {
    content: Vec<ContentBlock>,
    /// Present, even as `null`, is kept apart from absent, as rmcp does.
    #[serde(default, deserialize_with = "present")]
    structured_content: Option<Value>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    result_type: Option<ResultType>,
    #[serde(rename = "_meta", default)]
    meta: Option<MetaObject>,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// `line` (without its newline) as the id and tool result of the reply it is, when it is a
/// plain one.
pub(crate) fn plain_reply(line: &[u8]) -> Option<(RequestId, CallToolResult)> {
    let reply = serde_json::from_slice::<PlainReply>(line).ok()?;
    let PlainResult {
        content,
        structured_content,
        is_error,
        result_type,
        meta,
    } = reply.result;
    if result_type.as_ref().is_some_and(|kind| !kind.is_complete()) {
        return None;
    }
    let mut result = CallToolResult::default();
    result.result_type = result_type;
    result.content = content;
    result.structured_content = structured_content;
    result.is_error = is_error;
    result.meta = meta;
    Some((reply.id, result))
}

/// The id of the reply `line` is (a result or an error, not a request or a notification).
pub(crate) fn reply_id(line: &[u8]) -> Option<RequestId> {
    #[derive(Deserialize)]
    struct Envelope {
        #[serde(default)]
        id: Option<RequestId>,
        #[serde(default)]
        method: Option<IgnoredAny>,
    }
    let envelope = serde_json::from_slice::<Envelope>(line).ok()?;
    envelope.method.is_none().then_some(envelope.id).flatten()
}

/// One read of [`Lines::next`].
pub(crate) enum Read {
    /// A whole line, its newline included, in [`Lines::line`].
    Line,
    /// A line longer than [`MAX_LINE`], dropped.
    TooLong,
    /// The end of the stream, or an error reading it.
    End,
}

/// A stream read line by line within [`MAX_LINE`], cancel-safe: a read dropped halfway keeps
/// what it read for the next, as rmcp's own reader does (it is polled in a `select!`).
pub(crate) struct Lines<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of a line that was too long.
    discarding: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(crate) fn new(read: R) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
        }
    }

    /// The line the last [`Read::Line`] read.
    pub(crate) fn line(&self) -> &[u8] {
        &self.line
    }

    /// Reads the next line (the previous one is cleared first).
    pub(crate) async fn next(&mut self) -> Read {
        if self.line.last() == Some(&b'\n') {
            self.line.clear();
        }
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) => return Read::End,
                Ok(available) => available,
                Err(error) => {
                    tracing::error!(%error, "cannot read the upstream's output");
                    return Read::End;
                }
            };
            let newline = available.iter().position(|byte| *byte == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            // No await between the copy and the consume: a dropped read loses nothing.
            let done = if self.discarding {
                self.discarding = newline.is_none();
                None
            } else if self.line.len().saturating_add(take) > MAX_LINE {
                self.line.clear();
                self.discarding = newline.is_none();
                Some(Read::TooLong)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| Read::Line)
            };
            self.read.consume(take);
            if let Some(done) = done {
                return done;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ServerJsonRpcMessage, ServerResult};
    use serde_json::json;

    use super::*;

    /// A reply's id and tool result, if it is one.
    fn tool_result(message: ServerJsonRpcMessage) -> Option<(RequestId, CallToolResult)> {
        match message {
            ServerJsonRpcMessage::Response(response) => match response.result {
                ServerResult::CallToolResult(result) => Some((response.id, result)),
                _ => None,
            },
            _ => None,
        }
    }

    /// rmcp's own decoding of a line, the oracle.
    fn rmcp_decoded(line: &str) -> ServerJsonRpcMessage {
        serde_json::from_str(line).expect("rmcp decodes it")
    }

    #[test]
    fn a_plain_reply_is_what_rmcp_decodes_it_as() {
        let replies = [
            json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}),
            json!({"jsonrpc":"2.0","id":"a-7","result":{"content":[{"type":"text","text":"hi","annotations":{"audience":["user"]}}],"structuredContent":{"message":"hi"},"isError":false}}),
            json!({"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":null,"isError":true,"_meta":{"k":1}}}),
            json!({"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}}),
            json!({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"x"}},{"type":"resource_link","uri":"file:///b","name":"b"}]}}),
        ];
        for reply in replies {
            let line = reply.to_string();
            let plain = plain_reply(line.as_bytes()).unwrap_or_else(|| panic!("plain: {line}"));
            let rmcp = tool_result(rmcp_decoded(&line));
            assert!(rmcp.is_some(), "rmcp reads {line} as something else");
            assert_eq!(Some(plain), rmcp, "{line}");
        }
    }

    #[test]
    fn anything_else_is_left_to_rmcp() {
        let others = [
            // Other results, errors, requests and notifications.
            json!({"jsonrpc":"2.0","id":1,"result":{}}),
            json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}}),
            json!({"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///a","text":"x"}]}}),
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}),
            json!({"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}),
            // A tool's result with a member rmcp's CallToolResult does not have, or a result
            // type that makes it another variant.
            json!({"jsonrpc":"2.0","id":1,"result":{"content":[],"extra":1}}),
            json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","content":[]}}),
            json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"task","content":[]}}),
            json!({"jsonrpc":"2.0","id":1,"result":{"content":[]},"extra":true}),
            json!({"jsonrpc":"1.0","id":1,"result":{"content":[]}}),
        ];
        for other in others {
            let line = other.to_string();
            assert!(plain_reply(line.as_bytes()).is_none(), "{line}");
        }
        assert!(plain_reply(b"not json").is_none());
        // Repeated members: serde_json would keep the last; rmcp's path decides.
        assert!(
            plain_reply(br#"{"jsonrpc":"2.0","id":1,"id":2,"result":{"content":[]}}"#).is_none()
        );
    }

    #[test]
    fn a_reply_is_told_by_its_id_and_a_request_or_notification_has_none() {
        for (line, id) in [
            (
                json!({"jsonrpc":"2.0","id":7,"result":{"tools":[]}}),
                Some(RequestId::Number(7)),
            ),
            (
                json!({"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"no"}}),
                Some(RequestId::String("x".into())),
            ),
            (
                json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}),
                None,
            ),
            (json!({"jsonrpc":"2.0","id":9,"method":"roots/list"}), None),
            (
                json!({"jsonrpc":"2.0","method":"notifications/progress","params":{}}),
                None,
            ),
        ] {
            assert_eq!(reply_id(line.to_string().as_bytes()), id, "{line}");
        }
        assert_eq!(reply_id(b"not json"), None);
    }

    #[tokio::test]
    async fn lines_are_read_whole_and_one_too_long_is_dropped() {
        let long = "x".repeat(MAX_LINE + 1);
        let input = format!("first\n{long}\nthird\nunfinished");
        let mut lines = Lines::new(input.as_bytes());
        assert!(matches!(lines.next().await, Read::Line));
        assert_eq!(lines.line(), b"first\n");
        assert!(matches!(lines.next().await, Read::TooLong));
        assert!(matches!(lines.next().await, Read::Line));
        assert_eq!(lines.line(), b"third\n");
        assert!(matches!(lines.next().await, Read::End));
    }
}
