//! `input_schema = "schemas/<tool>.json"`: an upstream tool's JSON Schema kept whole, where the
//! argument grammar cannot say it (compositions, references, pattern properties...), enforced
//! by a JSON Schema 2020-12 validator at run time.
//!
//! It is made strict here, as the grammar's own schemas are: every object scope that does
//! not say what to do with undeclared properties gets `unevaluatedProperties: false` (only an
//! explicit `additionalProperties` or `unevaluatedProperties` admits them).
//! `unevaluatedProperties` rather than `additionalProperties`, because it sees the properties
//! that `allOf`/`anyOf`/`oneOf`/`if` branches evaluate: the branches of a composition are
//! left alone (closing each branch would refuse its siblings' properties) and the schema
//! around them is closed instead. A `$defs` entry is closed as a scope of its own.
//!
//! What falls back to a build error instead: draft-04/06 dialects, draft-07 tuple `items` and
//! `additionalItems`, `dependencies` (each has a 2020-12 spelling the error names), and any
//! `$ref` that is not inside the document (nothing is fetched at run time). The schema is
//! walked by its grammar, so a property that happens to be named `dependencies` is fine.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest_path::ManifestPath;
use crate::model::input_files::read_text;

/// The JSON Schema dialect every inputSchema declares.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Dialects a pinned schema may declare (read as 2020-12, which they are compatible with
/// once the constructs above are refused).
const ACCEPTED_DIALECTS: &[&str] = &[
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
];

/// Reads the pinned schema of every tool that names one into its model (`models` are the
/// tools that passed, matched by name).
pub(crate) fn attach(
    tools: &[crate::manifest::Tool],
    models: &mut [crate::model::tools::ToolModel],
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) {
    for (index, tool) in tools.iter().enumerate() {
        let Some(file) = &tool.input_schema else {
            continue;
        };
        let path = ManifestPath::root().key("tools").index(index);
        if tool.upstream.is_none() {
            errors.report(
                Diagnostic::key(
                    path.key("input_schema"),
                    "`input_schema` without `upstream`",
                )
                .label("only for a tool an upstream serves")
                .help("a local tool's arguments are written in [[tools.arguments]]"),
            );
            continue;
        }
        if !tool.arguments.is_empty() {
            errors.report(
                Diagnostic::key(
                    path.key("input_schema"),
                    "both `input_schema` and `arguments`",
                )
                .label("one schema only")
                .help("keep the pinned schema file, or the arguments, not both"),
            );
            continue;
        }
        let schema = pinned_schema(file, &path.key("input_schema"), base_dir, inputs, errors);
        if let (Some(schema), Some(model)) = (
            schema,
            models.iter_mut().find(|model| model.name == tool.name),
        ) {
            model.pinned_schema = Some(schema);
        }
    }
}

