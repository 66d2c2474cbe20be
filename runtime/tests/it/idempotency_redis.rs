//! Idempotency keys in a real Redis (`redis-server`, started by the test), shared by two
//! replicas: a key used on one is replayed on the other, refused there with other arguments
//! or while the first call still runs; with Redis gone, a call is refused rather than run
//! unchecked.

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};

use harness_runtime::spec::*;
use harness_runtime::validate::*;
use harness_runtime::{Call, CallContext, Pipeline, ToolError};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use common::{GUARDS, SERVER, tool};

const URL_ENV: &str = "HARNESS_TEST_IDEMPOTENCY_REDIS_URL";

static REPLICA: ServerSpec = ServerSpec {
    rate_limit_store: RateLimitStoreSpec {
        url_env: URL_ENV,
        timeout_ms: 500,
        ..RateLimitStoreSpec::DEFAULT
    },
    ..SERVER
};

static TOOLS: [ToolSpec; 1] = [ToolSpec {
    write: WriteSpec {
        confirm: false,
        idempotency: Some(IdempotencySpec {
            argument: "request_id",
            window_seconds: 600,
            backend: RateLimitBackend::Redis,
        }),
    },
    ..tool("refund", GUARDS)
}];

/// `refund`'s arguments, taken as they come.
#[derive(serde::Serialize)]
struct Refund(JsonObject);

impl FromArguments for Refund {
    fn from_arguments(object: &JsonObject, _: ArgPath<'_>, _: &mut ArgErrors) -> Option<Self> {
        Some(Self(object.clone()))
    }
}

fn call(arguments: &Value) -> Call {
    Call::new(
        arguments.as_object().cloned(),
        None,
        CancellationToken::new(),
    )
}

async fn refund(replica: &Pipeline, arguments: &Value, runs: &AtomicU32) -> CallToolResult {
    replica
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

fn error_code(result: &CallToolResult) -> Option<&str> {
    result.structured_content.as_ref()?["error_code"].as_str()
}

#[test]
fn replicas_share_their_keys_and_a_lost_redis_refuses() {
    if !common::alone(
        module_path!(),
        "replicas_share_their_keys_and_a_lost_redis_refuses",
    ) {
        return;
    }
    let mut redis = harness_test_support::RedisServer::start_new();
    // SAFETY: the only test of this process (`common::alone`), before any thread reads the
    // environment.
    unsafe { std::env::set_var(URL_ENV, redis.url()) };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (one, two) = (
            Pipeline::new(&REPLICA, &TOOLS),
            Pipeline::new(&REPLICA, &TOOLS),
        );
        one.check_setup().unwrap();
        let runs = AtomicU32::new(0);
        let arguments = json!({"request_id": "r-1", "order": 42});
        let first = refund(&one, &arguments, &runs).await;
        let replayed = refund(&two, &arguments, &runs).await;
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(replayed.structured_content, first.structured_content);
        assert!(replayed.meta.unwrap().0.contains_key("harness/replay"));
        let other = json!({"request_id": "r-1", "order": 43});
        let reused = refund(&two, &other, &runs).await;
        assert_eq!(error_code(&reused), Some("IdempotencyKeyReused"));

        // In flight on one replica: the other refuses, then replays once it finished.
        let (started_tx, started_rx) = tokio::sync::oneshot::channel::<()>();
        let (release_tx, release_rx) = tokio::sync::oneshot::channel::<()>();
        let slow = json!({"request_id": "r-2", "order": 7});
        let running = one.run(0, call(&slow), |_: Refund, _: CallContext| async {
            runs.fetch_add(1, Ordering::SeqCst);
            started_tx.send(()).unwrap();
            release_rx.await.unwrap();
            Ok::<_, ToolError>(json!({"slow": true}))
        });
        let other_replica = async {
            started_rx.await.unwrap();
            let busy = refund(&two, &slow, &runs).await;
            release_tx.send(()).unwrap();
            busy
        };
        let (finished, busy) = tokio::join!(running, other_replica);
        assert_eq!(error_code(&busy), Some("IdempotencyKeyInFlight"));
        let replayed = refund(&two, &slow, &runs).await;
        assert_eq!(
            replayed.structured_content,
            finished.unwrap().structured_content
        );
        assert_eq!(runs.load(Ordering::SeqCst), 2);

        // Without Redis the key cannot be checked: refused, never run unchecked.
        redis.stop();
        let lost = refund(&two, &json!({"request_id": "r-3", "order": 1}), &runs).await;
        assert_eq!(error_code(&lost), Some("IdempotencyStoreUnavailable"));
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    });
}
