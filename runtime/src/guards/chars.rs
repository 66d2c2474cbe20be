//! Char cap: bounds what the model reads, in characters, without ever producing invalid
//! JSON. Text is cut at a char boundary with a marker; a structured result is shrunk by
//! cutting its longest strings and then the tails of its longest arrays, so it stays a
//! valid value of the same shape, and the caller is told what was cut.

use serde_json::Value;

/// What a char cap cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cut {
    /// Strings shortened.
    pub strings: u64,
    /// Array items dropped.
    pub array_items: u64,
    /// Characters before the cap.
    pub original_chars: u64,
}

impl Cut {
    /// True when nothing was cut.
    pub fn is_empty(&self) -> bool {
        self.strings == 0 && self.array_items == 0
    }
}

/// The marker appended to a cut text.
pub(crate) fn marker(cut_chars: usize, total: usize) -> String {
    format!("... [truncated: {cut_chars} of {total} characters cut]")
}

/// Caps `text` at `max_chars` characters, marker included where it fits.
pub fn cap_text(text: &str, max_chars: u64) -> Option<String> {
    let max_chars = usize::try_from(max_chars).unwrap_or(usize::MAX);
    let total = text.chars().count();
    if total <= max_chars {
        return None;
    }
    // The marker's own length depends on the number it carries; size it for the worst case.
    let reserve = marker(total, total).chars().count();
    let keep = max_chars.saturating_sub(reserve);
    let boundary = text
        .char_indices()
        .nth(keep)
        .map_or(text.len(), |(index, _)| index);
    let mut capped = text[..boundary].to_owned();
    capped.push_str(&marker(total - keep, total));
    Some(capped)
}

fn serialized_chars(value: &Value) -> usize {
    // Serializing counts bytes; characters are what the budget is in.
    value.to_string().chars().count()
}

/// The longest string not cut yet (`done` holds the addresses of those already cut; the
/// values are edited in place, so the addresses stay valid).
fn longest_string<'v>(value: &'v mut Value, done: &[*const String]) -> Option<&'v mut String> {
    let mut best: Option<&mut String> = None;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => {
                let fresh = !done.contains(&(text as *const String));
                if fresh && best.as_ref().is_none_or(|best| text.len() > best.len()) {
                    best = Some(text);
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(object) => stack.extend(object.values_mut()),
            _ => {}
        }
    }
    best
}

/// One step into a JSON value.
enum Step {
    Index(usize),
    Key(String),
}

/// The path to the longest array anywhere in `value` (nested arrays included).
fn longest_array_path(value: &Value) -> Option<Vec<Step>> {
    fn visit(value: &Value, path: &mut Vec<Step>, best: &mut Option<(usize, Vec<Step>)>) {
        match value {
            Value::Array(items) => {
                if !items.is_empty() && best.as_ref().is_none_or(|(len, _)| items.len() > *len) {
                    let copy = path.iter().map(|step| match step {
                        Step::Index(index) => Step::Index(*index),
                        Step::Key(key) => Step::Key(key.clone()),
                    });
                    *best = Some((items.len(), copy.collect()));
                }
                for (index, item) in items.iter().enumerate() {
                    path.push(Step::Index(index));
                    visit(item, path, best);
                    path.pop();
                }
            }
            Value::Object(object) => {
                for (key, item) in object {
                    path.push(Step::Key(key.clone()));
                    visit(item, path, best);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    visit(value, &mut Vec::new(), &mut best);
    best.map(|(_, path)| path)
}

fn longest_array(value: &mut Value) -> Option<&mut Vec<Value>> {
    let path = longest_array_path(value)?;
    let mut current = value;
    for step in path {
        current = match step {
            Step::Index(index) => current.get_mut(index)?,
            Step::Key(key) => current.get_mut(key.as_str())?,
        };
    }
    current.as_array_mut()
}

/// Shrinks `value` until its JSON text is at most `max_chars` characters.
pub fn cap_value(value: &mut Value, max_chars: u64) -> Cut {
    let budget = usize::try_from(max_chars).unwrap_or(usize::MAX);
    let original = serialized_chars(value);
    let mut cut = Cut {
        original_chars: original as u64,
        ..Cut::default()
    };
    let mut size = original;
    let mut done: Vec<*const String> = Vec::new();
    // Cut strings first, each at most once: long strings are where floods come from.
    while size > budget {
        let Some(text) = longest_string(value, &done) else {
            break;
        };
        done.push(text as *const String);
        let length = text.chars().count();
        let excess = size - budget;
        let floor = marker(length, length).chars().count() + 1;
        if length <= floor {
            continue;
        }
        let keep_total = length.saturating_sub(excess).max(floor);
        match cap_text(text, keep_total as u64) {
            Some(capped) if capped.chars().count() < length => {
                *text = capped;
                cut.strings += 1;
            }
            _ => continue,
        }
        size = serialized_chars(value);
    }
    // Then drop array tails, halving the longest array each round.
    while size > budget {
        let Some(items) = longest_array(value) else {
            break;
        };
        if items.is_empty() {
            break;
        }
        let keep = items.len() / 2;
        cut.array_items += (items.len() - keep) as u64;
        items.truncate(keep);
        size = serialized_chars(value);
    }
    cut
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_is_cut_at_a_char_boundary_with_a_marker() {
        let text = "é".repeat(5000);
        let capped = cap_text(&text, 1000).unwrap();
        assert!(capped.chars().count() <= 1000, "{}", capped.chars().count());
        assert!(capped.ends_with("characters cut]"));
        assert!(cap_text("short", 1000).is_none());
    }

    #[test]
    fn structured_values_stay_valid_and_bounded() {
        let mut value =
            json!({"log": "x".repeat(10_000), "ids": (0..2000).collect::<Vec<_>>(), "ok": true});
        let cut = cap_value(&mut value, 2000);
        let text = value.to_string();
        assert!(text.chars().count() <= 2000, "{}", text.chars().count());
        assert!(serde_json::from_str::<Value>(&text).is_ok());
        assert_eq!(value["ok"], json!(true));
        assert!(value["log"].as_str().unwrap().ends_with("characters cut]"));
        assert_eq!(cut.strings, 1);
        assert!(cut.array_items > 0);
    }
}
