//! The gateway against a hostile upstream (tests/data/hostile_upstream.py, one misbehaviour
//! per tool): only what the pins allow is called, every output guard applies, every failure is
//! an envelope and never a hang, and a changed definition is refused, dropped or warned about.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness_contract::definition_sha256;
use harness_runtime::spec::{
    EndpointSpec, GuardSpec, OnDrift, PinKind, PinSpec, TabularAction, TabularSpec, ToolSpec,
    UpstreamProtocol, UpstreamSpec,
};
use harness_runtime::upstream::{Upstreams, fetch_tools};
use harness_runtime::validate::NoArguments;
use harness_runtime::{Call, Pipeline};
use rmcp::model::CallToolResult;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use common::{GUARDS, SERVER, tool};

mod catalog;
mod listen;
mod sessions;
mod skills;
mod support;
mod tasks;

use support::{audit_in, audited, hostile, python};

const NAMES: [&str; 13] = [
    "echo", "inject", "huge", "table", "hang", "crash", "flood", "sample", "garbage", "media",
    "fails", "env", "leak",
];

/// The guards of every gateway tool here: what the default manifest gives a tool.
const GATEWAY_GUARDS: GuardSpec = GuardSpec {
    timeout_ms: Some(2000),
    tabular: Some(TabularSpec {
        max_rows: 50,
        action: TabularAction::Block,
    }),
    max_lines: Some(200),
    max_chars: Some(4000),
    ..GUARDS
};

fn leak<T: ?Sized>(value: Box<T>) -> &'static T {
    Box::leak(value)
}

struct Gateway {
    pipeline: Pipeline,
    upstreams: Arc<Upstreams>,
    dir: tempfile::TempDir,
}

impl Gateway {
    fn upstream_log(&self) -> PathBuf {
        self.dir.path().join("upstream.jsonl")
    }

    /// The methods the upstream received, in order.
    fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(self.upstream_log())
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// Whether the upstream received `notifications/cancelled` for its call of `tool`.
    fn cancelled_upstream(&self, tool: &str) -> bool {
        let received = self.received();
        let call_ids: Vec<&Value> = received
            .iter()
            .filter(|m| m["method"] == "tools/call" && m["params"]["name"] == tool)
            .map(|m| &m["id"])
            .collect();
        received.iter().any(|m| {
            m["method"] == "notifications/cancelled"
                && call_ids.contains(&&m["params"]["requestId"])
        })
    }

    fn audit(&self) -> Vec<Value> {
        audit_in(self.dir.path())
    }

    async fn call(&self, name: &str) -> CallToolResult {
        self.call_with(name, CancellationToken::new()).await
    }

    async fn call_with(&self, name: &str, cancellation: CancellationToken) -> CallToolResult {
        let index = NAMES.iter().position(|n| *n == name).unwrap();
        let call = Call::new(None, None, cancellation);
        self.pipeline
            .run(index, call, |args: NoArguments, ctx| {
                self.upstreams.call(0, index, args, ctx)
            })
            .await
            .expect("answered with a result")
    }

