//! `import` against real stdio upstreams, tools/list read over the wire: a Python script that
//! lists the tools it is given, and the real server-everything (fetched by npx).

use std::path::PathBuf;

use harness_codegen::import::{ImportRequest, Outcome, import};
use harness_contract::definition_sha256;
use serde_json::{Value, json};

use super::{MANIFEST, every_tool, live_tools, outcome, read, scratch};

/// A stdio MCP server in Python (stdlib only): answers initialize and tools/list with the
/// tools in the JSON file it is given, and nothing else.
const PYTHON_SERVER: &str = include_str!("../../../../tests/data/tools_list_server.py");

/// A scratch manifest whose `hostile` upstream is [`PYTHON_SERVER`] listing `tools`.
fn python_upstream(tools: &Value) -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = scratch(MANIFEST);
    let tools_json = serde_json::to_string_pretty(tools).unwrap();
    std::fs::write(dir.path().join("tools.json"), &tools_json).unwrap();
    std::fs::write(dir.path().join("server.py"), PYTHON_SERVER).unwrap();
    let manifest = read(&path).replace(
        r#"args = ["server.py", "tools.json"]"#,
        &format!(
            "args = [{:?}, {:?}]",
            dir.path().join("server.py").display().to_string(),
            dir.path().join("tools.json").display().to_string()
        ),
    );
    std::fs::write(&path, manifest).unwrap();
    (dir, path)
}

#[test]
fn end_to_end_against_a_python_stdio_upstream() {
    let (dir, path) = python_upstream(&json!([live_tools()[0], live_tools()[1]]));
    let report = import(&every_tool(&path, "hostile")).unwrap();
    assert!(report.written, "{report}");
    // The pins are the digests of the tools/list JSON the server sent, read independently.
    let sent: Vec<Value> = serde_json::from_str(&read(&dir.path().join("tools.json"))).unwrap();
    let model = harness_codegen::load(&read(&path), "harness.toml", dir.path()).unwrap();
    for tool in &sent {
        let name = tool["name"].as_str().unwrap();
        let pinned = model.tools.iter().find(|t| t.name == name).unwrap();
        assert_eq!(
            pinned.upstream.as_ref().unwrap().pin_sha256,
            definition_sha256(tool),
            "{name}"
        );
    }
    let echo = model.tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.description, "Echoes the message.");
    // `pinned` is no longer offered by this upstream.
    assert_eq!(outcome(&report, "pinned"), &Outcome::Missing);
}

/// The real server-everything over stdio (npx fetches it once; harness-test-support's
/// `npx` feature fails the build where npx is missing): every tool it offers is added, or
/// reported with a reason.
#[test]
fn end_to_end_against_server_everything() {
    /// The version the gateway example pins.
    const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything@2026.8.31";
    let (_dir, path) = scratch(&format!(
        "{}\n[[upstreams]]\nname = \"everything\"\ntransport = \"stdio\"\ncommand = \"npx\"\nargs = [\"--yes\", \"{SERVER_EVERYTHING}\", \"stdio\"]\nenv = [\"HOME\", \"PATH\"]\ntimeout_ms = 60000\n",
        MANIFEST
    ));
    // Least privilege, as `import everything` runs: the read-only tools, and why not the rest.
    let report = import(&ImportRequest::new(&path, "everything"))
        .unwrap_or_else(|error| panic!("server-everything over npx: {error}"));
    println!("{report}");
    assert!(report.offered > 5, "{report}");
    assert!(
        matches!(outcome(&report, "echo"), Outcome::Added { .. }),
        "{report}"
    );
    let left_out = report.names(|outcome| matches!(outcome, Outcome::LeftOut { .. }));
    assert_eq!(
        left_out,
        [
            "gzip-file-as-resource",
            "toggle-simulated-logging",
            "toggle-subscriber-updates",
            "simulate-research-query"
        ],
        "{report}"
    );
    assert!(!report.needs_attention(), "{report}");
    assert!(
        report
            .to_string()
            .contains("- toggle-simulated-logging: left out: a write tool (readOnlyHint false), not destructive by its hints"),
        "{report}"
    );
    harness_codegen::load(&read(&path), "harness.toml", path.parent().unwrap()).unwrap();
    let again = import(&ImportRequest::new(&path, "everything")).unwrap();
    assert!(!again.written, "a second import changes nothing: {again}");
}
