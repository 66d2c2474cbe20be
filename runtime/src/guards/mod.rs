//! The guards at the tool boundary, one file each: the checks a call passes before its body
//! runs, and the output guards its result passes after. The order they run in is the
//! pipeline's (see [`crate::pipeline`]).

pub mod chars;
pub(crate) mod concurrency;
pub(crate) mod idempotency;
pub mod lines;
pub(crate) mod rate_limit;
pub mod redact;
#[cfg(feature = "redis")]
pub(crate) mod redis_window;
pub(crate) mod request_limits;
pub(crate) mod schema_cap;
pub mod strip;
pub mod tabular;

pub use self::rate_limit::StoreError;

use std::borrow::Cow;

use serde_json::Value;

/// Rewrites every string in `value` the model will see (object keys included) with `edit`,
/// which returns a borrowed text when nothing changes; nothing is reallocated then.
pub(crate) fn rewrite_strings(value: &mut Value, edit: &impl Fn(&str) -> Cow<'_, str>) {
    match value {
        Value::String(text) => {
            if let Cow::Owned(changed) = edit(text) {
                *text = changed;
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rewrite_strings(item, edit)),
        Value::Object(object) => {
            // Keys almost never change; rebuild the map (keeping its order) only when one does,
            // editing each key once (an edit may count what it does).
            let first_changed =
                object
                    .keys()
                    .enumerate()
                    .find_map(|(index, key)| match edit(key) {
                        Cow::Owned(changed) => Some((index, changed)),
                        Cow::Borrowed(_) => None,
                    });
            if let Some((changed_at, changed)) = first_changed {
                let entries = std::mem::take(object);
                let mut changed = Some(changed);
                for (index, (key, item)) in entries.into_iter().enumerate() {
                    let key = match index.cmp(&changed_at) {
                        std::cmp::Ordering::Less => key,
                        std::cmp::Ordering::Equal => changed.take().unwrap_or(key),
                        std::cmp::Ordering::Greater => edit(&key).into_owned(),
                    };
                    object.insert(key, item);
                }
            }
            object
                .values_mut()
                .for_each(|item| rewrite_strings(item, edit));
        }
        _ => {}
    }
}
