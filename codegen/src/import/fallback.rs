//! The fallback for an inputSchema the argument grammar cannot say: the schema kept whole in
//! a file beside the manifest (`schemas/<tool>.json`, named by `input_schema`), which the
//! generated server enforces with a JSON Schema 2020-12 validator (`model::pinned_schema`).
//!
//! This file makes that file's text from the live schema, so that the build accepts it and
//! enforces what the upstream meant: draft-07 spellings the build refuses are rewritten to
//! their exact 2020-12 equivalents (tuple `items` as `prefixItems`, `additionalItems` as
//! `items`, `dependencies` as `dependentRequired`/`dependentSchemas`), each rewrite said in
//! the report; what has no exact equivalent (a `$ref` outside the schema, a dialect other
//! than draft-07, 2019-09 or 2020-12, a draft-07 spelling in a schema that declares a later
//! dialect) is refused with its place. Every `title` and `description` goes through the
//! same audit as the grammar's (the server publishes this schema to its clients). Keys are
//! sorted and the JSON pretty-printed with a trailing newline, so the same schema always
//! makes the same bytes and a re-import compares files by content.

use serde_json::{Map, Value};

use crate::import::diff::sorted;
use crate::import::poisoning::{DescriptionAudit, audit};
use crate::model::DIALECT;
use crate::model::pinned_schema::{Holds, holds};

/// Where import keeps the inputSchema of the manifest tool `name`, relative to the
/// manifest's directory.
pub(crate) fn file_for(name: &str) -> String {
    format!("schemas/{name}.json")
}

/// The text of a schema file, and what import changed to make it.
#[derive(Debug, Clone)]
pub(crate) struct SchemaText {
    /// Pretty JSON, keys sorted, with a trailing newline.
    pub(crate) text: String,
    /// Each draft-07 spelling rewritten as 2020-12, with its place.
    pub(crate) rewritten: Vec<String>,
    /// The titles and descriptions the audit changed or warns about, by place
    /// (`inputSchema/properties/path/description`).
    pub(crate) audits: Vec<(String, DescriptionAudit)>,
}

/// The schema file's text for `schema` (a live inputSchema), or why it cannot be kept whole:
/// each problem with its place.
pub(crate) fn schema_text(schema: &Value) -> Result<SchemaText, Vec<String>> {
    let mut schema = schema.clone();
    let Some(root) = schema.as_object() else {
        return Err(vec![
            "the inputSchema is not a JSON object (tool arguments are an object)".to_owned(),
        ]);
    };
    let mut refused = Vec::new();
    if root.get("type").and_then(Value::as_str) != Some("object") {
        refused.push(
            "/type: the top level must be `\"type\": \"object\"` (tool arguments are an object)"
                .to_owned(),
        );
    }
    let dialect = match root.get("$schema") {
        None => Dialect::Undeclared,
        Some(Value::String(dialect)) => match dialect.as_str() {
            "http://json-schema.org/draft-07/schema#"
            | "http://json-schema.org/draft-07/schema" => Dialect::Draft07,
            "https://json-schema.org/draft/2019-09/schema" => Dialect::Draft201909,
            DIALECT => Dialect::Draft202012,
            other => {
                refused.push(format!(
                    "/$schema: dialect {other} has no exact rewrite here (draft-07, 2019-09 and 2020-12 are read)"
                ));
                Dialect::Draft202012
            }
        },
        Some(other) => {
            refused.push(format!("/$schema: {other} is not a dialect URI"));
            Dialect::Draft202012
        }
    };
    let mut walk = Walk {
        dialect,
        rewritten: Vec::new(),
        refused,
        audits: Vec::new(),
    };
    walk.schema(&mut schema, "");
    if !walk.refused.is_empty() {
        return Err(walk.refused);
    }
    if !walk.rewritten.is_empty()
        && let Value::Object(root) = &mut schema
    {
        root.insert("$schema".to_owned(), DIALECT.into());
        walk.rewritten.push(format!(
            "/$schema: declared as {DIALECT}, the spelling it now uses"
        ));
    }
    let mut text = serde_json::to_string_pretty(&sorted(schema)).expect("JSON serializes");
    text.push('\n');
    Ok(SchemaText {
        text,
        rewritten: walk.rewritten,
        audits: walk.audits,
    })
}

/// The dialect a schema declares, which decides what its draft-07 spellings mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// No `$schema`: a draft-07-only spelling is read as draft-07 (the report says so).
    Undeclared,
    /// draft-07: tuple `items`, `additionalItems` and `dependencies` are its own.
    Draft07,
    /// 2019-09: tuple `items` and `additionalItems` still are; `dependencies` is not a keyword.
    Draft201909,
    /// 2020-12: none of them is.
    Draft202012,
}

