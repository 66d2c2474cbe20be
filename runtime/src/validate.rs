//! Strict argument validation, called by the generated validators.
//!
//! Strict means JSON types are never coerced: an integer field refuses `"42"`, `true` and
//! `42.5` (and `42.0`, as pydantic's `strict=True` does). Every problem is collected so the
//! model can fix all of them in one retry; nothing allocates unless an argument is wrong.

use std::fmt;

use regex::Regex;
use serde_json::Value;

use crate::guards::strip::sanitize;

/// A JSON object, as MCP passes tool arguments.
pub type JsonObject = serde_json::Map<String, Value>;

/// Where an argument lives, e.g. `filter.tags[2]`; built on the stack while validating.
#[derive(Debug, Clone, Copy)]
pub enum ArgPath<'a> {
    /// The arguments object itself.
    Root,
    /// A property of an object.
    Field(&'a ArgPath<'a>, &'a str),
    /// An item of an array.
    Index(&'a ArgPath<'a>, usize),
}

impl<'a> ArgPath<'a> {
    /// The path of property `name` inside this one.
    pub fn field(&'a self, name: &'a str) -> ArgPath<'a> {
        ArgPath::Field(self, name)
    }

    /// The path of item `index` inside this one.
    pub fn index(&'a self, index: usize) -> ArgPath<'a> {
        ArgPath::Index(self, index)
    }
}

impl fmt::Display for ArgPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgPath::Root => f.write_str("arguments"),
            ArgPath::Field(ArgPath::Root, name) => write_name(f, name),
            ArgPath::Field(parent, name) => {
                write!(f, "{parent}.")?;
                write_name(f, name)
            }
            ArgPath::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// A property name in a path: a client may send any key, so at most [`QUOTE_LIMIT`]
/// characters of it are echoed back.
fn write_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let name = sanitize(name, true);
    match name.char_indices().nth(QUOTE_LIMIT) {
        None => f.write_str(&name),
        Some((cut, _)) => write!(f, "{}...", &name[..cut]),
    }
}

/// One invalid argument: where, and which rule it broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    /// Path of the argument, e.g. `incident_id`.
    pub path: String,
    /// The rule, e.g. `expected an integer, got the string "42"`.
    pub rule: String,
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.rule)
    }
}

/// Errors reported in one message; the rest are counted. A client that sends 100,000
/// unknown keys gets a short answer, not 100,000 lines.
pub const REPORTED_ERRORS: usize = 20;

/// Every invalid argument of one call: the first [`REPORTED_ERRORS`] in full, the rest counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgErrors {
    reported: Vec<ArgError>,
    omitted: usize,
}

impl ArgErrors {
    /// Records a broken rule at `path`.
    pub fn push(&mut self, path: ArgPath<'_>, rule: impl Into<String>) {
        if self.reported.len() == REPORTED_ERRORS {
            self.omitted += 1;
            return;
        }
        self.reported.push(ArgError {
            path: path.to_string(),
            rule: rule.into(),
        });
    }

    /// Records a missing required field.
    pub fn missing(&mut self, path: ArgPath<'_>) {
        self.push(path, "missing required field");
    }

    /// True when nothing was wrong.
    pub fn is_empty(&self) -> bool {
        self.reported.is_empty()
    }

    /// The reported errors, in field order.
    pub fn errors(&self) -> &[ArgError] {
        &self.reported
    }

    /// Errors found beyond the reported ones.
    pub fn omitted(&self) -> usize {
        self.omitted
    }
}