/// The strict schema of `file`, or `None` with every problem reported at `path`.
fn pinned_schema(
    file: &str,
    path: &ManifestPath,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<Value> {
    let text = read_text(base_dir, file, path, inputs, errors)?;
    let mut schema: Value = match serde_json::from_str(&text) {
        Ok(schema) => schema,
        Err(error) => {
            errors.report(
                Diagnostic::value(path.clone(), format!("{file} is not JSON: {error}"))
                    .label("not a JSON Schema")
                    .help("save the upstream's inputSchema as it is, as JSON"),
            );
            return None;
        }
    };
    let mut problems = Vec::new();
    let top_is_object = schema.get("type").and_then(Value::as_str) == Some("object");
    if !top_is_object {
        problems.push(
            "the top level must be `\"type\": \"object\"` (tool arguments are an object)"
                .to_owned(),
        );
    }
    if let Some(dialect) = schema.get("$schema").and_then(Value::as_str)
        && !ACCEPTED_DIALECTS.contains(&dialect)
    {
        problems.push(format!(
            "dialect {dialect} is not read here: rewrite it as 2020-12"
        ));
    }
    refuse_unsupported(&schema, "#", &mut problems);
    if !problems.is_empty() {
        for problem in problems {
            errors.report(
                Diagnostic::value(path.clone(), format!("{file}: {problem}"))
                    .label("cannot be enforced as pinned")
                    .help("edit the schema file into 2020-12 form; the pin stays the upstream's"),
            );
        }
        return None;
    }
    if let Value::Object(top) = &mut schema {
        top.insert("$schema".into(), DIALECT.into());
    }
    close(&mut schema, true);
    Some(schema)
}

/// Collects every construct that cannot be enforced as 2020-12, with where it is. The walk
/// follows the grammar: it goes into a keyword's subschemas only, so a property *named*
/// `dependencies` or `items` is a name, not the keyword.
fn refuse_unsupported(node: &Value, at: &str, problems: &mut Vec<String>) {
    let Value::Object(map) = node else {
        return;
    };
    if map.get("items").is_some_and(Value::is_array) {
        problems.push(format!(
            "{at}/items is a draft-07 tuple: write it as prefixItems"
        ));
    }
    if map.contains_key("additionalItems") {
        problems.push(format!(
            "{at}/additionalItems is draft-07: write items after prefixItems"
        ));
    }
    if map.contains_key("dependencies") {
        problems.push(format!(
            "{at}/dependencies is draft-07: write dependentRequired or dependentSchemas"
        ));
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && !reference.starts_with('#')
    {
        problems.push(format!(
            "{at}/$ref `{reference}` points outside the file: inline it under $defs"
        ));
    }
    for (keyword, child) in map {
        let at = format!("{at}/{keyword}");
        match (holds(keyword), child) {
            (Holds::SchemasByName, Value::Object(children)) => {
                for (name, child) in children {
                    refuse_unsupported(child, &format!("{at}/{name}"), problems);
                }
            }
            (Holds::Schemas | Holds::SchemaOrSchemas, Value::Array(children)) => {
                for (index, child) in children.iter().enumerate() {
                    refuse_unsupported(child, &format!("{at}/{index}"), problems);
                }
            }
            (Holds::Schema | Holds::SchemaOrSchemas, child) => {
                refuse_unsupported(child, &at, problems);
            }
            _ => {}
        }
    }
}

/// What a JSON Schema keyword's value holds, as far as a walk over the schemas in a schema
/// goes: a schema walked by this grammar treats a property named `dependencies` as a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// An object of schemas, by name (`properties`, `$defs`...).
    SchemasByName,
    /// An array of schemas (`allOf`, `prefixItems`...).
    Schemas,
    /// One schema (`not`, `additionalProperties`...).
    Schema,
    /// `items`: one schema, or in draft-07 an array of them (a tuple).
    SchemaOrSchemas,
    /// Data (`enum`, `const`, `default`, `required`...) or an annotation: no schema.
    Nothing,
}

/// What `keyword`'s value holds.
pub(crate) fn holds(keyword: &str) -> Holds {
    match keyword {
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
            Holds::SchemasByName
        }
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Holds::Schemas,
        "items" => Holds::SchemaOrSchemas,
        "contains"
        | "additionalProperties"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "propertyNames"
        | "not"
        | "if"
        | "then"
        | "else" => Holds::Schema,
        _ => Holds::Nothing,
    }
}

/// Whether `schema` describes objects.
fn describes_objects(schema: &Map<String, Value>) -> bool {
    let typed = match schema.get("type") {
        Some(Value::String(ty)) => ty == "object",
        Some(Value::Array(types)) => types.iter().any(|ty| ty == "object"),
        _ => false,
    };
    typed
        || ["properties", "patternProperties", "required"]
            .iter()
            .any(|key| schema.contains_key(*key))
}

