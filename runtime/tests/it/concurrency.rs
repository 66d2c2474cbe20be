//! Load shedding: `max_concurrent` per tool and `[server] max_in_flight`. Bodies are held on a
//! gate the test opens; the call past the bound is refused at once with its code and audit
//! outcome, and admitted again once a place is given back, however the holder ended.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use harness_runtime::audit::AuditLog;
use harness_runtime::spec::*;
use harness_runtime::validate::{ArgErrors, ArgPath, FromArguments, JsonObject, NoArguments};
use harness_runtime::{Call, CallContext, Pipeline, ToolError};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::common;

use common::{AUDIT, GUARDS, SERVER, tool};

const PAIR: usize = 0;
const SINGLE_TIMED: usize = 1;
const SINGLE: usize = 2;
const FREE: usize = 3;
const REFUND: usize = 4;

static TOOLS: [ToolSpec; 5] = [
    tool(
        "pair",
        GuardSpec {
            max_concurrent: Some(2),
            ..GUARDS
        },
    ),
    tool(
        "single_timed",
        GuardSpec {
            max_concurrent: Some(1),
            timeout_ms: Some(1_000),
            ..GUARDS
        },
    ),
    tool(
        "single",
        GuardSpec {
            max_concurrent: Some(1),
            ..GUARDS
        },
    ),
    tool("free", GUARDS),
    ToolSpec {
        write: WriteSpec {
            confirm: false,
            idempotency: Some(IdempotencySpec {
                argument: "request_id",
                window_seconds: 60,
                backend: RateLimitBackend::Memory,
            }),
        },
        ..tool(
            "refund",
            GuardSpec {
                max_concurrent: Some(1),
                ..GUARDS
            },
        )
    },
];

/// `refund`'s arguments: any object (the idempotency key is read from it).
#[derive(serde::Serialize)]
struct Refund(JsonObject);

impl FromArguments for Refund {
    fn from_arguments(object: &JsonObject, _: ArgPath<'_>, _: &mut ArgErrors) -> Option<Self> {
        Some(Self(object.clone()))
    }
}

/// Two calls in flight at most, whichever tools they call.
static BUSY_SERVER: ServerSpec = ServerSpec {
    max_in_flight: Some(2),
    ..SERVER
};

/// Bodies that say when they start and wait until the test lets them finish.
struct Gate {
    entered: mpsc::UnboundedSender<()>,
    started: mpsc::UnboundedReceiver<()>,
    open: Arc<Semaphore>,
}

impl Gate {
    fn new() -> Self {
        let (entered, started) = mpsc::unbounded_channel();
        Self {
            entered,
            started,
            open: Arc::new(Semaphore::new(0)),
        }
    }

    /// Starts a call of tool `index` whose body holds until the gate opens, and waits until
    /// the body runs.
    async fn hold(
        &mut self,
        pipeline: &'static Pipeline,
        index: usize,
        cancellation: CancellationToken,
    ) -> JoinHandle<CallToolResult> {
        self.hold_with::<NoArguments>(pipeline, (index, JsonObject::new()), cancellation)
            .await
    }

    /// [`Gate::hold`] with these arguments, validated as `A`.
    async fn hold_with<A: FromArguments + serde::Serialize + Send + 'static>(
        &mut self,
        pipeline: &'static Pipeline,
        (index, arguments): (usize, JsonObject),
        cancellation: CancellationToken,
    ) -> JoinHandle<CallToolResult> {
        let (entered, open) = (self.entered.clone(), Arc::clone(&self.open));
        let body = move |_: A, _: CallContext| async move {
            entered.send(()).expect("the test listens");
            open.acquire().await.expect("never closed").forget();
            Ok::<_, ToolError>("done")
        };
        let call = Call::new(Some(arguments), None, cancellation);
        let running = tokio::spawn(async move { pipeline.run(index, call, body).await.unwrap() });
        self.started.recv().await.expect("the body started");
        running
    }

    /// Lets `bodies` held bodies finish.
    fn release(&self, bodies: usize) {
        self.open.add_permits(bodies);
    }
}

/// A pipeline over `server` that lives as long as the test's tasks, auditing into a
/// directory that goes when the test ends.
fn pipeline(server: &'static ServerSpec) -> (&'static Pipeline, tempfile::TempDir) {
    let dir = tempfile::Builder::new()
        .prefix("harness-concurrency-")
        .tempdir()
        .unwrap();
    let pipeline: &'static Pipeline = Box::leak(Box::new(Pipeline::new(server, &TOOLS)));
    pipeline
        .install_audit(AuditLog::open(&dir.path().join("audit.jsonl"), AUDIT).unwrap())
        .unwrap();
    (pipeline, dir)
}

fn audit_outcomes(dir: &tempfile::TempDir) -> Vec<String> {
    std::fs::read_to_string(dir.path().join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["outcome"].to_string())
        .collect()
}

/// Calls tool `index` with a body that returns at once, counting in `runs` when it ran.
async fn quick(pipeline: &Pipeline, index: usize, runs: &AtomicU32) -> CallToolResult {
    let call = Call::new(Some(Default::default()), None, CancellationToken::new());
    let body = |_: NoArguments, _: CallContext| async {
        runs.fetch_add(1, Ordering::SeqCst);
        Ok::<_, ToolError>("quick")
    };
    pipeline.run(index, call, body).await.unwrap()
}

fn error_code(result: &CallToolResult) -> Option<&str> {
    result.structured_content.as_ref()?["error_code"].as_str()
}

fn message(result: &CallToolResult) -> &str {
    result.structured_content.as_ref().expect("an envelope")["message"]
        .as_str()
        .expect("a message")
}

