//! What validation reports: where an argument lives, what was wrong with it, and client text
//! quoted safely back into a message; and the trait every generated arguments struct
//! implements.

use std::fmt;

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
        // Counted before the path is written out: a flood of errors allocates nothing.
        if self.reported.len() == REPORTED_ERRORS {
            self.omitted += 1;
            return;
        }
        self.push_at(path.to_string(), rule);
    }

    /// Records a broken rule at a path already written out (a JSON Schema's violation).
    pub(crate) fn push_at(&mut self, path: String, rule: impl Into<String>) {
        if self.reported.len() == REPORTED_ERRORS {
            self.omitted += 1;
            return;
        }
        self.reported.push(ArgError {
            path,
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

pub(crate) fn expected(path: ArgPath<'_>, what: &str, value: &Value, errors: &mut ArgErrors) {
    errors.push(path, format!("expected {what}, got {}", describe(value)));
}
