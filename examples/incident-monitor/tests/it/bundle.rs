//! The incident monitor's Harbor task bundle: the sidecar's hardening in its compose file,
//! and `bundle --out` as a user runs it (embedded files, the binary, permissions,
//! refusing to overwrite).

use std::path::Path;

use harness_codegen::{EmitOptions, generate};
use harness_test_support::scratch_file;
use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_incident-monitor");

fn default_artifacts() -> harness_codegen::Artifacts {
    let source = std::fs::read_to_string("harness.toml").unwrap();
    generate(&source, Path::new("."), &EmitOptions::default()).expect("harness.toml is valid")
}

/// The sidecar's hardening (read-only root, no capabilities, non-root, healthcheck), checked
/// on the parsed document. (The root package checks any manifest's compose file against the
/// Compose Specification.)
#[test]
fn the_sidecar_is_hardened() {
    let artifacts = default_artifacts();
    let yaml = &artifacts["bundle/environment/docker-compose.yaml"];
    let compose: Value = serde_yaml_ng::from_str(yaml).expect("valid YAML");
    let sidecar = &compose["services"]["monitor-mcp"];
    assert_eq!(sidecar["read_only"], true);
    assert!(sidecar.get("ports").is_none(), "no published ports");
    assert_eq!(sidecar["user"], "10001:10001");
    // The log directory is a named volume, not a tmpfs: `docker compose cp` (how Harbor
    // collects a sidecar's artifacts) cannot read a tmpfs.
    assert!(sidecar.get("tmpfs").is_none(), "no tmpfs");
    assert_eq!(
        sidecar["volumes"][0],
        "monitor-mcp-logs:/var/log/monitor-mcp"
    );
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
    let out = scratch_file("bundle-cli", "task");
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
                "sha256": harness_contract::sha256_hex(&binary),
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
    let audit = scratch_file("bundle-health", "audit.jsonl");
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

/// harness.toml with its tables edited: every phase's network policy, and the MCP url.
fn manifest_with(edit: impl FnOnce(&mut toml::Table)) -> String {
    let mut manifest: toml::Table = std::fs::read_to_string("harness.toml")
        .unwrap()
        .parse()
        .unwrap();
    edit(&mut manifest);
    toml::to_string(&manifest).unwrap()
}

fn set_public(manifest: &mut toml::Table, phases: &[&str]) {
    for phase in phases {
        let mut table = &mut *manifest;
        for key in phase.split('.') {
            table = table[key].as_table_mut().unwrap();
        }
        table.insert("network_mode".into(), "public".into());
        table.remove("allowed_hosts");
    }
}

fn mcp_url(manifest: &mut toml::Table, url: &str) {
    manifest["environment"]["mcp_servers"][0]
        .as_table_mut()
        .unwrap()
        .insert("url".into(), url.into());
}

fn ledger_overlay(artifacts: &harness_codegen::Artifacts) -> bool {
    let ledger: Value = serde_json::from_str(&artifacts["bundle/ledger.json"]).unwrap();
    ledger["network"]["egress_overlay"].as_bool().unwrap()
}

/// Harbor 0.18 adds the egress overlay when the environment's policy or a phase run in the
/// agent's environment is not public; a separate verifier's policy does not count.
#[test]
fn the_topology_follows_harbors_rule() {
    let all_public = ["environment", "agent", "verifier", "verifier.environment"];
    // Every phase public: no shared loopback, so main reaches the sidecar by service name and
    // the sidecar listens on every interface of its own container.
    let source = manifest_with(|manifest| {
        set_public(manifest, &all_public);
        mcp_url(manifest, "http://monitor-mcp:8765/mcp");
    });
    let artifacts = generate(&source, Path::new("."), &EmitOptions::default()).expect("valid");
    assert!(!ledger_overlay(&artifacts));
    let compose: Value =
        serde_yaml_ng::from_str(&artifacts["bundle/environment/docker-compose.yaml"]).unwrap();
    let sidecar = &compose["services"]["monitor-mcp"];
    assert_eq!(sidecar["command"][4], "0.0.0.0:8765");
    assert_eq!(
        sidecar["healthcheck"]["test"][4],
        "http://127.0.0.1:8765/health"
    );
    assert!(artifacts["bundle/environment/monitor-mcp/Dockerfile"].contains("\"0.0.0.0:8765\""));

    // The loopback url then reaches nothing: refused, with the url that works.
    let loopback = manifest_with(|manifest| set_public(manifest, &all_public));
    let errors = generate(&loopback, Path::new("."), &EmitOptions::default()).unwrap_err();
    let rendered = errors.render_plain();
    assert!(
        rendered.contains("does not reach the sidecar")
            && rendered.contains("http://monitor-mcp:8765/mcp")
            && rendered.contains("no egress overlay"),
        "{rendered}"
    );

    // Only the separate verifier restricted: still no overlay in the agent's environment.
    let separate = manifest_with(|manifest| {
        set_public(manifest, &["environment", "agent"]);
        mcp_url(manifest, "http://monitor-mcp:8765/mcp");
    });
    assert!(!ledger_overlay(
        &generate(&separate, Path::new("."), &EmitOptions::default()).unwrap()
    ));

    // The same verifier sharing the environment: the overlay, and the loopback topology.
    let shared = manifest_with(|manifest| {
        set_public(manifest, &["environment", "agent"]);
        let verifier = manifest["verifier"].as_table_mut().unwrap();
        verifier.insert("environment_mode".into(), "shared".into());
        verifier.remove("environment");
    });
    let artifacts = generate(&shared, Path::new("."), &EmitOptions::default()).expect("valid");
    assert!(ledger_overlay(&artifacts));
    assert!(artifacts["bundle/environment/docker-compose.yaml"].contains("127.0.0.1:8765"));
}

#[test]
fn a_collect_hook_on_the_scratch_sidecar_is_refused() {
    let source = manifest_with(|manifest| {
        manifest["verifier"]["collect"][0]
            .as_table_mut()
            .unwrap()
            .insert("service".into(), "monitor-mcp".into());
    });
    let rendered = generate(&source, Path::new("."), &EmitOptions::default())
        .unwrap_err()
        .render_plain();
    assert!(
        rendered.contains("a collect hook cannot run in `monitor-mcp`")
            && rendered.contains("no shell"),
        "{rendered}"
    );
}

#[test]
fn the_shipped_skill_is_plain_and_the_ledger_pins_it_and_the_call_budget() {
    let artifacts = default_artifacts();
    let skill = &artifacts["bundle/environment/skills/incident-triage/SKILL.md"];
    assert!(!skill.contains("@generated"), "the agent reads this file");
    let ledger: Value = serde_json::from_str(&artifacts["bundle/ledger.json"]).unwrap();
    assert_eq!(
        ledger["skills"][0]["sha256"],
        harness_contract::sha256_hex(skill.as_bytes())
    );
    assert_eq!(
        ledger["call_budget"],
        serde_json::json!([{"max_calls": 20, "forbid_outcomes": ["rate_limited"]}])
    );
    // The sidecar image creates its log directory (the volume's mount point) for its uid,
    // and the verifier image has the working directory Harbor execs in.
    assert!(
        artifacts["bundle/environment/monitor-mcp/Dockerfile"]
            .contains("COPY --chown=10001:10001 log/ /var/log/monitor-mcp/")
    );
    assert!(artifacts.contains_key("bundle/environment/monitor-mcp/log/.keep"));
    assert!(artifacts["bundle/tests/Dockerfile"].contains("WORKDIR /workspace"));
}
