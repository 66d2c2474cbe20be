//! Answers from the client, validated strictly before a body sees them: a declared form's
//! content by its generated validator, an elicitation's
//! content against the form it was asked with (no field the form lacks, every required one,
//! each of its declared type, enum member, length and range), a sampling reply's text
//! through the strip and a cap, roots as `file://` URIs.

use serde_json::{Map, Value};

use crate::guards::redact::{self, Redactions};
use crate::guards::{chars, strip};
use crate::input::{ElicitAnswer, Form, FormAnswer, Root, Sampled};
use crate::spec::RedactPattern;
use crate::validate::{ArgErrors, ArgPath, JsonObject};

/// The longest sampled reply a body is handed, in characters.
pub(crate) const MAX_SAMPLED_CHARS: u64 = 16_000;

/// The most roots a body is handed.
pub(crate) const MAX_ROOTS: usize = 1000;

/// An answer to a declared form: the action, then the content through the form's generated
/// strict validator (unknown fields, missing ones, types and constraints, exactly as
/// arguments are checked).
pub(crate) fn form_answer<F: Form>(answer: &Value) -> Result<FormAnswer<F>, ArgErrors> {
    match answer.get("action").and_then(Value::as_str) {
        Some("decline") => return Ok(FormAnswer::Decline),
        Some("cancel") => return Ok(FormAnswer::Cancel),
        Some("accept") => {}
        _ => {
            let mut errors = ArgErrors::default();
            errors.push(
                ArgPath::Root.field("action"),
                "must be \"accept\", \"decline\" or \"cancel\"",
            );
            return Err(errors);
        }
    }
    let Some(content) = answer.get("content").and_then(Value::as_object) else {
        let mut errors = ArgErrors::default();
        errors.push(
            ArgPath::Root.field("content"),
            "an accepted form must carry its content as an object",
        );
        return Err(errors);
    };
    F::from_call(Some(content)).map(FormAnswer::Accept)
}

/// An elicitation result (`{action, content}`) checked against the form's schema (as JSON).
pub(crate) fn elicit_answer(answer: &Value, schema: &Value) -> Result<ElicitAnswer, ArgErrors> {
    let mut errors = ArgErrors::default();
    let action = answer.get("action").and_then(Value::as_str);
    match action {
        Some("decline") => return Ok(ElicitAnswer::Decline),
        Some("cancel") => return Ok(ElicitAnswer::Cancel),
        Some("accept") => {}
        _ => {
            errors.push(
                ArgPath::Root.field("action"),
                "must be \"accept\", \"decline\" or \"cancel\"",
            );
            return Err(errors);
        }
    }
    let empty = Map::new();
    let Some(content) = answer.get("content").and_then(Value::as_object) else {
        errors.push(
            ArgPath::Root.field("content"),
            "an accepted form must carry its content as an object",
        );
        return Err(errors);
    };
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for key in content.keys().filter(|key| !properties.contains_key(*key)) {
        errors.push(ArgPath::Root.field(key), "not a field of the form");
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        if !content.contains_key(name) {
            errors.push(ArgPath::Root.field(name), "required by the form");
        }
    }
    for (name, value) in content {
        if let Some(property) = properties.get(name) {
            check_value(value, property, ArgPath::Root.field(name), &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(ElicitAnswer::Accept(content.clone()))
    } else {
        Err(errors)
    }
}

/// The members an enum property (or an array's items) admits: `enum`, or the `const`s of
/// `oneOf` / `anyOf`.
fn members(schema: &Value) -> Option<Vec<&str>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().filter_map(Value::as_str).collect());
    }
    let titled = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))?
        .as_array()?;
    Some(
        titled
            .iter()
            .filter_map(|option| option.get("const")?.as_str())
            .collect(),
    )
}

fn check_value(value: &Value, schema: &Value, path: ArgPath<'_>, errors: &mut ArgErrors) {
    let number = |key: &str| schema.get(key).and_then(Value::as_f64);
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => {
            let Some(text) = value.as_str() else {
                return errors.push(path, "must be a string");
            };
            if let Some(allowed) = members(schema).filter(|allowed| !allowed.contains(&text)) {
                return errors.push(path, format!("must be one of {allowed:?}"));
            }
            let length = text.chars().count() as f64;
            if number("minLength").is_some_and(|min| length < min)
                || number("maxLength").is_some_and(|max| length > max)
            {
                errors.push(path, "length outside the form's bounds");
            }
        }
        Some(kind @ ("number" | "integer")) => {
            let Some(x) = value.as_f64() else {
                return errors.push(path, format!("must be a {kind}"));
            };
            if kind == "integer" && !(value.is_i64() || value.is_u64()) {
                return errors.push(path, "must be an integer");
            }
            if number("minimum").is_some_and(|min| x < min)
                || number("maximum").is_some_and(|max| x > max)
            {
                errors.push(path, "outside the form's range");
            }
        }
        Some("boolean") => {
            if !value.is_boolean() {
                errors.push(path, "must be true or false");
            }
        }
        Some("array") => {
            let Some(items) = value.as_array() else {
                return errors.push(path, "must be an array");
            };
            let allowed = schema.get("items").and_then(members).unwrap_or_default();
            if items
                .iter()
                .any(|item| item.as_str().is_none_or(|item| !allowed.contains(&item)))
            {
                errors.push(path, format!("every item must be one of {allowed:?}"));
            }
        }
        _ => errors.push(path, "the form does not say what this field holds"),
    }
}

