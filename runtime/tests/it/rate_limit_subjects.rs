//! A rate limit per subject in a real Redis (`redis-server`, started by the test), shared by
//! two replicas: 1,000 concurrent calls from 10 token subjects, spread over both, admit
//! exactly the limit for each subject, and one subject's exhausted window leaves another's
//! allowance untouched.

use crate::common;

use std::collections::HashMap;
use std::sync::Arc;

use harness_runtime::auth::Caller;
use harness_runtime::spec::*;
use harness_runtime::validate::*;
use harness_runtime::{Call, CallContext, Pipeline, ToolError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use common::{GUARDS, SERVER, tool};

const URL_ENV: &str = "HARNESS_TEST_SUBJECT_LIMIT_REDIS_URL";

/// Calls each subject may make in the window.
const PER_SUBJECT: usize = 23;

static REPLICA: ServerSpec = ServerSpec {
    rate_limit_store: RateLimitStoreSpec {
        url_env: URL_ENV,
        timeout_ms: 2000,
        ..RateLimitStoreSpec::DEFAULT
    },
    ..SERVER
};

static TOOLS: [ToolSpec; 1] = [tool(
    "search",
    GuardSpec {
        rate_limit: Some(RateLimitSpec {
            calls: PER_SUBJECT as u32,
            period_seconds: 3600.0,
            backend: RateLimitBackend::Redis,
            per: RateLimitScope::Subject,
        }),
        ..GUARDS
    },
)];

fn call_by(subject: &str) -> Call {
    let caller = Caller::new(subject, vec![], None);
    Call::new(None, None, CancellationToken::new()).with_caller(Some(Arc::new(caller)))
}

/// Whether `replica` admitted a call of `subject` (a refusal is the RateLimited envelope).
async fn admitted(replica: &Pipeline, subject: &str) -> bool {
    let result = replica
        .run(
            0,
            call_by(subject),
            |_: NoArguments, _: CallContext| async { Ok::<_, ToolError>(Value::Bool(true)) },
        )
        .await
        .unwrap();
    match result.is_error {
        Some(true) => {
            let code = &result.structured_content.as_ref().unwrap()["error_code"];
            assert_eq!(code, "ToolRateLimitError", "{result:?}");
            false
        }
        _ => true,
    }
}

#[test]
fn each_subject_gets_exactly_its_own_limit_across_replicas() {
    if !common::alone(
        module_path!(),
        "each_subject_gets_exactly_its_own_limit_across_replicas",
    ) {
        return;
    }
    let redis = harness_test_support::RedisServer::start_new();
    // SAFETY: the only test of this process (`common::alone`), before any thread reads the
    // environment.
    unsafe { std::env::set_var(URL_ENV, redis.url()) };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let replicas = Arc::new([
            Pipeline::new(&REPLICA, &TOOLS),
            Pipeline::new(&REPLICA, &TOOLS),
        ]);
        replicas[0].check_setup().unwrap();
        let calls: Vec<_> = (0..1000)
            .map(|call| {
                let replicas = Arc::clone(&replicas);
                tokio::spawn(async move {
                    let subject = format!("client-{}", call % 10);
                    let was_admitted = admitted(&replicas[call % 2], &subject).await;
                    (subject, was_admitted)
                })
            })
            .collect();
        let mut counts: HashMap<String, usize> = HashMap::new();
        for call in calls {
            let (subject, was_admitted) = call.await.unwrap();
            *counts.entry(subject).or_default() += usize::from(was_admitted);
        }
        assert_eq!(counts.len(), 10);
        assert!(
            counts.values().all(|count| *count == PER_SUBJECT),
            "{counts:?}"
        );
        // A subject that never called still has its whole allowance.
        assert!(admitted(&replicas[1], "client-new").await);
    });
}