impl Dialect {
    /// Whether tuple `items` and `additionalItems` mean what draft-07 says.
    fn has_tuple_items(self) -> bool {
        self != Self::Draft202012
    }

    /// Whether `dependencies` means what draft-07 says.
    fn has_dependencies(self) -> bool {
        matches!(self, Self::Undeclared | Self::Draft07)
    }

    /// What the report adds to a rewrite: how the spelling was read.
    fn reading(self) -> &'static str {
        match self {
            Self::Undeclared => " (read as draft-07: the schema declares no $schema)",
            Self::Draft07 | Self::Draft201909 | Self::Draft202012 => "",
        }
    }
}

struct Walk {
    dialect: Dialect,
    rewritten: Vec<String>,
    refused: Vec<String>,
    audits: Vec<(String, DescriptionAudit)>,
}

impl Walk {
    /// Rewrites, refuses and audits the schema `node` at the JSON pointer `at`, then the
    /// schemas under it (only schema places: a property named `items` is not a keyword).
    fn schema(&mut self, node: &mut Value, at: &str) {
        let Value::Object(map) = node else {
            return;
        };
        self.tuple_items(map, at);
        self.dependencies(map, at);
        if let Some(reference) = map.get("$ref").and_then(Value::as_str)
            && !reference.starts_with('#')
        {
            self.refused.push(format!(
                "{at}/$ref: `{reference}` points outside the schema, and nothing is fetched at run time (inline it under $defs by hand)"
            ));
        }
        self.descriptions(map, at);
        for (key, child) in map.iter_mut() {
            let here = pointer(at, key);
            match (holds(key), child) {
                (Holds::SchemasByName, Value::Object(children)) => {
                    for (name, child) in children.iter_mut() {
                        self.schema(child, &pointer(&here, name));
                    }
                }
                (Holds::Schemas, Value::Array(children)) => {
                    for (index, child) in children.iter_mut().enumerate() {
                        self.schema(child, &pointer(&here, &index.to_string()));
                    }
                }
                // A tuple `items` is `prefixItems` by now.
                (Holds::Schema | Holds::SchemaOrSchemas, child) => self.schema(child, &here),
                _ => {}
            }
        }
    }

    /// Tuple `items: [..]` as `prefixItems`, `additionalItems` as `items` after it, and an
    /// `additionalItems` without a tuple (which applies to nothing) left out.
    fn tuple_items(&mut self, map: &mut Map<String, Value>, at: &str) {
        let tuple = map.get("items").is_some_and(Value::is_array);
        if !tuple && !map.contains_key("additionalItems") {
            return;
        }
        if !self.dialect.has_tuple_items() {
            let key = if tuple { "items" } else { "additionalItems" };
            self.refused.push(format!(
                "{at}/{key}: a draft-07 spelling in a schema that declares 2020-12, where it does not mean the same: rewrite it by hand"
            ));
            return;
        }
        let reading = self.dialect.reading();
        if !tuple {
            map.remove("additionalItems");
            self.rewritten.push(format!(
                "{at}/additionalItems: left out, as without a tuple `items` it applies to nothing{reading}"
            ));
            return;
        }
        if map.contains_key("prefixItems") {
            self.refused.push(format!(
                "{at}/items: a draft-07 tuple beside `prefixItems`, which cannot be merged exactly"
            ));
            return;
        }
        let items = map.remove("items").expect("checked above");
        map.insert("prefixItems".to_owned(), items);
        self.rewritten.push(format!(
            "{at}/items: the tuple written as prefixItems{reading}"
        ));
        if let Some(rest) = map.remove("additionalItems") {
            map.insert("items".to_owned(), rest);
            self.rewritten.push(format!(
                "{at}/additionalItems: written as items (after prefixItems){reading}"
            ));
        }
    }

