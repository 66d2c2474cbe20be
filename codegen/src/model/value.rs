//! Manifest values as JSON: TOML conversion, and the check of a default against its type with
//! the generated validator's rules.

use serde_json::Value;

use crate::model::types::TypeModel;

/// Converts a TOML value into JSON; dates have no JSON form.
pub(crate) fn toml_to_json(value: &toml::Value) -> Result<Value, String> {
    Ok(match value {
        toml::Value::String(text) => Value::String(text.clone()),
        toml::Value::Integer(number) => Value::from(*number),
        toml::Value::Float(number) => serde_json::Number::from_f64(*number)
            .map(Value::Number)
            .ok_or_else(|| format!("{number} is not a finite number"))?,
        toml::Value::Boolean(flag) => Value::Bool(*flag),
        toml::Value::Datetime(_) => return Err("a TOML date has no JSON form".to_owned()),
        toml::Value::Array(items) => {
            Value::Array(items.iter().map(toml_to_json).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(key, value)| Ok((key.clone(), toml_to_json(value)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// Checks a manifest-supplied value (a default) against a type, with the same strict
/// rules as the generated validator; the error completes the sentence "default ...".
pub fn check_value(ty: &TypeModel, value: &Value) -> Result<(), String> {
    match (ty, value) {
        (
            TypeModel::String {
                min_length,
                max_length,
                pattern,
            },
            Value::String(text),
        ) => {
            let length = text.chars().count() as u64;
            if min_length.is_some_and(|min| length < min)
                || max_length.is_some_and(|max| length > max)
            {
                return Err(format!(
                    "{text:?} has {length} characters, outside the allowed length"
                ));
            }
            if let Some(pattern) = pattern {
                let regex =
                    regex::Regex::new(pattern).map_err(|_| "cannot be checked".to_owned())?;
                if !regex.is_match(text) {
                    return Err(format!("{text:?} does not match the pattern {pattern}"));
                }
            }
            Ok(())
        }
        (
            TypeModel::Integer {
                minimum, maximum, ..
            },
            Value::Number(number),
        ) => {
            let Some(integer) = number.as_i64() else {
                return Err(format!("{number} is not an integer"));
            };
            if integer < *minimum || integer > *maximum {
                return Err(format!("{integer} is out of range {minimum}..={maximum}"));
            }
            Ok(())
        }
        (
            TypeModel::Number {
                minimum,
                maximum,
                exclusive_minimum,
                exclusive_maximum,
            },
            Value::Number(number),
        ) => {
            let value = number.as_f64().unwrap_or(f64::NAN);
            let outside = minimum.is_some_and(|min| value < min)
                || maximum.is_some_and(|max| value > max)
                || exclusive_minimum.is_some_and(|min| value <= min)
                || exclusive_maximum.is_some_and(|max| value >= max);
            if outside {
                return Err(format!("{number} is out of range"));
            }
            Ok(())
        }
        (TypeModel::Boolean, Value::Bool(_)) => Ok(()),
        (TypeModel::Enum { variants, .. }, Value::String(text)) => {
            if variants.iter().any(|(member, _)| member == text) {
                Ok(())
            } else {
                let members: Vec<&str> =
                    variants.iter().map(|(member, _)| member.as_str()).collect();
                Err(format!("{text:?} is not one of {members:?}"))
            }
        }
        (
            TypeModel::Array {
                items,
                min_items,
                max_items,
            },
            Value::Array(values),
        ) => {
            let count = values.len() as u64;
            if min_items.is_some_and(|min| count < min) || max_items.is_some_and(|max| count > max)
            {
                return Err(format!("has {count} items, outside the allowed count"));
            }
            values.iter().try_for_each(|item| check_value(items, item))
        }
        (ty, value) => Err(format!("{value} is not {}", type_phrase(ty))),
    }
}

fn type_phrase(ty: &TypeModel) -> &'static str {
    match ty {
        TypeModel::String { .. } => "a string",
        TypeModel::Integer { .. } => "an integer",
        TypeModel::Number { .. } => "a number",
        TypeModel::Boolean => "a boolean",
        TypeModel::Enum { .. } => "a string member of the enum",
        TypeModel::Array { .. } => "an array",
        TypeModel::Object { .. } => "an object",
    }
}
