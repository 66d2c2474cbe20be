//! The server this package builds from the root harness.toml, checked only in ways that hold
//! for any manifest: the root manifest is yours to edit, and an edit shows up as snapshot
//! diffs (tests/it/codegen_snapshots.rs), never as a failure here. The tests of the incident
//! monitor's own behaviour run against its frozen copy in examples/incident-monitor.

use std::path::Path;

use harness_codegen::{EmitOptions, generate};
use harness_test_support::{scratch_file, stdio_client};
use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_mcp-agent-harness");

fn manifest_source() -> String {
    std::fs::read_to_string("harness.toml").expect("harness.toml is readable")
}

/// The `[[tools]]` names in the order the manifest declares them.
fn declared_tools() -> Vec<String> {
    let manifest: toml::Table = manifest_source().parse().expect("harness.toml is TOML");
    manifest
        .get("tools")
        .and_then(toml::Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|tool| tool["name"].as_str().expect("a tool name").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The names in `published` that the manifest declares, in the order they are published
/// (built-in tools left out, wherever they stand): equal to `declared` when every declared
/// tool is published in the manifest's order.
fn manifest_tools_in(declared: &[String], published: &[&str]) -> Vec<String> {
    published
        .iter()
        .filter(|name| declared.iter().any(|declared| declared == *name))
        .map(|name| (*name).to_owned())
        .collect()
}

#[test]
fn the_order_check_sees_a_swap_and_ignores_built_in_tools() {
    let declared = ["a".to_owned(), "b".to_owned()];
    assert_eq!(
        manifest_tools_in(&declared, &["a", "health", "b"]),
        declared
    );
    assert_ne!(manifest_tools_in(&declared, &["b", "a"]), declared);
}

/// `tools` prints what `tools/list` answers: the manifest's tools, in its order, each with an
/// object input schema; and a real MCP client over stdio sees exactly that list.
#[tokio::test]
async fn the_server_publishes_every_tool_of_its_manifest() {
    let output = std::process::Command::new(SERVER)
        .arg("tools")
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let printed = printed["tools"].as_array().expect("a tools array").clone();
    let names: Vec<&str> = printed
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name"))
        .collect();
    let declared = declared_tools();
    for name in &declared {
        assert!(names.contains(&name.as_str()), "`{name}` is not published");
    }
    assert_eq!(
        manifest_tools_in(&declared, &names),
        declared,
        "published out of the manifest's order"
    );
    for tool in &printed {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }

    let audit = scratch_file("server-stdio", "audit.jsonl");
    let client = stdio_client(SERVER, &audit).await;
    let listed = client.list_all_tools().await.expect("tools/list");
    client.cancel().await.expect("clean shutdown");
    let listed: Vec<Value> = listed
        .iter()
        .map(|tool| serde_json::to_value(tool).expect("a tool serializes"))
        .collect();
    assert_eq!(listed, printed, "`tools` and tools/list disagree");
}

/// The generated Compose file follows the Compose Specification's JSON Schema.
#[test]
fn its_compose_file_follows_the_compose_specification() {
    let artifacts = generate(&manifest_source(), Path::new("."), &EmitOptions::default())
        .expect("harness.toml is valid");
    // The default harness.toml describes a task ([task], [environment]), so it has a bundle;
    // returning without one passed having checked nothing. (A manifest of yours that is not a
    // task has no bundle: this test does not apply to it.)
    let yaml = artifacts
        .get("bundle/environment/docker-compose.yaml")
        .expect("the default harness.toml generates a bundle with its compose file");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/data/compose-spec.json").unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the Compose schema compiles");
    let compose: Value = serde_yaml_ng::from_str(yaml).expect("valid YAML");
    let errors: Vec<String> = validator
        .iter_errors(&compose)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}
