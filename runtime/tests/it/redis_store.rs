//! Rate limits kept in Redis, without a Redis: a missing or malformed URL stops the server at
//! startup with the variable named, and an unreachable Redis meets the manifest's
//! `when_unreachable` (refuse: an envelope and its own audit outcome; admit: the body runs).
//! The exact shared window against a real Redis is tested by examples/paging.

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};

use harness_runtime::SetupError;
use harness_runtime::audit::AuditLog;
use harness_runtime::guards::StoreError;
use harness_runtime::spec::RateLimitStoreSpec;
use harness_runtime::spec::*;
use harness_runtime::validate::*;
use harness_runtime::{Call, CallContext, Pipeline, ToolError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use common::{AUDIT, GUARDS, SERVER, tool};

const UNSET: &str = "HARNESS_TEST_REDIS_URL_UNSET";
const MALFORMED: &str = "HARNESS_TEST_REDIS_URL_MALFORMED";
const CLOSED: &str = "HARNESS_TEST_REDIS_URL_CLOSED";

/// A pipeline with one Redis-limited tool, its store read from `url_env`.
fn pipeline(url_env: &'static str, when_unreachable: StoreUnreachable) -> Pipeline {
    let server = Box::leak(Box::new(ServerSpec {
        rate_limit_store: RateLimitStoreSpec {
            url_env,
            timeout_ms: 200,
            when_unreachable,
            ..RateLimitStoreSpec::DEFAULT
        },
        ..SERVER
    }));
    let tools = Box::leak(Box::new([tool(
        "paged",
        GuardSpec {
            rate_limit: Some(RateLimitSpec {
                calls: 5,
                period_seconds: 60.0,
                backend: RateLimitBackend::Redis,
                per: RateLimitScope::Tool,
            }),
            ..GUARDS
        },
    )]));
    Pipeline::new(server, tools)
}

/// Runs the tool once; (error_code or "ok", whether the body ran, the audit record).
async fn run_once(pipeline: &Pipeline) -> (String, bool, Value) {
    let dir = tempfile::tempdir().unwrap();
    let audit_path = dir.path().join("audit.jsonl");
    pipeline
        .install_audit(AuditLog::open(&audit_path, AUDIT).unwrap())
        .unwrap();
    let runs = AtomicU32::new(0);
    let result = pipeline
        .run(
            0,
            Call::new(None, None, CancellationToken::new()),
            |_: NoArguments, _: CallContext| async {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok::<_, ToolError>("paged")
            },
        )
        .await
        .unwrap();
    let ending = match result.is_error {
        Some(true) => result.structured_content.unwrap()["error_code"]
            .as_str()
            .unwrap()
            .to_owned(),
        _ => "ok".to_owned(),
    };
    let record = std::fs::read_to_string(&audit_path).unwrap();
    let record = serde_json::from_str(record.lines().next().unwrap()).unwrap();
    (ending, runs.load(Ordering::SeqCst) == 1, record)
}

#[test]
fn setup_errors_name_the_variable_and_an_unreachable_redis_meets_the_policy() {
    if !common::alone(
        module_path!(),
        "setup_errors_name_the_variable_and_an_unreachable_redis_meets_the_policy",
    ) {
        return;
    }
    // Refuses connections for the whole test, and no parallel test can take it meanwhile.
    let closed = harness_test_support::ClosedPort::reserve();
    let closed_port = closed.port;
    // SAFETY: the only test of this process (`common::alone`), and no other thread runs yet.
    unsafe {
        std::env::remove_var(UNSET);
        std::env::set_var(MALFORMED, "redis://user:s3cret@127.0.0.1:notaport/0");
        std::env::set_var(CLOSED, format!("redis://127.0.0.1:{closed_port}/0"));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();

    let unset = pipeline(UNSET, StoreUnreachable::Refuse);
    let error = unset.check_setup().unwrap_err();
    assert!(matches!(
        error,
        SetupError::RateLimitStore(StoreError::MissingUrl { .. })
    ));
    assert_eq!(
        error.to_string(),
        "tool `paged` keeps its rate limit or idempotency keys in Redis, but $HARNESS_TEST_REDIS_URL_UNSET is not set: set it to the Redis URL, e.g. HARNESS_TEST_REDIS_URL_UNSET=redis://127.0.0.1:6379/0"
    );
    // Served anyway (e.g. embedded without the check), each call meets the policy.
    let (ending, ran, _) = runtime.block_on(run_once(&unset));
    assert_eq!((ending.as_str(), ran), ("RateLimitStoreUnavailable", false));

    let malformed = pipeline(MALFORMED, StoreUnreachable::Refuse);
    let error = malformed.check_setup().unwrap_err();
    assert!(
        matches!(error, SetupError::RateLimitStore(StoreError::BadUrl { .. })),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("$HARNESS_TEST_REDIS_URL_MALFORMED is not a Redis URL"),
        "{error}"
    );
    assert!(
        !error.to_string().contains("s3cret"),
        "the password leaked: {error}"
    );

    // Reachable URL, nobody listening: not a setup error; the policy decides each call.
    let refuse = pipeline(CLOSED, StoreUnreachable::Refuse);
    refuse.check_setup().unwrap();
    let (ending, ran, record) = runtime.block_on(run_once(&refuse));
    assert_eq!((ending.as_str(), ran), ("RateLimitStoreUnavailable", false));
    assert_eq!(record["outcome"], "rate_limit_unavailable");
    assert_eq!(record["error_code"], "RateLimitStoreUnavailable");

    let admit = pipeline(CLOSED, StoreUnreachable::Admit);
    let (ending, ran, record) = runtime.block_on(run_once(&admit));
    assert_eq!((ending.as_str(), ran), ("ok", true));
    assert_eq!(record["outcome"], "ok");
}