impl fmt::Display for ArgErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (position, error) in self.reported.iter().enumerate() {
            if position > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{error}")?;
        }
        if self.omitted > 0 {
            write!(f, "; and {} more", self.omitted)?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgErrors {}

/// A generated arguments struct (or nested object struct).
pub trait FromArguments: Sized {
    /// Validates `object` strictly, recording every problem in `errors`; `Some` only when
    /// nothing was wrong.
    fn from_arguments(
        object: &JsonObject,
        path: ArgPath<'_>,
        errors: &mut ArgErrors,
    ) -> Option<Self>;

    /// Validates the `arguments` of a `tools/call` (absent means `{}`).
    fn from_call(arguments: Option<&JsonObject>) -> Result<Self, ArgErrors> {
        let empty = JsonObject::new();
        let mut errors = ArgErrors::default();
        let parsed = Self::from_arguments(arguments.unwrap_or(&empty), ArgPath::Root, &mut errors);
        match parsed {
            Some(value) if errors.is_empty() => Ok(value),
            _ => Err(errors),
        }
    }
}

/// Longest piece of a client-sent string quoted back in an error message.
pub const QUOTE_LIMIT: usize = 40;

/// A client-sent string quoted for an error message: sanitized like tool output (so it
/// cannot carry markup into the message around it), at most [`QUOTE_LIMIT`] characters, then
/// its length.
pub fn quote_client_text(text: &str) -> String {
    let text = sanitize(text, true);
    match text.char_indices().nth(QUOTE_LIMIT) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!(
            "{:?}... ({} characters)",
            &text[..cut],
            text.chars().count()
        ),
    }
}

/// Describes a JSON value for an error message without echoing much of it back.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => format!("the number {number}"),
        Value::String(text) => format!("the string {}", quote_client_text(text)),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(_) => "an object".to_owned(),
    }
}

fn expected(path: ArgPath<'_>, what: &str, value: &Value, errors: &mut ArgErrors) {
    errors.push(path, format!("expected {what}, got {}", describe(value)));
}

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

/// Length and pattern rules of a string.
#[derive(Debug, Clone, Copy, Default)]
pub struct StringRules<'a> {
    /// Minimum length in Unicode code points.
    pub min_length: Option<u64>,
    /// Maximum length in Unicode code points.
    pub max_length: Option<u64>,
    /// Must match somewhere (JSON Schema `pattern` semantics), with its source text.
    pub pattern: Option<(&'a Regex, &'a str)>,
}

/// A strict string.
pub fn string(
    value: &Value,
    path: ArgPath<'_>,
    rules: &StringRules<'_>,
    errors: &mut ArgErrors,
) -> Option<String> {
    let Value::String(text) = value else {
        expected(path, "a string", value, errors);
        return None;
    };
    let mut ok = true;
    if rules.min_length.is_some() || rules.max_length.is_some() {
        let length = text.chars().count() as u64;
        if let Some(min) = rules.min_length.filter(|min| length < *min) {
            errors.push(
                path,
                format!("expected at least {min} characters, got {length}"),
            );
            ok = false;
        }
        if let Some(max) = rules.max_length.filter(|max| length > *max) {
            errors.push(
                path,
                format!("expected at most {max} characters, got {length}"),
            );
            ok = false;
        }
    }
    if let Some((regex, source)) = rules.pattern
        && !regex.is_match(text)
    {
        errors.push(
            path,
            format!("must match the pattern {source}, got {}", describe(value)),
        );
        ok = false;
    }
    ok.then(|| text.clone())
}

/// A strict integer within `minimum..=maximum`, converted to the generated field's type.
pub fn integer<T: TryFrom<i64>>(
    value: &Value,
    path: ArgPath<'_>,
    minimum: i64,
    maximum: i64,
    errors: &mut ArgErrors,
) -> Option<T> {
    let Value::Number(number) = value else {
        expected(path, "an integer", value, errors);
        return None;
    };
    let Some(integer) = number.as_i64() else {
        if number.is_u64() {
            errors.push(path, format!("must be at most {maximum}, got {number}"));
        } else {
            expected(path, "an integer", value, errors);
        }
        return None;
    };
    if integer < minimum {
        errors.push(path, format!("must be at least {minimum}, got {integer}"));
        return None;
    }
    if integer > maximum {
        errors.push(path, format!("must be at most {maximum}, got {integer}"));
        return None;
    }
    match T::try_from(integer) {
        Ok(converted) => Some(converted),
        Err(_) => {
            errors.push(path, format!("{integer} does not fit the field's type"));
            None
        }
    }
}