    /// Waits (up to 20 s) for `done` to hold, checking as the state changes.
    async fn until(&self, what: &str, mut done: impl FnMut(&Self) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done(self) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A gateway in front of the hostile upstream (`mode` its extra arguments), every tool
/// pinned to the definition it serves at start unless `tamper` says otherwise.
async fn gateway(mode: &[&str], on_drift: OnDrift, tamper: &[&str]) -> Gateway {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("upstream.jsonl");
    let spec = hostile(&log, mode, on_drift);
    // Pinned as `harness-codegen import` pins: from the upstream's own tools/list.
    let live = fetch_tools(leak(Box::new(spec(&[]))))
        .await
        .expect("the upstream starts");
    let pins: Vec<PinSpec> = NAMES
        .iter()
        .map(|name| {
            let tool = live.iter().find(|tool| tool.name == *name).expect("listed");
            let mut sha256 = definition_sha256(&serde_json::to_value(tool).unwrap());
            if tamper.contains(name) {
                sha256 = "0".repeat(64);
            }
            PinSpec {
                kind: PinKind::Tool,
                name,
                remote_name: name,
                sha256: leak(sha256.into_boxed_str()),
                schema: None,
                subscribe: false,
            }
        })
        .collect();
    let upstream: &'static [UpstreamSpec] =
        leak(vec![spec(leak(pins.into_boxed_slice()))].into_boxed_slice());
    let tools: &'static [ToolSpec] = leak(
        NAMES
            .iter()
            .map(|name| tool(name, GATEWAY_GUARDS))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let pipeline = audited(leak(Box::new(SERVER)), tools, dir.path());
    let upstreams = Arc::new(Upstreams::new(upstream));
    upstreams.start().await;
    Gateway {
        pipeline,
        upstreams,
        dir,
    }
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn error_code(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    result.structured_content.as_ref().unwrap()["error_code"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn calls_received(gateway: &Gateway, tool: &str) -> usize {
    gateway
        .received()
        .iter()
        .filter(|m| m["method"] == "tools/call" && m["params"]["name"] == tool)
        .count()
}

#[tokio::test]
async fn upstream_output_passes_every_guard() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    let injected = text(&gateway.call("inject").await);
    assert!(injected.starts_with("status ok"), "{injected}");
    for hostile in ["IMPORTANT", "delete_all", "\x1b", "\u{202e}", "\u{200b}"] {
        assert!(
            !injected.contains(hostile),
            "{hostile:?} passed: {injected:?}"
        );
    }
    let huge = gateway.call("huge").await;
    assert_eq!(huge.is_error, Some(false));
    let read = text(&huge);
    assert!(read.chars().count() <= 4000, "{}", read.len());
    assert!(read.contains("[truncated"), "the cut is marked");
    assert_eq!(
        error_code(&gateway.call("table").await),
        "TokenStarvationError"
    );
    assert_eq!(
        error_code(&gateway.call("media").await),
        "ContentNotAllowed"
    );
    let failed = gateway.call("fails").await;
    assert_eq!(error_code(&failed), "UpstreamError");
    let message = failed.structured_content.as_ref().unwrap()["message"]
        .as_str()
        .unwrap();
    assert!(
        message.contains("disk full") && !message.contains("sudo"),
        "{message}"
    );
    let outcomes: Vec<(String, String)> = gateway
        .audit()
        .iter()
        .map(|r| {
            (
                r["tool"].as_str().unwrap().into(),
                r["outcome"].as_str().unwrap().into(),
            )
        })
        .collect();
    let expected = [
        ("inject", "ok"),
        ("huge", "ok"),
        ("table", "blocked"),
        ("media", "blocked"),
        ("fails", "error"),
    ];
    assert_eq!(
        outcomes,
        expected.map(|(t, o)| (t.to_owned(), o.to_owned())),
        "every call audited"
    );
}

#[tokio::test]
async fn secrets_an_upstream_returns_are_redacted() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    let leaked = text(&gateway.call("leak").await);
    assert!(leaked.contains("[REDACTED:aws_access_key]"), "{leaked}");
    assert!(leaked.contains("[REDACTED:private_key]"), "{leaked}");
    assert!(
        !leaked.contains("QWERTYUIOPASDFGH") && !leaked.contains("MIIEvQ"),
        "{leaked}"
    );
    assert!(
        leaked.starts_with("config:") && leaked.ends_with("done"),
        "{leaked}"
    );
}

#[tokio::test]
async fn the_child_inherits_only_path() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    let result = gateway.call("env").await;
    let names = &result.structured_content.as_ref().unwrap()["names"];
    // The test process has CARGO_*, HOME and more; the child sees PATH only (and the
    // LC_CTYPE Python sets itself when it coerces the C locale).
    let names: Vec<&str> = names
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let own: Vec<&&str> = names.iter().filter(|n| **n != "LC_CTYPE").collect();
    assert_eq!(own, [&"PATH"], "{names:?}");
}

#[tokio::test]
async fn a_hanging_upstream_times_out_and_the_request_is_cancelled_upstream() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    let result = gateway.call("hang").await;
    assert_eq!(error_code(&result), "ToolTimeoutError");
    gateway
        .until("notifications/cancelled for the call, upstream", |g| {
            g.cancelled_upstream("hang")
        })
        .await;
    // The connection still serves.
    assert_eq!(gateway.call("echo").await.is_error, Some(false));
}

#[tokio::test]
async fn a_client_cancellation_cancels_the_upstream_request() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    let cancellation = CancellationToken::new();
    let cancel = cancellation.clone();
    let waiter = async {
        gateway
            .until("the call to reach the upstream", |g| {
                calls_received(g, "hang") == 1
            })
            .await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(gateway.call_with("hang", cancellation), waiter);
    assert_eq!(error_code(&result), "Cancelled");
    gateway
        .until("notifications/cancelled for the call, upstream", |g| {
            g.cancelled_upstream("hang")
        })
        .await;
}

#[tokio::test]
async fn an_upstream_that_exits_mid_call_is_unavailable_then_restarted() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    let crashed = gateway.call("crash").await;
    assert_eq!(error_code(&crashed), "UpstreamUnavailable");
    let health = |g: &Gateway| g.upstreams.health()["hostile"]["status"].clone();
    gateway.until("the restart", |g| g.upstreams.all_up()).await;
    assert_eq!(health(&gateway), "up");
    assert_eq!(text(&gateway.call("echo").await), "echo: ");
    let records = gateway.audit();
    assert_eq!(records[0]["outcome"], "error");
    assert_eq!(records[0]["error_code"], "UpstreamUnavailable");
}

