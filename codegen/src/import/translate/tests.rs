//! The translation of JSON Schema into the argument grammar: every construct it says, and
//! every one it reports instead of guessing.

use serde_json::{Value, json};

use super::{Arg, translate};

/// One line per argument: `name type [optional] [default=..] key=value... items(...)
/// {fields}`, so a whole translation reads as one list.
fn render(args: &[Arg]) -> Vec<String> {
    args.iter().map(render_one).collect()
}

fn render_one(arg: &Arg) -> String {
    let mut line = format!("{} {}", arg.name, arg.ty);
    if !arg.required {
        line.push_str(" optional");
    }
    if let Some(default) = &arg.default {
        line.push_str(&format!(" default={default}"));
    }
    for (key, value) in &arg.constraints {
        line.push_str(&format!(" {key}={value}"));
    }
    if let Some(description) = &arg.description {
        line.push_str(&format!(" desc={description:?}"));
    }
    if let Some(items) = &arg.items {
        line.push_str(&format!(" items({})", render_one(items).trim_start()));
    }
    if !arg.fields.is_empty() {
        line.push_str(&format!(" {{{}}}", render(&arg.fields).join("; ")));
    }
    line
}

#[test]
fn every_supported_construct_translates_exactly() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "ignored",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z]+$", "description": "Text."},
            "limit": {"type": "integer", "minimum": 1.0, "exclusiveMaximum": 500, "default": 50},
            "score": {"type": "number", "minimum": 0.5, "maximum": 1},
            "follow": {"type": "boolean", "default": false},
            "level": {"type": "string", "enum": ["info", "warn"], "default": "info"},
            "mode": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 8, "description": "A tag."}, "minItems": 1, "maxItems": 4.0},
            "ports": {"type": "array", "items": {"type": "integer", "minimum": 1}, "default": [80, 443]},
            "kinds": {"type": "array", "items": {"enum": ["x", "y"]}},
            "window": {
                "type": "object",
                "additionalProperties": false,
                "properties": {"start": {"type": "integer"}, "unit": {"type": "string", "examples": ["s"]}},
                "required": ["start"]
            }
        },
        "required": ["query", "window"],
        "additionalProperties": false
    });
    let translation = translate(&schema).expect("supported");
    assert_eq!(
        render(&translation.args),
        [
            r#"query string min_length=1 max_length=64 pattern="^[a-z]+$" desc="Text.""#,
            "limit integer optional default=50 minimum=1 exclusive_maximum=500",
            "score number optional minimum=0.5 maximum=1",
            "follow boolean optional default=false",
            r#"level enum optional default="info" values=["info","warn"]"#,
            r#"mode enum optional values=["a","b"]"#,
            r#"tags array optional min_items=1 max_items=4 items(string optional max_length=8 desc="A tag.")"#,
            "ports array optional default=[80,443] items(integer optional minimum=1)",
            r#"kinds array optional items(enum optional values=["x","y"])"#,
            "window object {start integer; unit string optional}",
        ]
    );
    assert!(translation.notes.is_empty(), "{:?}", translation.notes);
}

#[test]
fn the_manifest_is_stricter_where_the_upstream_admits_null_and_says_so() {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": ["string", "null"]},
            "depth": {"type": "integer", "default": null},
            "name": {"type": "string", "default": "x"},
            "limit": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "default": null, "title": "Limit"}
        },
        "required": ["name"]
    });
    let translation = translate(&schema).expect("supported");
    assert_eq!(
        render(&translation.args),
        [
            "path string optional",
            "depth integer optional",
            "name string",
            "limit integer optional minimum=1",
        ]
    );
    assert_eq!(
        translation.notes,
        [
            "/properties/path: accepts null upstream; the manifest admits only string",
            "/properties/depth/default: a null default left out (the argument is optional)",
            "/properties/name: default left out (the argument is required, so it never applies)",
            "/properties/limit: accepts null upstream; the manifest admits only integer",
            "/properties/limit/default: a null default left out (the argument is optional)",
        ]
    );
}

#[test]
fn a_tool_without_arguments_translates_to_none() {
    for schema in [
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
    ] {
        assert_eq!(translate(&schema).expect("supported").args, []);
    }
}