#[tokio::test]
async fn the_call_past_max_concurrent_is_refused_at_once_and_admitted_once_a_place_is_free() {
    let (pipeline, audit) = pipeline(&SERVER);
    let mut gate = Gate::new();
    let held = [
        gate.hold(pipeline, PAIR, CancellationToken::new()).await,
        gate.hold(pipeline, PAIR, CancellationToken::new()).await,
    ];
    let runs = AtomicU32::new(0);
    let refused = quick(pipeline, PAIR, &runs).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(error_code(&refused), Some("ToolBusy"));
    assert!(message(&refused).contains("2 calls at once"), "{refused:?}");
    assert!(message(&refused).contains("Retry"), "{refused:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "a refused body never runs");
    // Another tool has places of its own.
    assert_eq!(quick(pipeline, FREE, &runs).await.is_error, Some(false));
    gate.release(2);
    for call in held {
        assert_eq!(call.await.unwrap().is_error, Some(false));
    }
    assert_eq!(quick(pipeline, PAIR, &runs).await.is_error, Some(false));
    assert_eq!(
        audit_outcomes(&audit),
        ["\"busy\"", "\"ok\"", "\"ok\"", "\"ok\"", "\"ok\""]
    );
}

#[tokio::test]
async fn a_body_that_panics_gives_its_place_back() {
    let (pipeline, _audit) = pipeline(&SERVER);
    let call = Call::new(Some(Default::default()), None, CancellationToken::new());
    let panicked = pipeline
        .run(SINGLE, call, |_: NoArguments, _| async {
            panic!("boom") as Result<Value, ToolError>
        })
        .await
        .unwrap();
    assert_eq!(error_code(&panicked), Some("InternalError"));
    let runs = AtomicU32::new(0);
    assert_eq!(quick(pipeline, SINGLE, &runs).await.is_error, Some(false));
}

#[tokio::test(start_paused = true)]
async fn a_body_that_times_out_gives_its_place_back() {
    let (pipeline, _audit) = pipeline(&SERVER);
    let mut gate = Gate::new();
    // Never released: the paused clock runs to the timeout once every task waits.
    let held = gate
        .hold(pipeline, SINGLE_TIMED, CancellationToken::new())
        .await;
    let timed_out = held.await.unwrap();
    assert_eq!(error_code(&timed_out), Some("ToolTimeoutError"));
    let runs = AtomicU32::new(0);
    let again = quick(pipeline, SINGLE_TIMED, &runs).await;
    assert_eq!(again.is_error, Some(false), "{again:?}");
}

#[tokio::test]
async fn a_cancelled_call_and_a_dropped_one_give_their_places_back() {
    let (pipeline, _audit) = pipeline(&SERVER);
    let mut gate = Gate::new();
    let runs = AtomicU32::new(0);
    let cancellation = CancellationToken::new();
    let held = gate.hold(pipeline, SINGLE, cancellation.clone()).await;
    assert_eq!(
        error_code(&quick(pipeline, SINGLE, &runs).await),
        Some("ToolBusy")
    );
    cancellation.cancel();
    assert_eq!(error_code(&held.await.unwrap()), Some("Cancelled"));
    // A call whose future is dropped (its connection gone) gives its place back too.
    let held = gate.hold(pipeline, SINGLE, CancellationToken::new()).await;
    held.abort();
    assert!(held.await.unwrap_err().is_cancelled());
    assert_eq!(quick(pipeline, SINGLE, &runs).await.is_error, Some(false));
}

#[tokio::test]
async fn max_in_flight_sheds_the_call_past_it_across_tools_until_one_finishes() {
    let (pipeline, audit) = pipeline(&BUSY_SERVER);
    let mut gate = Gate::new();
    let held = [
        gate.hold(pipeline, FREE, CancellationToken::new()).await,
        gate.hold(pipeline, PAIR, CancellationToken::new()).await,
    ];
    let runs = AtomicU32::new(0);
    let shed = quick(pipeline, SINGLE, &runs).await;
    assert_eq!(error_code(&shed), Some("ServerBusy"));
    assert!(message(&shed).contains("2 calls in flight"), "{shed:?}");
    assert!(message(&shed).contains("Retry"), "{shed:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "a shed body never runs");
    gate.release(2);
    for call in held {
        assert_eq!(call.await.unwrap().is_error, Some(false));
    }
    assert_eq!(quick(pipeline, SINGLE, &runs).await.is_error, Some(false));
    assert_eq!(
        audit_outcomes(&audit),
        ["\"shed\"", "\"ok\"", "\"ok\"", "\"ok\""]
    );
}

#[tokio::test]
async fn an_idempotency_key_refused_as_busy_is_not_kept_and_its_retry_runs() {
    let (pipeline, audit) = pipeline(&SERVER);
    let mut gate = Gate::new();
    let key = |id: &str| json!({ "request_id": id }).as_object().cloned().unwrap();
    let held = gate
        .hold_with::<Refund>(pipeline, (REFUND, key("first")), CancellationToken::new())
        .await;
    let runs = AtomicU32::new(0);
    let refund = |id: &'static str| {
        let call = Call::new(Some(key(id)), None, CancellationToken::new());
        let runs = &runs;
        pipeline.run(REFUND, call, move |_: Refund, _: CallContext| async move {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ToolError>("refunded")
        })
    };
    assert_eq!(
        error_code(&refund("second").await.unwrap()),
        Some("ToolBusy")
    );
    gate.release(1);
    assert_eq!(held.await.unwrap().is_error, Some(false));
    // Neither the busy reply replayed nor the key still held as running: the body runs now.
    let retried = refund("second").await.unwrap();
    assert_eq!(retried.is_error, Some(false), "{retried:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(audit_outcomes(&audit), ["\"busy\"", "\"ok\"", "\"ok\""]);
}
