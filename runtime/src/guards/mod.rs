//! The guards at the tool boundary, one file each, in pipeline order:
//! [`rate_limit`] -> (validate, execute) -> [`tabular`] -> [`lines`] -> [`strip`] -> [`chars`].

pub mod chars;
pub mod lines;
pub mod rate_limit;
pub mod strip;
pub mod tabular;

use serde_json::Value;

/// Applies `edit` to every string in `value` the model will see (object keys included),
/// depth first, and reports whether any string changed.
pub(crate) fn for_each_string(
    value: &mut Value,
    edit: &mut impl FnMut(&mut String) -> bool,
) -> bool {
    match value {
        Value::String(text) => edit(text),
        Value::Array(items) => {
            let mut changed = false;
            for item in items {
                changed |= for_each_string(item, edit);
            }
            changed
        }
        Value::Object(object) => {
            let mut changed = false;
            let entries = std::mem::take(object);
            for (mut key, mut item) in entries {
                changed |= edit(&mut key);
                changed |= for_each_string(&mut item, edit);
                object.insert(key, item);
            }
            changed
        }
        _ => false,
    }
}
