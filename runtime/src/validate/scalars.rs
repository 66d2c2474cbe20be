//! Strict scalars: strings (length, pattern), integers and numbers (bounds), booleans, and
//! enum members.

use regex::Regex;
use serde_json::Value;

use super::errors::{ArgErrors, ArgPath, describe, expected};

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
