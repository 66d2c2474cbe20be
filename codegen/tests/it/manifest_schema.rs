//! harness.schema.json (what editors use to complete and check harness.toml) is generated
//! from the manifest types, must stay current, and must agree with the real parser.

use std::path::Path;

use serde_json::Value;

fn workspace_file(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

fn schema_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(workspace_file("harness.schema.json")).expect("committed");
    let schema: Value = serde_json::from_str(&text).expect("JSON");
    jsonschema::validator_for(&schema).expect("a valid JSON Schema")
}

fn toml_as_json(relative: &str) -> Value {
    let text = std::fs::read_to_string(workspace_file(relative)).expect("readable");
    let value: toml::Value = toml::from_str(&text).expect("valid TOML");
    serde_json::to_value(value).expect("TOML without dates converts to JSON")
}

#[test]
fn committed_schema_is_current() {
    let committed =
        std::fs::read_to_string(workspace_file("harness.schema.json")).expect("committed");
    assert!(
        committed == harness_codegen::manifest_json_schema(),
        "harness.schema.json is stale: run `cargo run -p harness-codegen-cli -- schema > harness.schema.json`"
    );
}

#[test]
fn schema_accepts_every_valid_manifest() {
    let validator = schema_validator();
    let mut manifests = vec!["harness.toml".to_owned()];
    for entry in std::fs::read_dir(workspace_file("tests/fixtures/good")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        manifests.push(format!("tests/fixtures/good/{name}"));
    }
    for manifest in manifests {
        let instance = toml_as_json(&manifest);
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{manifest}: {errors:#?}");
    }
}

#[test]
fn schema_refuses_unknown_keys_like_the_parser() {
    let validator = schema_validator();
    let instance = toml_as_json("tests/fixtures/bad/unknown_key.toml");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    for key in ["colour", "read_only", "maximun"] {
        assert!(
            errors.iter().any(|error| error.contains(key)),
            "{key} not refused: {errors:#?}"
        );
    }
}
