//! The published inputSchema of each tool (JSON Schema 2020-12), and the outputSchema of a
//! tool with declared results, built from the same model as the validators so the two accept
//! exactly the same values. A field that may be absent may also be `null`, which means absent.

use serde_json::{Map, Value, json};

use crate::model::{FieldModel, FormModel, Presence, ToolModel, TypeModel};

pub use crate::model::DIALECT;

/// Appended to the description of integers: the one place JSON Schema is looser than the
/// validator (JSON Schema counts 42.0 as an integer; strict typing refuses it).
pub const STRICT_INTEGER_NOTE: &str = "Strict integer: send 42, not 42.0, \"42\" or true; a number written with a fraction part is refused even when it is whole.";

/// The inputSchema of `tool`.
pub fn input_schema(tool: &ToolModel) -> Value {
    if let Some(pinned) = &tool.pinned_schema {
        return pinned.clone();
    }
    let mut schema = Map::new();
    schema.insert("$schema".into(), DIALECT.into());
    schema.extend(object_schema(&tool.args, Side::Input));
    Value::Object(schema)
}

/// The outputSchema of `tool`: its declared results, or `None` when it declares none.
pub fn output_schema(tool: &ToolModel) -> Option<Value> {
    let results = tool.results.as_ref()?;
    let mut schema = Map::new();
    schema.insert("$schema".into(), DIALECT.into());
    schema.extend(object_schema(&results.fields, Side::Output));
    Some(Value::Object(schema))
}

/// The requested schema of a form (`elicitation/create`): flat, one type per field, no
/// `null` (an optional field is one the user may leave empty, which the validator reads as
/// absent), as elicitation schemas must be.
pub fn form_schema(form: &FormModel) -> Value {
    let properties: Map<String, Value> = form
        .fields
        .iter()
        .map(|field| {
            let mut schema = type_schema(&field.ty, Side::Output);
            if let Some(description) = &field.description {
                schema.insert("description".into(), description.clone().into());
            }
            if let Presence::Default(value) = &field.presence {
                schema.insert("default".into(), value.clone());
            }
            (field.name.clone(), Value::Object(schema))
        })
        .collect();
    let required: Vec<Value> = form
        .fields
        .iter()
        .filter(|field| field.presence == Presence::Required)
        .map(|field| Value::String(field.name.clone()))
        .collect();
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema
}

/// Which schema a field is in: an argument's says how to send an integer, a result's does not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

fn object_schema(fields: &[FieldModel], side: Side) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    let properties: Map<String, Value> = fields
        .iter()
        .map(|field| (field.name.clone(), field_schema(field, side)))
        .collect();
    schema.insert("properties".into(), Value::Object(properties));
    let required: Vec<Value> = fields
        .iter()
        .filter(|field| field.presence == Presence::Required)
        .map(|field| Value::String(field.name.clone()))
        .collect();
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), false.into());
    schema
}

fn field_schema(field: &FieldModel, side: Side) -> Value {
    let mut schema = type_schema(&field.ty, side);
    if field.presence != Presence::Required {
        admit_null(&mut schema);
    }
    let note = (side == Side::Input && matches!(field.ty, TypeModel::Integer { .. }))
        .then_some(STRICT_INTEGER_NOTE);
    let description = match (&field.description, note) {
        (Some(text), Some(note)) => Some(format!("{text} {note}")),
        (Some(text), None) => Some(text.clone()),
        (None, Some(note)) => Some(note.to_owned()),
        (None, None) => None,
    };
    if let Some(description) = description {
        schema.insert("description".into(), description.into());
    }
    if let Presence::Default(value) = &field.presence {
        schema.insert("default".into(), value.clone());
    }
    Value::Object(schema)
}

/// Lets a field that may be absent also be `null`, which the validator reads as absent (many
/// clients send `null` for an optional parameter they do not set).
fn admit_null(schema: &mut Map<String, Value>) {
    if let Some(Value::String(ty)) = schema.get("type") {
        let types = json!([ty, "null"]);
        schema.insert("type".into(), types);
    }
    if let Some(Value::Array(members)) = schema.get_mut("enum") {
        members.push(Value::Null);
    }
}

fn type_schema(ty: &TypeModel, side: Side) -> Map<String, Value> {
    let mut schema = Map::new();
    let mut set = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            schema.insert(key.to_owned(), value);
        }
    };
    match ty {
        TypeModel::String {
            min_length,
            max_length,
            pattern,
        } => {
            set("type", Some(json!("string")));
            set("minLength", min_length.map(Value::from));
            set("maxLength", max_length.map(Value::from));
            set("pattern", pattern.clone().map(Value::from));
        }
        TypeModel::Integer {
            minimum, maximum, ..
        } => {
            set("type", Some(json!("integer")));
            set("minimum", Some(json!(minimum)));
            set("maximum", Some(json!(maximum)));
        }
        TypeModel::Number {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
        } => {
            set("type", Some(json!("number")));
            set("minimum", minimum.map(Value::from));
            set("maximum", maximum.map(Value::from));
            set("exclusiveMinimum", exclusive_minimum.map(Value::from));
            set("exclusiveMaximum", exclusive_maximum.map(Value::from));
        }
        TypeModel::Boolean => set("type", Some(json!("boolean"))),
        TypeModel::Enum { variants, .. } => {
            set("type", Some(json!("string")));
            let members = variants
                .iter()
                .map(|(value, _)| Value::from(value.as_str()));
            set("enum", Some(Value::Array(members.collect())));
        }
        TypeModel::Array {
            items,
            min_items,
            max_items,
        } => {
            set("type", Some(json!("array")));
            let mut item_schema = type_schema(items, side);
            if side == Side::Input && matches!(**items, TypeModel::Integer { .. }) {
                item_schema.insert("description".into(), STRICT_INTEGER_NOTE.into());
            }
            set("items", Some(Value::Object(item_schema)));
            set("minItems", min_items.map(Value::from));
            set("maxItems", max_items.map(Value::from));
        }
        TypeModel::Object { fields, .. } => return object_schema(fields, side),
    }
    schema
}
