//! A task bundle whose server speaks stdio: no sidecar service, the binary in main's image,
//! started by the agent's MCP client from the task's stdio entry (so it runs as the agent's
//! user, its audit directory the agent's), the audit collected from main, and a ledger that
//! says where the server ran.

use std::path::Path;

use harness_codegen::{EmitOptions, generate};
use serde_json::Value as Json;
use serde_yaml_ng::Value;

const MANIFEST: &str = r#"
[server]
name = "stdio-monitor"
version = "1"

[transport]
kind = "stdio"

[audit]
path = "/var/log/monitor-mcp/audit.jsonl"

[task]
name = "t/stdio"
instruction = "Diagnose incident 42."

[environment]
workdir = "/workspace"
network_mode = "no-network"

[[environment.mcp_servers]]
name = "monitoring"
transport = "stdio"
command = "/usr/local/bin/monitor-mcp-stdio"

[agent]
user = 1000

[verifier]
environment_mode = "separate"

[[verifier.checks]]
kind = "call_budget"
max_calls = 5

[[artifacts]]
source = "/var/log/monitor-mcp/audit.jsonl"
destination = "evidence/mcp-audit.jsonl"

[compose.main]
base_image = "debian:bookworm-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
uid = 1000
"#;

#[test]
fn the_server_is_in_main_and_started_by_the_agents_client() {
    let artifacts = generate(MANIFEST, Path::new("."), &EmitOptions::default()).expect("valid");
    let compose: Value =
        serde_yaml_ng::from_str(&artifacts["bundle/environment/docker-compose.yaml"]).unwrap();
    let services: Vec<&str> = compose["services"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|key| key.as_str().unwrap())
        .collect();
    assert_eq!(services, ["main"], "no sidecar service");
    assert!(compose["services"]["main"]["depends_on"].is_null());
    assert!(
        !artifacts
            .keys()
            .any(|path| path.starts_with("bundle/environment/monitor-mcp/")),
        "no sidecar build context: {:?}",
        artifacts.keys().collect::<Vec<_>>()
    );

    let dockerfile = &artifacts["bundle/environment/Dockerfile"];
    let line = |wanted: &str| {
        dockerfile
            .lines()
            .position(|line| line.trim_start() == wanted)
            .unwrap_or_else(|| panic!("no `{wanted}` in:\n{dockerfile}"))
    };
    // The binary and an audit directory the agent's user (who runs the server) can write,
    // both in place before the agent's user takes over.
    assert!(line("COPY monitor-mcp /usr/local/bin/monitor-mcp") < line("USER 1000"));
    assert!(line("&& install -d -o 1000 -g 1000 /var/log/monitor-mcp") < line("USER 1000"));
    // Its stdio launcher, which the agent's entry names: the binary under a name that serves
    // stdio with the manifest's audit path, without arguments.
    assert!(
        line("&& ln -s /usr/local/bin/monitor-mcp /usr/local/bin/monitor-mcp-stdio \\")
            < line("USER 1000")
    );

    let task: toml::Value = toml::from_str(&artifacts["bundle/task.toml"]).unwrap();
    let server = &task["environment"]["mcp_servers"][0];
    assert_eq!(server["transport"].as_str(), Some("stdio"));
    assert_eq!(
        server["command"].as_str(),
        Some("/usr/local/bin/monitor-mcp-stdio")
    );
    assert!(server.get("args").is_none(), "no arguments: {server:?}");

    let ledger: Json = serde_json::from_str(&artifacts["bundle/ledger.json"]).unwrap();
    assert_eq!(ledger["server"]["transport"], "stdio");
    assert_eq!(
        ledger["server"]["runs_in"],
        "main, as the agent's user (stdio)"
    );
    assert!(ledger["server"]["bind"].is_null());
    assert!(ledger["images"]["sidecar"].is_null());
}

#[test]
fn an_http_bundle_keeps_its_sidecar() {
    let http = MANIFEST
        .replace(
            "kind = \"stdio\"",
            "kind = \"streamable-http\"\nbind = \"127.0.0.1:8765\"",
        )
        .replace(
            "transport = \"stdio\"\ncommand = \"/usr/local/bin/monitor-mcp-stdio\"",
            "transport = \"streamable-http\"\nurl = \"http://127.0.0.1:8765/mcp\"",
        )
        .replace(
            "destination = \"evidence/mcp-audit.jsonl\"",
            "destination = \"evidence/mcp-audit.jsonl\"\nservice = \"monitor-mcp\"",
        );
    let artifacts = generate(&http, Path::new("."), &EmitOptions::default()).expect("valid");
    let compose: Value =
        serde_yaml_ng::from_str(&artifacts["bundle/environment/docker-compose.yaml"]).unwrap();
    assert!(
        compose["services"]["monitor-mcp"].is_mapping(),
        "{compose:?}"
    );
    assert!(!artifacts["bundle/environment/Dockerfile"].contains("/usr/local/bin/monitor-mcp"));
    let ledger: Json = serde_json::from_str(&artifacts["bundle/ledger.json"]).unwrap();
    assert_eq!(
        ledger["server"]["runs_in"],
        "its own container (the sidecar)"
    );
}