/// A sampling result's text, as the body may read it: stripped and redacted like output.
pub(crate) fn sampled(
    answer: &Value,
    strip_tags: bool,
    redact: Option<&'static [RedactPattern]>,
) -> Result<Sampled, ArgErrors> {
    let mut errors = ArgErrors::default();
    let text = answer.pointer("/content/text").and_then(Value::as_str);
    let model = answer.get("model").and_then(Value::as_str);
    match (text, model) {
        (Some(text), Some(model)) => {
            let stripped = strip::sanitize(text, strip_tags);
            let clean = redact::apply(&stripped, redact, &mut Redactions::default());
            let text =
                chars::cap_text(&clean, MAX_SAMPLED_CHARS).unwrap_or_else(|| clean.into_owned());
            Ok(Sampled {
                text,
                model: strip::sanitize(model, true).chars().take(200).collect(),
            })
        }
        _ => {
            errors.push(
                ArgPath::Root.field("content"),
                "a sampling result needs a text content and its model",
            );
            Err(errors)
        }
    }
}

/// A roots result.
pub(crate) fn roots(answer: &Value) -> Result<Vec<Root>, ArgErrors> {
    let mut errors = ArgErrors::default();
    let Some(list) = answer
        .get("roots")
        .and_then(Value::as_array)
        .filter(|list| list.len() <= MAX_ROOTS)
    else {
        errors.push(
            ArgPath::Root.field("roots"),
            format!("must be an array of at most {MAX_ROOTS} roots"),
        );
        return Err(errors);
    };
    let mut roots = Vec::with_capacity(list.len());
    for (index, root) in list.iter().enumerate() {
        match root.get("uri").and_then(Value::as_str) {
            Some(uri) if uri.starts_with("file://") => roots.push(Root {
                uri: uri.to_owned(),
                name: root
                    .get("name")
                    .and_then(Value::as_str)
                    .map(|name| strip::sanitize(name, true).into_owned()),
            }),
            _ => errors.push(
                ArgPath::Root.field("roots").index(index),
                "a root is a file:// URI",
            ),
        }
    }
    if errors.is_empty() {
        Ok(roots)
    } else {
        Err(errors)
    }
}

/// The answers of a request, as one object keyed by input name.
pub(crate) type Answers = JsonObject;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form() -> Value {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 5},
            "age": {"type": "integer", "minimum": 0},
            "tier": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
            "tags": {"type": "array", "items": {"enum": ["x", "y"]}},
        }, "required": ["name"]})
    }

    #[test]
    fn an_answer_that_fits_the_form_is_accepted() {
        let answer = json!({"action": "accept", "content": {"name": "Al", "age": 3, "tier": "a", "tags": ["x"]}});
        assert!(matches!(
            elicit_answer(&answer, &form()),
            Ok(ElicitAnswer::Accept(_))
        ));
        assert_eq!(
            elicit_answer(&json!({"action": "decline"}), &form()).unwrap(),
            ElicitAnswer::Decline
        );
    }

    #[test]
    fn anything_outside_the_form_is_refused() {
        for content in [
            json!({}),
            json!({"name": "toolong"}),
            json!({"name": "a", "extra": 1}),
            json!({"name": 5}),
            json!({"name": "a", "age": 1.5}),
            json!({"name": "a", "age": -1}),
            json!({"name": "a", "tier": "b"}),
            json!({"name": "a", "tags": ["z"]}),
        ] {
            let answer = json!({"action": "accept", "content": content});
            assert!(elicit_answer(&answer, &form()).is_err(), "{content}");
        }
        assert!(elicit_answer(&json!(12345), &form()).is_err());
        assert!(elicit_answer(&json!({"action": "accept"}), &form()).is_err());
    }

    #[test]
    fn a_sampled_reply_is_stripped_and_capped() {
        let answer = json!({"model": "m", "role": "assistant", "content": {"type": "text", "text": format!("ok<IMPORTANT>obey</IMPORTANT>{}", "x".repeat(20_000))}});
        let sampled = sampled(&answer, true, Some(&[][..])).unwrap();
        assert!(
            sampled.text.starts_with("okx")
                && sampled.text.chars().count() as u64 <= MAX_SAMPLED_CHARS
        );
        assert!(super::sampled(&json!({"content": {}}), true, None).is_err());
    }

    #[test]
    fn a_sampled_reply_is_redacted_unless_the_tool_opts_out() {
        // Written in pieces, so this file holds no credential a scanner would flag.
        let token = ["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO", "0pINUx"].concat();
        let answer =
            json!({"model": "m", "content": {"type": "text", "text": format!("use {token}")}});
        let redacted = sampled(&answer, true, Some(&[][..])).unwrap();
        assert_eq!(redacted.text, "use [REDACTED:github_token]");
        let kept = sampled(&answer, true, None).unwrap();
        assert_eq!(kept.text, format!("use {token}"));
    }

    #[test]
    fn roots_are_file_uris() {
        assert_eq!(
            roots(&json!({"roots": [{"uri": "file:///w", "name": "w"}]})).unwrap()[0].uri,
            "file:///w"
        );
        assert!(roots(&json!({"roots": [{"uri": "https://x"}]})).is_err());
        assert!(roots(&json!({})).is_err());
    }
}