/// Each construct the grammar cannot say, as the only property of a schema: what is
/// reported, and where.
#[test]
fn each_unsupported_construct_is_reported_with_its_place() {
    let cases: &[(Value, &str, &str)] = &[
        (
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            "/properties/p/oneOf",
            "`oneOf`",
        ),
        (
            json!({"anyOf": [{"type": "string"}]}),
            "/properties/p/anyOf",
            "`anyOf`",
        ),
        (
            json!({"type": "string", "allOf": [{"minLength": 1}]}),
            "/properties/p/allOf",
            "`allOf`",
        ),
        (json!({"$ref": "#/$defs/x"}), "/properties/p/$ref", "`$ref`"),
        (
            json!({"type": "string", "not": {"const": "x"}}),
            "/properties/p/not",
            "`not`",
        ),
        (json!({"const": "x"}), "/properties/p/const", "`const`"),
        (
            json!({"type": "string", "format": "uri"}),
            "/properties/p/format",
            "`format`",
        ),
        (
            json!({"type": "integer", "multipleOf": 5}),
            "/properties/p/multipleOf",
            "`multipleOf`",
        ),
        (
            json!({"type": ["string", "integer"]}),
            "/properties/p/type",
            "the type union [\"string\",\"integer\"]",
        ),
        (
            json!({"type": "integer", "enum": [1, 2]}),
            "/properties/p/enum",
            "an enum whose members are not all strings",
        ),
        (
            json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}),
            "/properties/p/items",
            "an array of objects",
        ),
        (
            json!({"type": "array", "items": {"type": "array", "items": {"type": "string"}}}),
            "/properties/p/items",
            "an array of arrays",
        ),
        (
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
            "/properties/p/uniqueItems",
            "`uniqueItems`",
        ),
        (
            json!({"type": "array"}),
            "/properties/p",
            "an array without `items` (any items)",
        ),
        (
            json!({"type": "array", "prefixItems": [{"type": "string"}]}),
            "/properties/p/prefixItems",
            "`prefixItems`",
        ),
        (
            json!({"type": "object"}),
            "/properties/p",
            "an object without `properties` (any fields)",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}),
            "/properties/p/additionalProperties",
            "`additionalProperties` other than false (extra fields)",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
            "/properties/p/additionalProperties",
            "`additionalProperties` other than false (extra fields)",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"^x": {}}}),
            "/properties/p/patternProperties",
            "`patternProperties`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x"}}),
            "/properties/p/default",
            "a default for an object",
        ),
        (
            json!({}),
            "/properties/p",
            "a schema without `type` (any value)",
        ),
        (
            json!(true),
            "/properties/p",
            "the schema `true` (not an object)",
        ),
        (
            json!({"type": "string", "pattern": "^(?!x)"}),
            "/properties/p/pattern",
            "a `pattern` the regex crate cannot compile (look-around or back-references)",
        ),
        (
            json!({"type": "integer", "minimum": 1.5}),
            "/properties/p/minimum",
            "`minimum: 1.5`",
        ),
        (
            json!({"type": "number", "exclusiveMinimum": true}),
            "/properties/p/exclusiveMinimum",
            "`exclusiveMinimum: true`",
        ),
        (
            json!({"type": "string", "default": {"a": 1}}),
            "/properties/p/default",
            "the default {\"a\":1}",
        ),
        (
            json!({"type": "null"}),
            "/properties/p/type",
            "`type: \"null\"`",
        ),
        (
            json!({"type": "string", "contentEncoding": "base64"}),
            "/properties/p/contentEncoding",
            "`contentEncoding`",
        ),
    ];
    for (property, at, construct) in cases {
        let schema = json!({"type": "object", "properties": {"p": property}});
        let reported = translate(&schema).expect_err(&format!("{property} is not supported"));
        assert!(
            reported
                .iter()
                .any(|u| u.at == *at && u.construct == *construct),
            "{property}: expected `{construct}` at {at}, got {reported:?}"
        );
    }
}

#[test]
fn the_root_and_every_construct_of_a_schema_are_reported_together() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "string", "format": "email"},
            "b": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
        },
        "required": ["a", "c"],
        "additionalProperties": true
    });
    let reported: Vec<String> = translate(&schema)
        .expect_err("unsupported")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        reported,
        [
            "`additionalProperties` other than false (extra fields) at /additionalProperties",
            "`required` names `c`, which `properties` does not define at /required",
            "`format` at /properties/a/format",
            "`anyOf` at /properties/b/anyOf",
        ]
    );
    let not_an_object = translate(&json!("string")).expect_err("unsupported");
    assert_eq!(
        not_an_object[0].to_string(),
        "a schema that is not an object (at the schema's root)"
    );
    let not_object_type = translate(&json!({"type": "string"})).expect_err("unsupported");
    assert_eq!(not_object_type[0].at, "");
}

#[test]
fn a_two_variant_one_of_without_types_is_reported_not_a_panic() {
    let schema = json!({
        "type": "object",
        "properties": {"target": {"oneOf": [{"$ref": "#/$defs/a"}, {"const": "none"}]}}
    });
    let reported = translate(&schema).expect_err("unsupported");
    assert_eq!(
        reported[0].to_string(),
        "`oneOf` at /properties/target/oneOf"
    );
}
