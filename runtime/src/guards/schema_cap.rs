//! Char cap on a result with a declared schema (`[[tools.results]]`): the JSON text is
//! brought under the cap by cutting only strings whose schema says nothing but "a string"
//! (no `pattern`, `enum`, `const`, `format` or `minLength`), each to a prefix and the
//! truncation marker, never longer than it was (so a `maxLength` still holds). Nothing else
//! changes: no array item is dropped, no field removed, so the result still fits its
//! schema. When those strings cannot absorb the excess, the result is refused instead.

use serde_json::Value;

use crate::guards::chars::{Cut, marker};

/// A declared result that no cut within its schema brings under the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge {
    /// Characters of JSON text the guarded result has.
    pub(crate) chars: u64,
    /// The cap.
    pub(crate) max: u64,
    /// The fewest characters cutting every cuttable string leaves.
    pub(crate) floor: u64,
}

/// Characters `c` takes in JSON text (serde_json's compact escapes).
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        _ => 1,
    }
}

fn escaped(text: &str) -> usize {
    text.chars().map(escaped_len).sum()
}

/// Whether a string under `schema` may be cut: its schema is a string type and constrains
/// nothing a cut could break.
fn cuttable(schema: &Value) -> bool {
    let Some(schema) = schema.as_object() else {
        return false;
    };
    let is_string = match schema.get("type") {
        Some(Value::String(ty)) => ty == "string",
        Some(Value::Array(types)) => types.iter().any(|ty| ty == "string"),
        _ => false,
    };
    is_string
        && !["pattern", "enum", "const", "format", "minLength"]
            .iter()
            .any(|key| schema.contains_key(*key))
}

