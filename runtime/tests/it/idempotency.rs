//! `idempotency_key` in memory: a repeat within the window is the first reply again (the body
//! not run, audited `replayed`), other arguments under the same key and a repeat while the
//! first call runs are refused (`idempotency_conflict`), errors are kept like successes, calls
//! refused before the body are not, and a key is forgotten after its window (tokio's paused
//! clock, no sleeps).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use harness_runtime::audit::AuditLog;
use harness_runtime::spec::*;
use harness_runtime::validate::*;
use harness_runtime::{Call, CallContext, Pipeline, ToolError};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common;

use common::{AUDIT, GUARDS, SERVER, tool};

const KEYS: IdempotencySpec = IdempotencySpec {
    argument: "request_id",
    window_seconds: 60,
    backend: RateLimitBackend::Memory,
};

static TOOLS: [ToolSpec; 1] = [ToolSpec {
    write: WriteSpec {
        confirm: false,
        idempotency: Some(KEYS),
    },
    ..tool("refund", GUARDS)
}];

/// `refund`'s arguments, validated: a string `request_id` is required.
#[derive(serde::Serialize)]
struct Refund(JsonObject);

impl FromArguments for Refund {
    fn from_arguments(
        object: &JsonObject,
        path: ArgPath<'_>,
        errors: &mut ArgErrors,
    ) -> Option<Self> {
        if !object.get("request_id").is_some_and(Value::is_string) {
            errors.push(path.field("request_id"), "a required string");
            return None;
        }
        Some(Self(object.clone()))
    }
}

fn pipeline() -> (Pipeline, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = Pipeline::new(&SERVER, &TOOLS);
    pipeline.check_setup().unwrap();
    pipeline
        .install_audit(AuditLog::open(&dir.path().join("audit.jsonl"), AUDIT).unwrap())
        .unwrap();
    (pipeline, dir)
}

fn audit(dir: &tempfile::TempDir) -> Vec<Value> {
    std::fs::read_to_string(dir.path().join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn call(arguments: Value) -> Call {
    Call::new(
        arguments.as_object().cloned(),
        None,
        CancellationToken::new(),
    )
}

/// Runs `refund`: the body counts its runs and answers with the run's number.
async fn refund(pipeline: &Pipeline, arguments: Value, runs: &AtomicU32) -> CallToolResult {
    pipeline
        .run(
            0,
            call(arguments),
            |args: Refund, _: CallContext| async move {
                let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
                Ok::<_, ToolError>(json!({"refunded": args.0["order"], "run": run}))
            },
        )
        .await
        .unwrap()
}

fn error_code(result: &CallToolResult) -> &str {
    result.structured_content.as_ref().unwrap()["error_code"]
        .as_str()
        .unwrap()
}

#[tokio::test]
async fn a_repeated_key_gets_the_first_reply_and_other_arguments_are_refused() {
    let (pipeline, dir) = pipeline();
    let runs = AtomicU32::new(0);
    let first = refund(&pipeline, json!({"request_id": "r1", "order": 42}), &runs).await;
    let again = refund(&pipeline, json!({"request_id": "r1", "order": 42}), &runs).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(again.structured_content, first.structured_content);
    assert_eq!(again.content, first.content);
    let replay = &again.meta.as_ref().expect("marked").0["harness/replay"];
    let records = audit(&dir);
    assert_eq!(replay["trace_id"], records[0]["trace_id"]);
    assert_eq!(replay["outcome"], "ok");
    // Another key runs; the first key with another order is refused, the body not run.
    refund(&pipeline, json!({"request_id": "r2", "order": 42}), &runs).await;
    let reused = refund(&pipeline, json!({"request_id": "r1", "order": 43}), &runs).await;
    assert_eq!(error_code(&reused), "IdempotencyKeyReused");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    let outcomes: Vec<_> = audit(&dir)
        .iter()
        .map(|record| record["outcome"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(outcomes, ["ok", "replayed", "ok", "idempotency_conflict"]);
    // A replay is a success in the counters.
    assert_eq!(pipeline.diagnostics()["tools"]["refund"]["errors"], 1);
}

#[tokio::test]
async fn a_repeat_while_the_first_call_runs_is_refused_and_then_replayed() {
    let (pipeline, dir) = pipeline();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel::<()>();
    let (release_tx, release_rx) = tokio::sync::oneshot::channel::<()>();
    let runs = AtomicU32::new(0);
    let arguments = json!({"request_id": "slow", "order": 1});
    let first = pipeline.run(0, call(arguments.clone()), |_: Refund, _: CallContext| {
        let runs = &runs;
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            started_tx.send(()).unwrap();
            release_rx.await.unwrap();
            Ok::<_, ToolError>(json!({"done": true}))
        }
    });
    let second = async {
        started_rx.await.unwrap();
        let busy = refund(&pipeline, arguments.clone(), &runs).await;
        release_tx.send(()).unwrap();
        busy
    };
    let (first, busy) = tokio::join!(first, second);
    assert_eq!(error_code(&busy), "IdempotencyKeyInFlight");
    let replay = refund(&pipeline, arguments, &runs).await;
    assert_eq!(replay.structured_content, first.unwrap().structured_content);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let records = audit(&dir);
    assert_eq!(records[0]["outcome"], "idempotency_conflict");
    assert_eq!(records[0]["error_code"], "IdempotencyKeyInFlight");
}

#[tokio::test]
async fn a_body_error_is_kept_and_a_refusal_before_the_body_is_not() {
    let (pipeline, _dir) = pipeline();
    let runs = AtomicU32::new(0);
    let failing = |_: Refund, _: CallContext| async {
        runs.fetch_add(1, Ordering::SeqCst);
        Err::<Value, _>(ToolError::new("PaymentDeclined", "the card was declined"))
    };
    let arguments = json!({"request_id": "e1", "order": 1});
    for _ in 0..2 {
        let result = pipeline
            .run(0, call(arguments.clone()), failing)
            .await
            .unwrap();
        assert_eq!(error_code(&result), "PaymentDeclined");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the error was replayed");
    // Refused by validation, the key is not taken: the valid call with it runs.
    let invalid = refund(&pipeline, json!({"request_id": 7, "order": 1}), &runs).await;
    assert_eq!(error_code(&invalid), "InvalidArguments");
    refund(&pipeline, json!({"request_id": "7", "order": 1}), &runs).await;
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn a_key_is_forgotten_after_its_window() {
    let (pipeline, _dir) = pipeline();
    let runs = AtomicU32::new(0);
    let arguments = json!({"request_id": "w1", "order": 1});
    refund(&pipeline, arguments.clone(), &runs).await;
    tokio::time::advance(Duration::from_secs(59)).await;
    refund(&pipeline, arguments.clone(), &runs).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1, "still within the window");
    tokio::time::advance(Duration::from_secs(2)).await;
    let fresh = refund(&pipeline, arguments, &runs).await;
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert!(fresh.meta.is_none(), "not a replay");
}
