//! The Harbor task bundle: its compose file against the Compose Specification's JSON
//! Schema, and `bundle --out` as a user runs it (embedded files, the binary, permissions,
//! refusing to overwrite).

use std::path::Path;

use harness_codegen::{EmitOptions, generate};
use harness_test_support::scratch_dir;
use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_mcp-agent-harness");

fn default_artifacts() -> harness_codegen::Artifacts {
    let source = std::fs::read_to_string("harness.toml").unwrap();
    generate(&source, &EmitOptions::default()).expect("harness.toml is valid")
}

#[test]
fn compose_file_follows_the_compose_specification() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/data/compose-spec.json").unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the Compose schema compiles");
    let artifacts = default_artifacts();
    let yaml = &artifacts["bundle/environment/docker-compose.yaml"];
    let compose: Value = serde_yaml_ng::from_str(yaml).expect("valid YAML");
    let errors: Vec<String> = validator
        .iter_errors(&compose)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");

    // What seed 004 asks of the sidecar, checked on the parsed document.
    let sidecar = &compose["services"]["monitor-mcp"];
    assert_eq!(sidecar["read_only"], true);
    assert!(sidecar.get("ports").is_none(), "no published ports");
    assert_eq!(sidecar["user"], "10001:10001");
    // The log directory is a named volume, not a tmpfs: `docker compose cp` (how Harbor
    // collects a sidecar's artifacts) cannot read a tmpfs.
    assert!(sidecar.get("tmpfs").is_none(), "no tmpfs");
    assert_eq!(sidecar["volumes"][0], "monitor-mcp-logs:/var/log/monitor-mcp");
    assert!(compose["volumes"]["monitor-mcp-logs"].is_object());
    // main also builds from the file alone (Harbor's base file names the same context).
    assert_eq!(compose["services"]["main"]["build"]["context"], ".");
    assert_eq!(sidecar["healthcheck"]["test"][1], "/monitor-mcp");
    assert_eq!(
        compose["services"]["main"]["depends_on"]["monitor-mcp"]["condition"],
        "service_healthy"
    );
    let command: Vec<&str> = sidecar["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        command,
        [
            "serve",
            "--transport",
            "streamable-http",
            "--bind",
            "127.0.0.1:8765",
            "--audit-path",
            "/var/log/monitor-mcp/audit.jsonl"
        ]
    );
}

#[test]
fn task_toml_parses_and_keeps_schema_version_a_string() {
    let artifacts = default_artifacts();
    let task: toml::Table = toml::from_str(&artifacts["bundle/task.toml"]).expect("valid TOML");
    assert_eq!(task["schema_version"].as_str(), Some("1.3"));
    assert_eq!(
        task["task"]["name"].as_str(),
        Some("llmkb/compose-topology-repair-mcp")
    );
    assert_eq!(
        task["environment"]["mcp_servers"][0]["url"].as_str(),
        Some("http://127.0.0.1:8765/mcp")
    );
    assert_eq!(task["artifacts"].as_array().unwrap().len(), 3);
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn bundle_writes_the_embedded_files_and_the_binary() {
    let out = scratch_dir("bundle-cli").join("task");
    // Test binaries are dynamically linked; the static check has its own test below.
    let run = |extra: &[&str]| {
        std::process::Command::new(SERVER)
            .args(["bundle", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let refused = run(&[]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("dynamically linked"),
        "{refused:?}"
    );
    assert!(
        !out.exists(),
        "nothing is written when the binary is refused"
    );

    let written = run(&["--allow-dynamic"]);
    assert!(written.status.success(), "{written:?}");
    for (path, text) in default_artifacts()
        .iter()
        .filter_map(|(p, t)| Some((p.strip_prefix("bundle/")?, t)))
    {
        if path == "ledger.json" {
            // The written ledger is the generated one plus the binary's digest.
            let written: Value =
                serde_json::from_str(&std::fs::read_to_string(out.join(path)).unwrap()).unwrap();
            let mut generated: Value = serde_json::from_str(text).unwrap();
            let binary = std::fs::read(out.join("tests/monitor-mcp")).unwrap();
            generated["binary"] = serde_json::json!({
                "paths": ["environment/monitor-mcp/monitor-mcp", "tests/monitor-mcp"],
                "sha256": harness_runtime::bundle::sha256_hex(&binary),
                "bytes": binary.len(),
            });
            assert_eq!(written, generated);
            continue;
        }
        assert_eq!(
            &std::fs::read_to_string(out.join(path)).unwrap(),
            text,
            "{path} matches the build"
        );
    }
    assert_eq!(mode(&out.join("tests/test.sh")), 0o755);
    assert_eq!(mode(&out.join("task.toml")), 0o644);
    for binary in ["environment/monitor-mcp/monitor-mcp", "tests/monitor-mcp"] {
        assert_eq!(
            std::fs::read(out.join(binary)).unwrap(),
            std::fs::read(SERVER).unwrap()
        );
        assert_eq!(mode(&out.join(binary)), 0o755);
    }

    let again = run(&["--allow-dynamic"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("is not empty; pass --force"));
    assert!(run(&["--allow-dynamic", "--force"]).status.success());
}

#[test]
fn health_command_checks_a_live_server() {
    let audit = scratch_dir("bundle-health").join("audit.jsonl");
    let server = harness_test_support::HttpServer::start(SERVER, &audit);
    let health = |url: String| {
        std::process::Command::new(SERVER)
            .args(["health", "--url", &url])
            .status()
            .unwrap()
    };
    assert!(health(format!("http://127.0.0.1:{}/health", server.port)).success());
    assert!(
        !health(format!("http://127.0.0.1:{}/mcp", server.port)).success(),
        "not a health endpoint"
    );
    drop(server);
}