/// The pins are compared again on every reconnect: an upstream that comes back from a crash
/// with another description is drift from its first call on.
#[tokio::test]
async fn an_upstream_that_comes_back_changed_is_drift() {
    let gateway = gateway(&["changed-after-crash"], OnDrift::Refuse, &[]).await;
    assert_eq!(
        gateway.upstreams.health()["hostile"]["drifted"],
        serde_json::json!([])
    );
    assert_eq!(
        error_code(&gateway.call("crash").await),
        "UpstreamUnavailable"
    );
    gateway
        .until("the changed upstream to be back and its drift seen", |g| {
            g.upstreams.all_up()
                && g.upstreams.health()["hostile"]["drifted"] == serde_json::json!(["echo"])
        })
        .await;
    assert_eq!(error_code(&gateway.call("echo").await), "UpstreamDrift");
    assert_eq!(calls_received(&gateway, "echo"), 0, "never reached it");
    assert_eq!(gateway.call("inject").await.is_error, Some(false));
}

#[tokio::test]
async fn invalid_json_rpc_is_an_error_not_a_hang() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    let result = gateway.call("garbage").await;
    // The line that is not JSON is skipped; the result of the wrong shape is refused.
    assert_eq!(error_code(&result), "UpstreamError");
    assert_eq!(
        gateway.call("echo").await.is_error,
        Some(false),
        "still connected"
    );
}

#[tokio::test]
async fn unasked_sampling_does_not_get_through() {
    let gateway = gateway(&[], OnDrift::Refuse, &[]).await;
    assert_eq!(text(&gateway.call("sample").await), "sampling refused");
}

#[tokio::test]
async fn a_changed_definition_is_refused_from_the_next_call() {
    let gateway = gateway(&["rugpull"], OnDrift::Refuse, &[]).await;
    assert_eq!(text(&gateway.call("echo").await), "echo: ");
    gateway
        .until("the drift to be seen", |g| {
            g.upstreams.health()["hostile"]["drifted"] == serde_json::json!(["echo"])
        })
        .await;
    let refused = gateway.call("echo").await;
    assert_eq!(error_code(&refused), "UpstreamDrift");
    assert_eq!(
        calls_received(&gateway, "echo"),
        1,
        "the refused call never reached it"
    );
    assert_eq!(gateway.audit().last().unwrap()["outcome"], "blocked");
    // Other pinned tools keep working.
    assert_eq!(gateway.call("inject").await.is_error, Some(false));
}

#[tokio::test]
async fn with_on_drift_warn_a_changed_tool_is_still_served() {
    let gateway = gateway(&["rugpull"], OnDrift::Warn, &[]).await;
    gateway.call("echo").await;
    gateway
        .until("the drift to be seen", |g| {
            g.upstreams.health()["hostile"]["drifted"] == serde_json::json!(["echo"])
        })
        .await;
    assert_eq!(text(&gateway.call("echo").await), "echo: ");
}

#[tokio::test]
async fn a_pin_that_differs_at_start_is_refused_before_any_call() {
    let gateway = gateway(&[], OnDrift::Refuse, &["echo"]).await;
    assert_eq!(error_code(&gateway.call("echo").await), "UpstreamDrift");
    assert_eq!(calls_received(&gateway, "echo"), 0);
    assert_eq!(gateway.call("inject").await.is_error, Some(false));
}

