//! Verifier vocabulary the manifest states and `verify` checks.

use serde::{Deserialize, Serialize};

use crate::enums::contract_enum;

/// The JSON type a state-file field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// A JSON integer.
    Integer,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON string.
    String,
}

contract_enum!(FieldType {
    Integer => "integer",
    Number => "number",
    Boolean => "boolean",
    String => "string",
});

impl FieldType {
    /// Whether `value` has this type (an integer is also a number).
    pub fn admits(self, value: &serde_json::Value) -> bool {
        match self {
            FieldType::Integer => value.is_i64() || value.is_u64(),
            FieldType::Number => value.is_number(),
            FieldType::Boolean => value.is_boolean(),
            FieldType::String => value.is_string(),
        }
    }
}