    /// `dependencies` as `dependentRequired` (property lists) and `dependentSchemas`
    /// (schemas).
    fn dependencies(&mut self, map: &mut Map<String, Value>, at: &str) {
        let Some(dependencies) = map.get("dependencies") else {
            return;
        };
        if !self.dialect.has_dependencies() {
            self.refused.push(format!(
                "{at}/dependencies: a draft-07 keyword in a schema that declares a later dialect, where it means nothing: rewrite it by hand"
            ));
            return;
        }
        let Value::Object(dependencies) = dependencies else {
            self.refused
                .push(format!("{at}/dependencies: not an object"));
            return;
        };
        let before = self.refused.len();
        let mut required = Map::new();
        let mut schemas = Map::new();
        for (name, dependency) in dependencies {
            let here = pointer(&pointer(at, "dependencies"), name);
            let (target, key) = match dependency {
                Value::Array(names) if names.iter().all(Value::is_string) => {
                    (&mut required, "dependentRequired")
                }
                Value::Object(_) | Value::Bool(_) => (&mut schemas, "dependentSchemas"),
                _ => {
                    self.refused.push(format!(
                        "{here}: neither a list of property names nor a schema"
                    ));
                    continue;
                }
            };
            if map
                .get(key)
                .and_then(Value::as_object)
                .is_some_and(|existing| existing.contains_key(name))
            {
                self.refused.push(format!(
                    "{here}: `{key}` already has `{name}`, which cannot be merged exactly"
                ));
                continue;
            }
            target.insert(name.clone(), dependency.clone());
        }
        for key in ["dependentRequired", "dependentSchemas"] {
            if map.get(key).is_some_and(|existing| !existing.is_object()) {
                self.refused.push(format!("{at}/{key}: not an object"));
            }
        }
        if self.refused.len() > before {
            return;
        }
        map.remove("dependencies");
        let reading = self.dialect.reading();
        for (key, entries) in [
            ("dependentRequired", required),
            ("dependentSchemas", schemas),
        ] {
            if entries.is_empty() {
                continue;
            }
            let names: Vec<&str> = entries.keys().map(String::as_str).collect();
            self.rewritten.push(format!(
                "{at}/dependencies: {} written as {key}{reading}",
                names.join(", ")
            ));
            let existing = map
                .entry(key)
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .expect("checked above");
            existing.extend(entries);
        }
    }

    /// Audits the schema's `title` and `description`: a changed one is replaced by its
    /// cleaned text (left out when nothing is left).
    fn descriptions(&mut self, map: &mut Map<String, Value>, at: &str) {
        for key in ["title", "description"] {
            let Some(Value::String(text)) = map.get(key) else {
                continue;
            };
            let audit = audit(text);
            if audit.is_clean() {
                continue;
            }
            if audit.cleaned.is_empty() {
                map.remove(key);
            } else {
                map.insert(key.to_owned(), audit.cleaned.clone().into());
            }
            self.audits
                .push((format!("inputSchema{}", pointer(at, key)), audit));
        }
    }
}

/// `at` with `key` appended as a JSON pointer token.
fn pointer(at: &str, key: &str) -> String {
    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn written(schema: Value) -> Value {
        serde_json::from_str(&schema_text(&schema).unwrap().text).unwrap()
    }

    #[test]
    fn draft_07_spellings_become_their_2020_12_equivalents_in_schema_places_only() {
        let schema = written(json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": false},
                "list": {"type": "array", "items": {"type": "string"}, "additionalItems": false},
                "items": {"type": "array", "items": {"type": "integer"}},
                "dependencies": {"type": "object"}
            },
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}}
        }));
        assert_eq!(
            schema,
            json!({
                "$schema": DIALECT,
                "type": "object",
                "properties": {
                    "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": false},
                    "list": {"type": "array", "items": {"type": "string"}},
                    "items": {"type": "array", "items": {"type": "integer"}},
                    "dependencies": {"type": "object"}
                },
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"c": {"required": ["d"]}}
            })
        );
    }

    #[test]
    fn what_has_no_exact_rewrite_is_refused_with_its_place() {
        let refused = schema_text(&json!({
            "$schema": DIALECT,
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}]},
                "remote": {"$ref": "https://example.com/schema.json"},
                "local": {"$ref": "#/$defs/x"}
            },
            "dependencies": {"a": ["b"]}
        }))
        .unwrap_err();
        assert_eq!(refused.len(), 3, "{refused:#?}");
        for place in [
            "/dependencies: ",
            "/properties/pair/items: ",
            "/properties/remote/$ref: ",
        ] {
            assert!(
                refused.iter().any(|p| p.starts_with(place)),
                "{place}: {refused:#?}"
            );
        }
        assert!(schema_text(&json!({"properties": {}})).is_err());
    }

    #[test]
    fn the_text_is_sorted_pretty_and_ends_with_a_newline() {
        let text = schema_text(&json!({"type": "object", "properties": {"b": {}, "a": {}}}))
            .unwrap()
            .text;
        assert_eq!(
            text,
            "{\n  \"properties\": {\n    \"a\": {},\n    \"b\": {}\n  },\n  \"type\": \"object\"\n}\n"
        );
    }
}
