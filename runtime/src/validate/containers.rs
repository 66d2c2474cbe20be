//! Strict containers: arrays, nested objects, the fields of one object, unknown properties
//! refused, and the arguments of a tool that takes none.

use serde::Serialize;
use serde_json::Value;

use super::errors::{ArgErrors, ArgPath, FromArguments, JsonObject, expected};

/// Refuses every property of `object` that is not in `allowed`.
pub fn reject_unknown_fields(
    object: &JsonObject,
    path: ArgPath<'_>,
    allowed: &[&str],
    errors: &mut ArgErrors,
) {
    let mut rule = None;
    for key in object.keys() {
        if !allowed.contains(&key.as_str()) {
            let rule = rule.get_or_insert_with(|| {
                if allowed.is_empty() {
                    "unknown field; this tool takes no arguments".to_owned()
                } else {
                    format!("unknown field; expected one of: {}", allowed.join(", "))
                }
            });
            errors.push(path.field(key), rule.as_str());
        }
    }
}

/// An array whose items each pass `item`; all item errors are collected.
pub fn array<T>(
    value: &Value,
    path: ArgPath<'_>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    errors: &mut ArgErrors,
    mut item: impl FnMut(&Value, ArgPath<'_>, &mut ArgErrors) -> Option<T>,
) -> Option<Vec<T>> {
    let Value::Array(values) = value else {
        expected(path, "an array", value, errors);
        return None;
    };
    let count = values.len() as u64;
    let mut ok = true;
    if let Some(min) = min_items.filter(|min| count < *min) {
        errors.push(path, format!("expected at least {min} items, got {count}"));
        ok = false;
    }
    if let Some(max) = max_items.filter(|max| count > *max) {
        errors.push(path, format!("expected at most {max} items, got {count}"));
        return None;
    }
    let mut parsed = Vec::with_capacity(values.len());
    for (index, value) in values.iter().enumerate() {
        match item(value, path.index(index), errors) {
            Some(value) => parsed.push(value),
            None => ok = false,
        }
    }
    ok.then_some(parsed)
}

/// The fields of one object being validated: each field is bound by its presence
/// ([`required`](Fields::required), [`optional`](Fields::optional),
/// [`or_default`](Fields::or_default)) with a `parse` that checks a present value (a validator
/// such as [`boolean`](crate::validate::boolean), or a closure holding its rules). Every
/// error is kept in `errors`.
pub struct Fields<'a> {
    object: &'a JsonObject,
    path: ArgPath<'a>,
    errors: &'a mut ArgErrors,
}

impl<'a> Fields<'a> {
    /// The fields of `object` at `path`, after refusing any field not in `allowed`.
    pub fn new(
        object: &'a JsonObject,
        path: ArgPath<'a>,
        allowed: &[&str],
        errors: &'a mut ArgErrors,
    ) -> Self {
        reject_unknown_fields(object, path, allowed, errors);
        Self {
            object,
            path,
            errors,
        }
    }

    /// A required field: validated when present, reported missing when absent.
    pub fn required<T>(
        &mut self,
        name: &str,
        parse: impl FnOnce(&Value, ArgPath<'_>, &mut ArgErrors) -> Option<T>,
    ) -> Option<T> {
        let path = self.path.field(name);
        match self.object.get(name) {
            Some(value) => parse(value, path, self.errors),
            None => {
                self.errors.missing(path);
                None
            }
        }
    }

    /// An optional field: `Some(None)` when absent or `null`, `Some(Some(_))` when present and
    /// valid, `None` when present and invalid.
    pub fn optional<T>(
        &mut self,
        name: &str,
        parse: impl FnOnce(&Value, ArgPath<'_>, &mut ArgErrors) -> Option<T>,
    ) -> Option<Option<T>> {
        match self.object.get(name) {
            Some(Value::Null) | None => Some(None),
            Some(value) => parse(value, self.path.field(name), self.errors).map(Some),
        }
    }

    /// A field with a default: `default()` when absent or `null`, validated when present.
    pub fn or_default<T>(
        &mut self,
        name: &str,
        parse: impl FnOnce(&Value, ArgPath<'_>, &mut ArgErrors) -> Option<T>,
        default: impl FnOnce() -> T,
    ) -> Option<T> {
        match self.object.get(name) {
            Some(Value::Null) | None => Some(default()),
            Some(value) => parse(value, self.path.field(name), self.errors),
        }
    }
}

/// A nested object validated by its generated struct.
pub fn object<T: FromArguments>(
    value: &Value,
    path: ArgPath<'_>,
    errors: &mut ArgErrors,
) -> Option<T> {
    match value {
        Value::Object(object) => T::from_arguments(object, path, errors),
        _ => {
            expected(path, "an object", value, errors);
            None
        }
    }
}

/// The arguments of a tool that takes none: any field is refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct NoArguments {}

impl FromArguments for NoArguments {
    fn from_arguments(
        object: &JsonObject,
        path: ArgPath<'_>,
        errors: &mut ArgErrors,
    ) -> Option<Self> {
        reject_unknown_fields(object, path, &[], errors);
        Some(NoArguments {})
    }
}