/// Every string of `value` that its `schema` lets be cut, in document order.
fn cuttable_strings<'v>(value: &'v mut Value, schema: &Value, out: &mut Vec<&'v mut String>) {
    match value {
        Value::String(text) if cuttable(schema) => out.push(text),
        Value::Array(items) => {
            if let Some(items_schema) = schema.get("items") {
                for item in items {
                    cuttable_strings(item, items_schema, out);
                }
            }
        }
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (key, item) in object.iter_mut() {
                    if let Some(property) = properties.get(key) {
                        cuttable_strings(item, property, out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// One cuttable string: what it costs in the JSON text, and what cutting it can save.
struct Slot {
    index: usize,
    chars: usize,
    escaped: usize,
    gain: usize,
}

/// `text` (of `chars` characters) cut to a prefix and the marker, costing at most `target`
/// characters of JSON text and fewer characters than it had.
fn cut_to(text: &str, chars: usize, target: usize) -> String {
    let reserve = marker(chars, chars).chars().count();
    let (mut used, mut kept, mut end) = (0, 0, 0);
    for (index, c) in text.char_indices() {
        let cost = escaped_len(c);
        if used + cost + reserve > target || kept + 1 + reserve >= chars {
            break;
        }
        used += cost;
        kept += 1;
        end = index + c.len_utf8();
    }
    let mut cut = text[..end].to_owned();
    cut.push_str(&marker(chars - kept, chars));
    cut
}

/// Brings the JSON text of `value` to at most `max_chars` characters by cutting only the
/// strings `schema` lets be cut, the ones that save most first, each as little as the budget
/// allows; or says why that cannot be done, leaving `value` as it was.
pub(crate) fn cap_declared(
    value: &mut Value,
    schema: &Value,
    max_chars: u64,
) -> Result<Cut, TooLarge> {
    let budget = usize::try_from(max_chars).unwrap_or(usize::MAX);
    let size = value.to_string().chars().count();
    let mut cut = Cut {
        original_chars: size as u64,
        ..Cut::default()
    };
    if size <= budget {
        return Ok(cut);
    }
    let mut strings = Vec::new();
    cuttable_strings(value, schema, &mut strings);
    let mut slots: Vec<Slot> = strings
        .iter()
        .enumerate()
        .filter_map(|(index, text)| {
            let chars = text.chars().count();
            let escaped = escaped(text);
            let reserve = marker(chars, chars).chars().count();
            (chars > reserve && escaped > reserve).then(|| Slot {
                index,
                chars,
                escaped,
                gain: escaped - reserve,
            })
        })
        .collect();
    let excess = size - budget;
    let possible: usize = slots.iter().map(|slot| slot.gain).sum();
    if possible < excess {
        return Err(TooLarge {
            chars: size as u64,
            max: max_chars,
            floor: (size - possible) as u64,
        });
    }
    slots.sort_by(|a, b| b.gain.cmp(&a.gain).then(a.index.cmp(&b.index)));
    let mut remaining = excess;
    for slot in slots {
        if remaining == 0 {
            break;
        }
        let text = &mut strings[slot.index];
        let target = slot.escaped - remaining.min(slot.gain);
        let shorter = cut_to(text, slot.chars, target);
        remaining = remaining.saturating_sub(slot.escaped - escaped(&shorter));
        **text = shorter;
        cut.strings += 1;
    }
    Ok(cut)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "summary": {"type": "string", "maxLength": 4000},
                "id": {"type": "string", "pattern": "^inc-[0-9]+$"},
                "level": {"type": "string", "enum": ["low", "high"]},
                "code": {"type": "string", "minLength": 3},
                "notes": {"type": "array", "items": {"type": "string"}},
                "nested": {"type": ["object", "null"], "properties": {"log": {"type": ["string", "null"]}}},
                "count": {"type": "integer"}
            },
            "additionalProperties": false
        })
    }

    fn chars(value: &Value) -> u64 {
        value.to_string().chars().count() as u64
    }

    #[test]
    fn escapes_are_counted_as_serde_json_writes_them() {
        let text = "a\"\\\n\r\t\u{8}\u{c}\u{1}\u{7f}é😀";
        assert_eq!(
            escaped(text) + 2,
            Value::from(text).to_string().chars().count()
        );
    }

    #[test]
    fn a_result_within_the_cap_is_left_alone() {
        let mut value = json!({"summary": "short", "count": 3});
        let before = value.clone();
        let cut = cap_declared(&mut value, &schema(), 1000).unwrap();
        assert!(cut.is_empty());
        assert_eq!(value, before);
    }

    #[test]
    fn only_unconstrained_strings_are_cut_and_the_text_fits_the_budget() {
        let long_id = format!("inc-{}", "7".repeat(300));
        let mut value = json!({
            "summary": "s".repeat(2000),
            "id": long_id,
            "level": "high",
            "code": "c".repeat(300),
            "notes": ["n".repeat(500), "short"],
            "nested": {"log": "l\n".repeat(400)},
            "count": 7
        });
        let cut = cap_declared(&mut value, &schema(), 1200).unwrap();
        assert!(chars(&value) <= 1200, "{}", chars(&value));
        assert_eq!(value["id"], Value::from(long_id), "pattern: untouched");
        assert_eq!(value["level"], "high", "enum: untouched");
        assert_eq!(
            value["code"],
            Value::from("c".repeat(300)),
            "minLength: untouched"
        );
        assert_eq!(value["notes"][1], "short");
        assert!(
            value["summary"]
                .as_str()
                .unwrap()
                .ends_with("characters cut]")
        );
        assert!(cut.strings >= 1);
        assert_eq!(value["count"], 7);
    }

    #[test]
    fn the_cut_takes_no_more_than_the_excess_from_the_longest_string() {
        let mut value = json!({"summary": "x".repeat(1000), "notes": ["y".repeat(100)]});
        let size = chars(&value);
        cap_declared(&mut value, &schema(), size - 200).unwrap();
        let after = chars(&value);
        assert!(after <= size - 200 && after >= size - 200 - 10, "{after}");
        assert_eq!(value["notes"][0], Value::from("y".repeat(100)));
    }

    #[test]
    fn a_cut_string_is_never_longer_than_it_was() {
        // Quotes cost two characters each in JSON: a 45-quote string costs 90, more than the
        // marker, yet the marker alone would be longer than the 45 characters it replaces.
        let quotes = "\"".repeat(45);
        let mut value = json!({"summary": quotes.clone(), "notes": ["z".repeat(400)]});
        let budget = chars(&value) - 300;
        cap_declared(&mut value, &schema(), budget).unwrap();
        let summary = value["summary"].as_str().unwrap();
        assert!(summary.chars().count() <= 45, "{summary}");
    }

    #[test]
    fn a_result_whose_constrained_fields_alone_exceed_the_cap_is_refused_unchanged() {
        let mut value =
            json!({"id": format!("inc-{}", "1".repeat(500)), "summary": "s".repeat(100)});
        let before = value.clone();
        let refused = cap_declared(&mut value, &schema(), 200).unwrap_err();
        assert_eq!(refused.max, 200);
        assert_eq!(refused.chars, chars(&before));
        assert!(refused.floor > 200 && refused.floor < refused.chars);
        assert_eq!(value, before);
    }

    #[test]
    fn strings_shorter_than_the_marker_are_left_alone() {
        let mut value = json!({"notes": ["a", "bb", "ccc"], "summary": "s".repeat(600)});
        cap_declared(&mut value, &schema(), 200).unwrap();
        assert_eq!(value["notes"], json!(["a", "bb", "ccc"]));
        assert!(chars(&value) <= 200);
    }

    #[test]
    fn strings_the_schema_does_not_describe_are_not_cut() {
        let mut value = json!({"other": "o".repeat(1000)});
        assert!(cap_declared(&mut value, &schema(), 100).is_err());
    }
}
