//! The verifier on evidence made for real: serve, call the tool through a real MCP client,
//! then verify the real audit file (pass), the same with no call (candidate failure), and
//! broken evidence (infrastructure failure); and the bundle's test.sh turning each of those
//! into the right reward file, or none. Also: the ledger's tool digest is what a client
//! recomputes from tools/list.

use std::path::Path;
use std::process::Command;

use harness_test_support::{ScratchDir, call, scratch_dir, stdio_client};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_incident-monitor");

/// A task environment root with the audit at its source path, after `calls` calls.
async fn run_task(name: &str, calls: &[Value]) -> ScratchDir {
    let root = scratch_dir(name);
    let audit = root.join("var/log/monitor-mcp/audit.jsonl");
    let client = stdio_client(SERVER, &audit).await;
    for arguments in calls {
        call(&client, "get_incident_snapshot", arguments.clone())
            .await
            .expect("answered");
    }
    client.cancel().await.expect("clean shutdown");
    let state = root.join("opt/verifier-evidence/restart-terminal-state.json");
    std::fs::create_dir_all(state.parent().unwrap()).unwrap();
    std::fs::write(
        &state,
        "{\"monitor_reachable\": true, \"restart_request_present\": false, \"schema_version\": 1}\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("workspace")).unwrap();
    std::fs::write(root.join("workspace/final-report.json"), "{}").unwrap();
    root
}

fn verify(root: &Path) -> (i32, String, Value) {
    let output = Command::new(SERVER)
        .args(["verify", "--json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        report,
    )
}

/// Everything the generator makes of this package's manifest.
fn generated() -> harness_codegen::Artifacts {
    harness_codegen::generate(
        &std::fs::read_to_string("harness.toml").unwrap(),
        Path::new("."),
        &Default::default(),
    )
    .unwrap()
}

/// The bundle's ledger.json.
fn ledger_json() -> Value {
    serde_json::from_str(&generated()["bundle/ledger.json"]).unwrap()
}

/// Runs the bundle's test.sh against `root`; returns its exit code and the reward file.
fn test_sh(root: &Path) -> (i32, Option<String>) {
    let (code, reward, _) = test_sh_with_ledger(root);
    (code, reward)
}

/// The bundle's test.sh against `root`: its exit code, the reward file, the run ledger row.
fn test_sh_with_ledger(root: &Path) -> (i32, Option<String>, Option<Value>) {
    let artifacts = generated();
    let script = root.join("test.sh");
    std::fs::write(&script, &artifacts["bundle/tests/test.sh"]).unwrap();
    let logs = root.join("logs-verifier");
    let status = Command::new("sh")
        .arg(&script)
        .env("HARNESS_VERIFIER", SERVER)
        .env("HARNESS_LOGS_DIR", &logs)
        .env("HARNESS_ARTIFACTS_ROOT", root)
        .status()
        .unwrap();
    (
        status.code().unwrap(),
        std::fs::read_to_string(logs.join("reward.json")).ok(),
        std::fs::read_to_string(logs.join("run-ledger.json"))
            .ok()
            .map(|text| serde_json::from_str(&text).expect("the row is JSON")),
    )
}

#[tokio::test]
async fn each_run_leaves_its_ledger_row_beside_the_reward() {
    let root = run_task(
        "verify-run-ledger",
        &[
            json!({"incident_id": "42"}),
            json!({"incident_id": 42}),
            json!({"incident_id": 42, "view": "signals"}),
        ],
    )
    .await;
    let (code, reward, row) = test_sh_with_ledger(&root);
    assert_eq!((code, reward.as_deref()), (0, Some("{\"reward\":1}\n")));
    let row = row.expect("test.sh wrote run-ledger.json");
    // The oracle reads the raw audit file itself.
    let audit: Vec<Value> = std::fs::read_to_string(root.join("var/log/monitor-mcp/audit.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let mut durations: Vec<u64> = audit
        .iter()
        .map(|record| record["duration_ms"].as_u64().unwrap())
        .collect();
    durations.sort_unstable();
    assert_eq!(row["verdict"], "pass");
    assert_eq!(
        row["run"]["tool_calls"],
        json!({"invalid_arguments": 1, "ok": 2})
    );
    assert_eq!(
        (
            row["run"]["tool_ok"].clone(),
            row["run"]["tool_errors"].clone()
        ),
        (json!(2), json!(1))
    );
    assert_eq!(
        row["run"]["mcp_latency_ms"],
        json!({"median": durations[1], "p95": durations[2], "max": durations[2]})
    );
    // The pins are the bundle's own ledger's.
    let ledger = ledger_json();
    for key in ["server", "tools_sha256", "skills"] {
        assert_eq!(row[key], ledger[key], "{key}");
        assert!(!row[key].is_null(), "{key}");
    }
}

#[tokio::test]
async fn broken_evidence_still_leaves_a_row_that_says_why() {
    let root = run_task("verify-run-ledger-broken", &[json!({"incident_id": 42})]).await;
    std::fs::write(root.join("var/log/monitor-mcp/audit.jsonl"), "not json\n").unwrap();
    let (code, reward, row) = test_sh_with_ledger(&root);
    assert_eq!((code, reward), (1, None));
    let row = row.expect("a row even without a reward");
    assert_eq!(row["verdict"], "infrastructure_failure");
    assert!(
        row["reason"].as_str().unwrap().contains("audit line 1"),
        "{row}"
    );
    assert!(
        row["run"].is_null(),
        "no figures from an audit that does not parse: {row}"
    );
}

#[tokio::test]
async fn a_real_call_passes_and_rewards_one() {
    let root = run_task(
        "verify-pass",
        &[json!({"incident_id": "42"}), json!({"incident_id": 42})],
    )
    .await;
    let (code, stderr, report) = verify(&root);
    assert_eq!(code, 0, "{stderr} {report}");
    assert_eq!(report["outcome"], "pass");
    assert_eq!(report["checks"].as_array().unwrap().len(), 4);
    assert_eq!(test_sh(&root), (0, Some("{\"reward\":1}\n".to_owned())));
}

#[tokio::test]
async fn no_call_is_a_candidate_failure_and_rewards_zero() {
    let root = run_task("verify-no-call", &[]).await;
    assert_eq!(
        std::fs::read_to_string(root.join("var/log/monitor-mcp/audit.jsonl")).unwrap(),
        ""
    );
    let (code, stderr, report) = verify(&root);
    assert_eq!(code, 10);
    assert_eq!(
        stderr.trim(),
        "candidate failure: MCP audit is empty: the tool was never called"
    );
    assert_eq!(report["outcome"], "candidate_failure");
    assert_eq!(test_sh(&root), (0, Some("{\"reward\":0}\n".to_owned())));
}

#[tokio::test]
async fn the_wrong_call_is_a_candidate_failure() {
    let root = run_task(
        "verify-wrong-call",
        &[json!({"incident_id": 42, "view": "signals"})],
    )
    .await;
    let (code, stderr, _) = verify(&root);
    assert_eq!(code, 10, "{stderr}");
    assert!(
        stderr.contains("no ok call of get_incident_snapshot"),
        "{stderr}"
    );
}

#[tokio::test]
async fn broken_evidence_is_an_infrastructure_failure_and_writes_no_reward() {
    let root = run_task("verify-broken", &[json!({"incident_id": 42})]).await;
    let audit = root.join("var/log/monitor-mcp/audit.jsonl");
    let text = std::fs::read_to_string(&audit).unwrap();
    std::fs::write(&audit, text.replace('\n', "\r\n")).unwrap();
    let (code, stderr, report) = verify(&root);
    assert_eq!(code, 1);
    assert_eq!(stderr.lines().count(), 1, "one-line reason: {stderr}");
    assert!(
        stderr.starts_with("infrastructure failure: audit line 1 ends with a carriage return"),
        "{stderr}"
    );
    assert_eq!(report["outcome"], "infrastructure_failure");
    let (status, reward) = test_sh(&root);
    assert_ne!(status, 0);
    assert_eq!(reward, None, "an infrastructure failure writes no reward");
}

#[tokio::test]
async fn a_monitor_gone_before_the_end_of_the_agent_phase_is_an_infrastructure_failure() {
    // The empty audit a monitor killed mid-run leaves must not read as "never called".
    let root = run_task("verify-monitor-gone", &[]).await;
    std::fs::write(
        root.join("opt/verifier-evidence/restart-terminal-state.json"),
        "{\"monitor_reachable\": false, \"restart_request_present\": false, \"schema_version\": 1}\n",
    )
    .unwrap();
    let (code, stderr, report) = verify(&root);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.starts_with("infrastructure failure:") && stderr.contains("monitor_reachable"),
        "{stderr}"
    );
    assert_eq!(report["outcome"], "infrastructure_failure");
    let (status, reward) = test_sh(&root);
    assert_ne!(status, 0);
    assert_eq!(reward, None, "an infrastructure failure writes no reward");
}

#[test]
fn the_ledger_pins_the_published_tools() {
    let ledger = ledger_json();
    let output = Command::new(SERVER).arg("tools").output().unwrap();
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    // What a client does: sha256 of the canonical JSON of the tools/list `tools` array.
    let digest = harness_runtime::audit::args_sha256(&listing["tools"]);
    assert_eq!(ledger["tools_sha256"].as_str(), Some(digest.as_str()));
    assert_eq!(
        ledger["budgets"]["get_incident_snapshot"]["retries_allowed"],
        1
    );
    assert_eq!(
        ledger["network"]["agent"]["allowed_hosts"],
        json!(["api.anthropic.com"])
    );
}
