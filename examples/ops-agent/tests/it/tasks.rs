//! Calls that become tasks (the tasks extension), over real HTTP with 2026-07-28 requests: the
//! result a client finally reads has passed every output guard an inline call's passes, the
//! rate limit counts a task once (at creation), a cancelled drain never writes, a tool's
//! `max_alive` bounds its tasks, a panicking or timed-out body ends `completed` with the
//! envelope, a tool that runs only as a task refuses a client without the extension, and the
//! audit holds two records per task linked by its id.

use std::collections::HashMap;
use std::path::Path;

use harness_test_support::{
    HttpServer, ScratchDir, StatelessClient, TEST_TOKEN, audit_records, scratch_dir, scratch_file,
};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_ops-agent");

struct Running {
    _server: HttpServer,
    /// Declares the tasks extension.
    tasks: StatelessClient,
    /// Declares nothing.
    plain: StatelessClient,
    audit: harness_test_support::ScratchFile,
    spool: ScratchDir,
}

fn start(name: &str) -> Running {
    let audit = scratch_file(name, "audit.jsonl");
    let spool = scratch_dir(&format!("{name}-spool"));
    let spool_env = spool.to_str().expect("a UTF-8 path").to_owned();
    let server = HttpServer::start_with_env(
        SERVER,
        &audit,
        &[],
        &[("OPS_AGENT_SPOOL_DIR", spool_env.as_str())],
    );
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let client = || StatelessClient::new(&url, json!({})).with_token(TEST_TOKEN);
    Running {
        _server: server,
        tasks: client().declaring_tasks(),
        plain: client(),
        audit,
        spool,
    }
}

/// The task's id, from a `tools/call` answered with a task.
fn task_id(created: &Value) -> String {
    assert_eq!(created["resultType"], "task", "a task: {created}");
    assert_eq!(created["status"], "working");
    for absent in [
        "result",
        "error",
        "inputRequests",
        "requestState",
        "content",
    ] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    let id = created["taskId"].as_str().expect("a task id");
    assert!(
        id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "128 random bits: {id}"
    );
    id.to_owned()
}

fn envelope(result: &Value) -> &Value {
    assert_eq!(result["isError"], true, "an error result: {result}");
    &result["structuredContent"]
}

#[tokio::test]
async fn a_tasks_result_passes_every_guard_an_inline_one_does() {
    let running = start("task-guards");
    let arguments = json!({"service": "checkout"});
    let inline = running
        .plain
        .call("query_system_logs", arguments.clone())
        .await
        .expect("answered inline");
    assert_eq!(inline["resultType"], "complete");
    let created = running
        .tasks
        .call("query_system_logs", arguments)
        .await
        .expect("a task");
    let id = task_id(&created);
    let task = running.tasks.wait_for(&id, "completed").await;
    assert_eq!(task["status"], "completed", "{task}");
    let result = &task["result"];
    let log = result["content"][0]["text"].as_str().expect("the log");
    // Independent of the inline answer: what the guards promise.
    assert!(log.chars().count() <= 2000, "{} chars", log.chars().count());
    for hidden in ["<DATA>", "\x1b", "\u{202e}", "exfiltrate", "ghp_"] {
        assert!(!log.contains(hidden), "{hidden:?} reached the model");
    }
    assert!(
        log.contains("deploy authenticated with [REDACTED"),
        "{log:.400}"
    );
    assert!(result["_meta"]["harness/truncated"]["original_chars"].as_u64() > Some(2000));
    // And the same as the inline call's.
    assert_eq!(result["content"], inline["content"]);
}

#[tokio::test]
async fn the_rate_limit_counts_a_task_once_when_it_is_created() {
    let running = start("task-rate-limit");
    let mut ids = Vec::new();
    for _ in 0..10 {
        let created = running
            .tasks
            .call("query_system_logs", json!({"service": "api"}))
            .await
            .expect("a task");
        ids.push(task_id(&created));
    }
    // Polling is free: every task is read until it ends.
    for id in &ids {
        assert_eq!(
            running.tasks.wait_for(id, "completed").await["status"],
            "completed"
        );
    }
    // The eleventh call within the minute is refused at once, inline: no task is made.
    let refused = running
        .tasks
        .call("query_system_logs", json!({"service": "api"}))
        .await
        .expect("answered");
    assert_eq!(refused["resultType"], "complete", "{refused}");
    assert_eq!(envelope(&refused)["error_code"], "ToolRateLimitError");
}

