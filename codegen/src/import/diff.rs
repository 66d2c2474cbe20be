//! Differences shown to the user: the manifest as import would leave it (`--dry-run`), and a
//! drifted tool's manifest entry against the entry its live definition would make.

use serde_json::{Map, Value};
use similar::TextDiff;
use toml_edit::{Item, Table};

/// A unified diff of `old` and `new` (three lines of context), empty when they are equal.
pub(crate) fn unified(old: &str, new: &str, old_label: &str, new_label: &str) -> String {
    if old == new {
        return String::new();
    }
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_label, new_label)
        .to_string()
}

/// Keys of a `[[tools]]` entry that come from the upstream's definition (the rest, such as
/// `guards`, is the user's own and never drifts).
const DEFINITION_KEYS: &[&str] = &["title", "description", "annotations", "arguments"];

/// The parts of a `[[tools]]` entry that an upstream definition determines, as pretty JSON
/// with sorted keys, so two entries compare by content whatever their formatting.
pub(crate) fn definition_view(table: &Table) -> String {
    let view: Map<String, Value> = DEFINITION_KEYS
        .iter()
        .filter_map(|key| table.get(key).map(|item| ((*key).to_owned(), json(item))))
        .collect();
    let mut text =
        serde_json::to_string_pretty(&sorted(Value::Object(view))).expect("JSON serializes");
    text.push('\n');
    text
}

/// `value` with every object's keys sorted (the workspace's serde_json keeps insertion order).
pub(crate) fn sorted(value: Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut entries: Vec<(String, Value)> = object.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(value) => value_json(value),
        Item::Table(table) => table_json(table.iter()),
        Item::ArrayOfTables(tables) => Value::Array(
            tables
                .iter()
                .map(|table| table_json(table.iter()))
                .collect(),
        ),
    }
}

fn table_json<'a>(entries: impl Iterator<Item = (&'a str, &'a Item)>) -> Value {
    Value::Object(
        entries
            .map(|(key, item)| (key.to_owned(), json(item)))
            .collect(),
    )
}

fn value_json(value: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match value {
        V::String(text) => Value::String(text.value().clone()),
        V::Integer(integer) => Value::from(*integer.value()),
        V::Float(float) => Value::from(*float.value()),
        V::Boolean(set) => Value::Bool(*set.value()),
        V::Datetime(datetime) => Value::String(datetime.value().to_string()),
        V::Array(array) => Value::Array(array.iter().map(value_json).collect()),
        V::InlineTable(table) => Value::Object(
            table
                .iter()
                .map(|(key, value)| (key.to_owned(), value_json(value)))
                .collect(),
        ),
    }
}