/// Bounds of a number.
#[derive(Debug, Clone, Copy, Default)]
pub struct NumberRules {
    /// Inclusive lower bound.
    pub minimum: Option<f64>,
    /// Inclusive upper bound.
    pub maximum: Option<f64>,
    /// Exclusive lower bound.
    pub exclusive_minimum: Option<f64>,
    /// Exclusive upper bound.
    pub exclusive_maximum: Option<f64>,
}

/// A strict number (any JSON number; no strings or booleans) within its bounds.
pub fn number(
    value: &Value,
    path: ArgPath<'_>,
    rules: &NumberRules,
    errors: &mut ArgErrors,
) -> Option<f64> {
    let Some(number) = value.as_f64().filter(|_| value.is_number()) else {
        expected(path, "a number", value, errors);
        return None;
    };
    let broken = [
        rules
            .minimum
            .filter(|min| number < *min)
            .map(|min| format!("must be at least {min}")),
        rules
            .maximum
            .filter(|max| number > *max)
            .map(|max| format!("must be at most {max}")),
        rules
            .exclusive_minimum
            .filter(|min| number <= *min)
            .map(|min| format!("must be greater than {min}")),
        rules
            .exclusive_maximum
            .filter(|max| number >= *max)
            .map(|max| format!("must be less than {max}")),
    ];
    let mut ok = true;
    for rule in broken.into_iter().flatten() {
        errors.push(path, format!("{rule}, got {value}"));
        ok = false;
    }
    ok.then_some(number)
}

/// A strict boolean.
pub fn boolean(value: &Value, path: ArgPath<'_>, errors: &mut ArgErrors) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        _ => {
            expected(path, "a boolean", value, errors);
            None
        }
    }
}

