//! JSON parsing stricter than `serde_json::from_str`: duplicate keys are an error (not "last
//! one wins"). The verifier reads evidence files with it, so a tampered or corrupted record
//! cannot hide a field; the stateless fast path reads a plain call's arguments with it, so a
//! call with a repeated key goes on to be marked and refused (crate::transport::duplicate_keys).
//! Non-finite numbers cannot occur: JSON has no NaN or Infinity and serde_json refuses them.

use std::fmt;

use serde::Deserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Parses `text` as one JSON value, refusing duplicate object keys.
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = StrictValue
        .deserialize(&mut deserializer)
        .map_err(|error| error.to_string())?;
    deserializer.end().map_err(|error| error.to_string())?;
    Ok(value)
}

/// A JSON value read as serde_json reads a [`Value`], failing on a duplicate object key at
/// any depth (a seed, and the visitor of one value).
pub(crate) struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(StrictValue)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            let value = map.next_value_seed(StrictValue)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn refuses_duplicates_and_trailing_data() {
        assert!(parse(r#"{"a":1,"b":{"c":2}}"#).is_ok());
        assert!(
            parse(r#"{"a":1,"a":2}"#)
                .unwrap_err()
                .contains("duplicate key \"a\"")
        );
        assert!(
            parse(r#"{"b":{"c":1,"c":1}}"#)
                .unwrap_err()
                .contains("duplicate key")
        );
        assert!(parse(r#"{"a":NaN}"#).is_err());
        assert!(parse(r#"{"a":1} x"#).is_err());
    }
}