#[tokio::test]
async fn a_cancelled_drain_never_writes_and_the_tool_keeps_to_max_alive() {
    let running = start("task-cancel");
    let drain = |batch: &str| {
        running
            .tasks
            .call("drain_queue", json!({"batch": batch, "seconds": 1}))
    };
    let cancelled = task_id(&drain("cancelled").await.expect("a task"));
    let control = task_id(&drain("control").await.expect("a task"));
    // Two drains are alive: the third is refused, inline, and nothing of it runs.
    let third = drain("third").await.expect("answered");
    assert_eq!(envelope(&third)["error_code"], "TooManyTasks", "{third}");
    let ack = running
        .tasks
        .request("tasks/cancel", json!({"taskId": cancelled}))
        .await
        .expect("acknowledged");
    assert_eq!(ack, json!({"resultType": "complete"}));
    let task = running.tasks.get_task(&cancelled).await.expect("readable");
    assert_eq!(
        task["status"], "cancelled",
        "reads cancelled at once: {task}"
    );
    // The control drain started after the cancelled one and takes as long: once it has
    // written, the cancelled one would have too.
    let done = running.tasks.wait_for(&control, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(running.spool.join("control.drained").exists());
    assert!(
        !running.spool.join("cancelled.drained").exists(),
        "the cancelled drain wrote its receipt"
    );
    assert_eq!(
        running.tasks.get_task(&cancelled).await.expect("readable")["status"],
        "cancelled"
    );
    // Cancelling a finished task changes nothing.
    running
        .tasks
        .request("tasks/cancel", json!({"taskId": control}))
        .await
        .expect("acknowledged");
    assert_eq!(
        running.tasks.get_task(&control).await.expect("readable")["status"],
        "completed"
    );
    // With one place free again, a drain is a task again.
    task_id(&drain("fourth").await.expect("a task"));
    assert_audit_pairs(
        &running.audit,
        &[(&cancelled, "cancelled"), (&control, "ok")],
    )
    .await;
}

#[tokio::test]
async fn a_panicking_or_timed_out_body_ends_completed_with_the_envelope() {
    let running = start("task-faults");
    for (kind, code) in [("panic", "InternalError"), ("timeout", "ToolTimeoutError")] {
        let created = running
            .tasks
            .call("simulate_fault", json!({"kind": kind}))
            .await
            .expect("a task");
        let id = task_id(&created);
        let task = running.tasks.wait_for(&id, "completed").await;
        assert_eq!(task["status"], "completed", "{kind}: {task}");
        assert!(task.get("error").is_none());
        let envelope = envelope(&task["result"]);
        assert_eq!(envelope["error_code"], code);
        let text = task["result"]["content"][0]["text"].as_str().unwrap();
        assert!(!text.contains("secret") && !text.contains("/srv"), "{text}");
    }
}

#[tokio::test]
async fn a_tool_that_runs_only_as_a_task_refuses_a_client_without_the_extension() {
    let running = start("task-required");
    let refused = running
        .plain
        .call("drain_queue", json!({"batch": "plain", "seconds": 0}))
        .await
        .expect_err("refused");
    assert_eq!(refused.code, -32021);
    assert_eq!(
        refused.data.expect("data")["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    // The task methods themselves want the extension, before any lookup.
    let unknown = running
        .plain
        .get_task("00000000000000000000000000000000")
        .await
        .expect_err("refused");
    assert_eq!(unknown.code, -32021);
    // A task id nobody made is unknown (-32602), as is a malformed one.
    for id in ["00000000000000000000000000000000", "../../etc/passwd"] {
        let error = running.tasks.get_task(id).await.expect_err("unknown");
        assert_eq!(error.code, -32602, "{error:?}");
    }
    assert!(!running.spool.join("plain.drained").exists());
    let records = audit_records(&running.audit);
    let refusal = records
        .iter()
        .find(|record| record["tool"] == "drain_queue")
        .expect("the refusal is audited");
    assert_eq!(refusal["outcome"], "error");
    assert_eq!(refusal["error_code"], "TaskRequired");
}

/// Each task has exactly two records, its creation and its end, with its id (the end's is
/// written as the body stops, so it is waited for).
async fn assert_audit_pairs(audit: &Path, ids: &[(&str, &str)]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let records = audit_records(audit);
        let mut by_task: HashMap<String, Vec<String>> = HashMap::new();
        for record in &records {
            if let Some(id) = record.get("task_id").and_then(Value::as_str) {
                by_task
                    .entry(id.to_owned())
                    .or_default()
                    .push(record["outcome"].as_str().unwrap().to_owned());
            }
        }
        let whole = ids
            .iter()
            .all(|(id, _)| by_task.get(*id).is_some_and(|o| o.len() >= 2));
        if whole || std::time::Instant::now() >= deadline {
            for (id, end) in ids {
                let outcomes = by_task.get(*id).cloned().unwrap_or_default();
                assert_eq!(outcomes, ["task_created", end], "{id}");
            }
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// `ops-agent call` of a task tool, in process or with `--url`: the call becomes a task, its
/// status changes are printed on stderr, and what it ends with is printed as an inline call's
/// answer would be; a task still running at `--timeout-seconds` is cancelled, and its body never
/// writes.
#[test]
fn call_waits_for_a_task_and_cancels_one_out_of_time() {
    let spool = scratch_dir("task-cli-spool");
    let call = |extra: &[&str]| {
        std::process::Command::new(SERVER)
            .arg("call")
            .args(extra)
            .env("OPS_AGENT_TOKEN", TEST_TOKEN)
            .env("OPS_AGENT_SPOOL_DIR", &*spool)
            .output()
            .expect("runs")
    };
    let in_process = call(&["drain_queue", r#"{"batch": "local", "seconds": 0}"#]);
    let stderr = String::from_utf8_lossy(&in_process.stderr);
    assert!(in_process.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&in_process.stdout),
        "Drained batch local.\n"
    );
    assert!(
        stderr.contains(": completed"),
        "progress on stderr: {stderr}"
    );
    assert!(spool.join("local.drained").exists());

    let running = start("task-cli");
    let url = format!("http://127.0.0.1:{}/mcp", running._server.port);
    let spool_of = |batch: &str| running.spool.join(format!("{batch}.drained"));
    let remote = std::process::Command::new(SERVER)
        .args([
            "call",
            "drain_queue",
            r#"{"batch": "remote", "seconds": 1}"#,
            "--url",
            &url,
        ])
        .env("OPS_AGENT_TOKEN", TEST_TOKEN)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert!(remote.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&remote.stdout),
        "Drained batch remote.\n"
    );
    assert!(
        stderr.contains(": working") && stderr.contains(": completed"),
        "{stderr}"
    );
    assert!(spool_of("remote").exists());

    let late = std::process::Command::new(SERVER)
        .args([
            "call",
            "drain_queue",
            r#"{"batch": "late", "seconds": 8}"#,
            "--url",
            &url,
        ])
        .args(["--timeout-seconds", "1"])
        .env("OPS_AGENT_TOKEN", TEST_TOKEN)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&late.stderr);
    assert_eq!(late.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("did not end in time; it was cancelled"),
        "{stderr}"
    );
    // The cancel reached the body: its end is audited `cancelled` and it never writes.
    let outcomes = wait_for_outcomes(&running.audit, 4);
    assert_eq!(
        outcomes,
        ["task_created", "ok", "task_created", "cancelled"],
        "the remote and the late task"
    );
    assert!(!spool_of("late").exists());
}

/// The audit's outcomes once it holds `count` records (at most 10 s).
fn wait_for_outcomes(audit: &Path, count: usize) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let outcomes: Vec<String> = audit_records(audit)
            .iter()
            .filter_map(|record| record["outcome"].as_str().map(str::to_owned))
            .collect();
        if outcomes.len() >= count || std::time::Instant::now() >= deadline {
            return outcomes;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