/// Records that `value` is not one of an enum's `members` (called by generated enums after
/// their own match failed).
pub fn not_a_member<T>(
    value: &Value,
    path: ArgPath<'_>,
    members: &[&str],
    errors: &mut ArgErrors,
) -> Option<T> {
    let quoted: Vec<String> = members.iter().map(|member| format!("{member:?}")).collect();
    let what = format!("one of {}", quoted.join(", "));
    expected(path, &what, value, errors);
    None
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
/// such as [`boolean`], or a closure holding its rules). Every error is kept in `errors`.
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run<T>(check: impl FnOnce(ArgPath<'_>, &mut ArgErrors) -> Option<T>) -> Result<T, String> {
        let root = ArgPath::Root;
        let mut errors = ArgErrors::default();
        check(root.field("x"), &mut errors).ok_or_else(|| errors.to_string())
    }

    #[test]
    fn null_is_absent_for_optional_and_defaulted_fields_but_not_for_required_ones() {
        let object: JsonObject =
            serde_json::from_value(json!({"a": null, "b": null, "c": null})).expect("an object");
        let mut errors = ArgErrors::default();
        let mut fields = Fields::new(&object, ArgPath::Root, &["a", "b", "c"], &mut errors);
        assert_eq!(fields.optional("a", boolean), Some(None));
        assert_eq!(fields.or_default("b", boolean, || true), Some(true));
        assert_eq!(fields.required("c", boolean), None);
        assert_eq!(errors.to_string(), "c: expected a boolean, got null");
    }

    #[test]
    fn unknown_keys_are_quoted_short_and_counted_past_the_limit() {
        let mut object = JsonObject::new();
        object.insert("k".repeat(100_000), json!(1));
        for index in 0..1_000 {
            object.insert(format!("extra{index}"), json!(1));
        }
        let mut errors = ArgErrors::default();
        reject_unknown_fields(&object, ArgPath::Root, &["id"], &mut errors);
        let message = errors.to_string();
        assert_eq!(errors.errors().len(), REPORTED_ERRORS);
        assert_eq!(errors.omitted(), 1_001 - REPORTED_ERRORS);
        assert!(
            message.starts_with(&format!("{}...: unknown field", "k".repeat(40))),
            "{message}"
        );
        assert!(message.ends_with("; and 981 more"), "{message}");
        assert!(message.len() < 2_000, "{} bytes", message.len());
    }

    #[test]
    fn client_strings_are_quoted_at_most_forty_characters() {
        assert_eq!(quote_client_text("short"), "\"short\"");
        let long = "é".repeat(41);
        assert_eq!(
            quote_client_text(&long),
            format!("{:?}... (41 characters)", "é".repeat(40))
        );
    }

    #[test]
    fn integers_are_strict() {
        let int =
            |value: Value| run(|path, errors| integer::<u32>(&value, path, 1, 999_999, errors));
        assert_eq!(int(json!(42)), Ok(42));
        assert_eq!(
            int(json!("42")),
            Err(r#"x: expected an integer, got the string "42""#.into())
        );
        assert_eq!(
            int(json!(true)),
            Err("x: expected an integer, got true".into())
        );
        assert_eq!(
            int(json!(42.5)),
            Err("x: expected an integer, got the number 42.5".into())
        );
        assert_eq!(
            int(json!(42.0)),
            Err("x: expected an integer, got the number 42.0".into())
        );
        assert_eq!(int(json!(0)), Err("x: must be at least 1, got 0".into()));
        assert_eq!(
            int(json!(1_000_000)),
            Err("x: must be at most 999999, got 1000000".into())
        );
        assert_eq!(
            int(json!(u64::MAX)),
            Err("x: must be at most 999999, got 18446744073709551615".into())
        );
    }

    #[test]
    fn strings_check_length_in_code_points_and_pattern() {
        let regex = Regex::new("^[a-z]+$").unwrap();
        let rules = StringRules {
            min_length: Some(2),
            max_length: Some(3),
            pattern: Some((&regex, "^[a-z]+$")),
        };
        let text = |value: Value| run(|path, errors| string(&value, path, &rules, errors));
        assert_eq!(text(json!("abc")), Ok("abc".to_owned()));
        assert_eq!(
            text(json!("ééé")).unwrap_err(),
            r#"x: must match the pattern ^[a-z]+$, got the string "ééé""#
        );
        assert_eq!(
            text(json!("a")),
            Err("x: expected at least 2 characters, got 1".into())
        );
        assert_eq!(
            text(json!(1)),
            Err("x: expected a string, got the number 1".into())
        );
    }

    #[test]
    fn long_strings_are_not_echoed_back() {
        let long = "A".repeat(10_000);
        let message = run(|path, errors| boolean(&json!(long), path, errors)).unwrap_err();
        assert!(message.len() < 120, "{message}");
        assert!(message.ends_with("... (10000 characters)"), "{message}");
    }

    #[test]
    fn arrays_collect_every_item_error() {
        let value = json!([1, "2", 3, true]);
        let message = run(|path, errors| {
            array(
                &value,
                path,
                None,
                Some(10),
                errors,
                |item, path, errors| integer::<i64>(item, path, i64::MIN, i64::MAX, errors),
            )
        })
        .unwrap_err();
        assert_eq!(
            message,
            r#"x[1]: expected an integer, got the string "2"; x[3]: expected an integer, got true"#
        );
    }

    #[test]
    fn numbers_honour_exclusive_bounds() {
        let rules = NumberRules {
            exclusive_minimum: Some(0.0),
            maximum: Some(1.0),
            ..NumberRules::default()
        };
        let num = |value: Value| run(|path, errors| number(&value, path, &rules, errors));
        assert_eq!(num(json!(1)), Ok(1.0));
        assert_eq!(
            num(json!(0.0)),
            Err("x: must be greater than 0, got 0.0".into())
        );
        assert_eq!(
            num(json!("1")),
            Err(r#"x: expected a number, got the string "1""#.into())
        );
    }

    #[test]
    fn unknown_fields_name_the_allowed_ones() {
        let object = json!({"incident_id": 1, "extra": 2});
        let mut errors = ArgErrors::default();
        reject_unknown_fields(
            object.as_object().unwrap(),
            ArgPath::Root,
            &["incident_id", "view"],
            &mut errors,
        );
        assert_eq!(
            errors.to_string(),
            "extra: unknown field; expected one of: incident_id, view"
        );
    }
}