#[tokio::test]
async fn an_upstream_that_cannot_start_is_unavailable_and_says_why() {
    let spec: &'static [UpstreamSpec] = leak(
        vec![UpstreamSpec {
            name: "missing",
            endpoint: EndpointSpec::Stdio {
                command: "/nonexistent/mcp-server",
                args: &[],
                cwd: None,
                env: &[],
            },
            timeout_ms: 1000,
            max_restarts: 0,
            backoff_ms: 10,
            on_drift: OnDrift::Refuse,
            protocol: UpstreamProtocol::default(),
            forward: &[],
            pins: leak(
                vec![PinSpec {
                    kind: PinKind::Tool,
                    name: "echo",
                    remote_name: "echo",
                    sha256: leak("0".repeat(64).into_boxed_str()),
                    schema: None,
                    subscribe: false,
                }]
                .into_boxed_slice(),
            ),
        }]
        .into_boxed_slice(),
    );
    let upstreams = Upstreams::new(spec);
    upstreams.start().await;
    assert!(!upstreams.all_up());
    let health = upstreams.health();
    assert_eq!(health["missing"]["status"], "down");
    assert!(
        health["missing"]["reason"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/mcp-server"),
        "{health}"
    );
}

/// A stdio upstream that is started once (no restart) with `args`, pinning nothing: what
/// the start-up tests fetch from.
fn stdio_upstream(
    name: &'static str,
    command: &'static str,
    args: &'static [&'static str],
) -> &'static UpstreamSpec {
    leak(Box::new(UpstreamSpec {
        name,
        endpoint: EndpointSpec::Stdio {
            command,
            args,
            cwd: None,
            env: &[],
        },
        timeout_ms: 10_000,
        max_restarts: 0,
        backoff_ms: 10,
        on_drift: OnDrift::Refuse,
        protocol: UpstreamProtocol::default(),
        forward: &[],
        pins: &[],
    }))
}

/// An upstream that fails to start says why in its own words: the error quotes the end of
/// its stderr and that it exited, rather than a bare closed connection.
#[tokio::test]
async fn an_upstream_that_exits_at_start_is_reported_with_its_stderr() {
    let spec = stdio_upstream(
        "dies",
        python(),
        &[
            "-c",
            "import sys; sys.stderr.write('config error: API_KEY is not set\\n'); sys.exit(2)",
        ],
    );
    let error = fetch_tools(spec).await.expect_err("it exits");
    let reason = error.to_string();
    assert!(
        reason.contains("config error: API_KEY is not set")
            && reason.contains("the process ended (exit status: 2)"),
        "{reason}"
    );
}

/// A stdio upstream runs under `SCHED_BATCH`, and so does what it starts, so that its wakeups
/// do not preempt the gateway: the child reports the policy the kernel gives it, and a process
/// it starts, on its stderr, which the failure quotes.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_upstream_and_what_it_starts_run_under_the_batch_policy() {
    let report = "import os, subprocess, sys; \
        child = subprocess.run([sys.executable, '-c', 'import os; print(os.sched_getscheduler(0))'], \
        capture_output=True, text=True).stdout.strip(); \
        sys.stderr.write(f'policy {os.sched_getscheduler(0)}, its child {child}\\n'); sys.exit(4)";
    let spec = stdio_upstream("batch", python(), leak(vec!["-c", report].into()));
    let reason = fetch_tools(spec).await.expect_err("it exits").to_string();
    let batch = libc::SCHED_BATCH;
    assert!(
        reason.contains(&format!("policy {batch}, its child {batch}")),
        "{reason}"
    );
}

/// What an upstream's launcher starts goes with it: when the connection drops (here, because
/// the launcher exited at start), the launcher's whole process group is killed, not only the
/// process the manifest names.
#[tokio::test]
async fn a_failed_upstream_takes_its_process_group_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("server.pid");
    // The "server" the launcher left behind keeps running on its own, its stdio elsewhere.
    let script = format!(
        "sleep 300 </dev/null >/dev/null 2>&1 & echo $! > {}; echo 'no config' >&2; exit 3",
        pid_file.display()
    );
    let args: &'static [&'static str] = leak(vec!["-c", leak(script.into_boxed_str())].into());
    let spec = stdio_upstream("launcher", "sh", args);
    let reason = fetch_tools(spec).await.expect_err("it exits").to_string();
    assert!(
        reason.contains("no config") && reason.contains("the process ended (exit status: 3)"),
        "{reason}"
    );
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let stat = PathBuf::from(format!("/proc/{}/stat", pid.trim()));
    // Gone, or a zombie its new parent has not reaped yet: either way no longer running.
    let running = || {
        std::fs::read_to_string(&stat).is_ok_and(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while running() {
        assert!(
            Instant::now() < deadline,
            "the launcher's server {pid} still runs"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