/// Closes every object scope under `node`; `scope` says whether `node` starts one (not a
/// branch of a composition, which its parent's `unevaluatedProperties` covers).
fn close(node: &mut Value, scope: bool) {
    let Value::Object(schema) = node else {
        return;
    };
    if scope
        && describes_objects(schema)
        && !schema.contains_key("additionalProperties")
        && !schema.contains_key("unevaluatedProperties")
    {
        schema.insert("unevaluatedProperties".into(), false.into());
    }
    for (key, child) in schema.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Value::Object(children) = child {
                    children.values_mut().for_each(|c| close(c, true));
                }
            }
            "prefixItems" => {
                if let Value::Array(children) = child {
                    children.iter_mut().for_each(|c| close(c, true));
                }
            }
            "items"
            | "contains"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "propertyNames" => close(child, true),
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(children) = child {
                    children.iter_mut().for_each(|c| close(c, false));
                }
            }
            "not" | "if" | "then" | "else" => close(child, false),
            "dependentSchemas" => {
                if let Value::Object(children) = child {
                    children.values_mut().for_each(|c| close(c, false));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn closed(mut schema: Value) -> Value {
        close(&mut schema, true);
        schema
    }

    #[test]
    fn object_scopes_are_closed_and_composition_branches_left_to_their_parent() {
        let schema = closed(json!({
            "type": "object",
            "properties": {
                "filter": {"type": "object", "properties": {"tag": {"type": "string"}}},
                "open": {"type": "object", "additionalProperties": true},
                "rows": {"type": "array", "items": {"type": "object", "properties": {"id": {}}}}
            },
            "anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}],
            "$defs": {"point": {"type": "object", "properties": {"x": {}}}}
        }));
        assert_eq!(schema["unevaluatedProperties"], false);
        assert_eq!(
            schema["properties"]["filter"]["unevaluatedProperties"],
            false
        );
        assert!(
            schema["properties"]["open"]
                .get("unevaluatedProperties")
                .is_none()
        );
        assert_eq!(
            schema["properties"]["rows"]["items"]["unevaluatedProperties"],
            false
        );
        assert!(schema["anyOf"][0].get("unevaluatedProperties").is_none());
        assert_eq!(schema["$defs"]["point"]["unevaluatedProperties"], false);
    }

    #[test]
    fn draft_07_only_constructs_and_outside_references_are_named() {
        let mut problems = Vec::new();
        refuse_unsupported(
            &json!({
                "properties": {
                    "pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": false},
                    "remote": {"$ref": "https://example.com/schema.json"},
                    "local": {"$ref": "#/$defs/x"},
                    "data": {"enum": [{"items": [1]}]}
                },
                "dependencies": {"a": ["b"]}
            }),
            "#",
            &mut problems,
        );
        assert_eq!(problems.len(), 4, "{problems:#?}");
        assert!(
            problems
                .iter()
                .any(|p| p.contains("#/properties/pair/items"))
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("https://example.com/schema.json"))
        );
    }

    #[test]
    fn properties_named_like_draft_07_keywords_are_names_not_keywords() {
        let mut problems = Vec::new();
        refuse_unsupported(
            &json!({
                "type": "object",
                "properties": {
                    "dependencies": {"type": "array", "items": {"type": "string"}},
                    "additionalItems": {"type": "integer"},
                    "items": {"type": "string"}
                },
                "required": ["dependencies", "items"],
                "$defs": {"dependencies": {"type": "string"}}
            }),
            "#",
            &mut problems,
        );
        assert_eq!(problems, Vec::<String>::new());
    }

    #[test]
    fn draft_07_constructs_are_found_under_every_subschema_keyword() {
        let nested = json!({"dependencies": {"a": ["b"]}});
        for (keyword, holder) in [
            ("not", nested.clone()),
            ("if", nested.clone()),
            ("then", nested.clone()),
            ("else", nested.clone()),
            ("contains", nested.clone()),
            ("propertyNames", nested.clone()),
            ("unevaluatedItems", nested.clone()),
            ("additionalProperties", nested.clone()),
            ("allOf", json!([nested.clone()])),
            ("prefixItems", json!([nested.clone()])),
            ("patternProperties", json!({"^x": nested.clone()})),
            ("dependentSchemas", json!({"a": nested.clone()})),
        ] {
            let mut problems = Vec::new();
            refuse_unsupported(&json!({ keyword: holder }), "#", &mut problems);
            assert_eq!(problems.len(), 1, "under {keyword}: {problems:#?}");
            assert!(
                problems[0].starts_with(&format!("#/{keyword}/")),
                "{problems:?}"
            );
        }
    }
}
