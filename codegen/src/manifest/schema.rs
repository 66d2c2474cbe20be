//! The manifest's JSON Schema: for editors, and for the unknown-key check's suggestions.

use crate::manifest::document::Manifest;

/// The manifest's JSON Schema as a value, to look keys up in.
pub(crate) static SCHEMA: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
    serde_json::to_value(schemars::schema_for!(Manifest)).expect("a schema serializes")
});

/// The JSON Schema of harness.toml, for editors (taplo, Even Better TOML).
pub fn manifest_json_schema() -> String {
    let mut text = serde_json::to_string_pretty(&*SCHEMA).expect("a schema serializes");
    text.push('\n');
    text
}
