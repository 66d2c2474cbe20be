//! Every body runs the same way, a tool's, a resource template's, a computed prompt's or a
//! completion's: under its guards' timeout, with panics caught (logged with where they
//! happened) and the client's cancellation honoured. And what a catalog body's own error
//! becomes, since those requests have no `isError` result: a JSON-RPC error carrying the
//! envelope's fields in `error.data`.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use rmcp::model::{ErrorCode, ErrorData};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::error::ToolError;
use crate::guards::redact;
use crate::pipeline::panic_capture;
use crate::pipeline::refusal::Refusal;
use crate::spec::GuardSpec;

/// Runs `body` under `guards`' timeout until it ends or `cancellation` fires; a timeout, a
/// cancellation or a panic (logged as `{kind} body panicked` with `name`, such as
/// `("prompt", name)`; `caught` is `guards.catch_unhandled`) is the refusal. Callers pass
/// `async move { body(..).await }`, so a panic while a body builds its future is caught too.
pub(crate) async fn run_guarded<T, Fut>(
    body: Fut,
    guards: &GuardSpec,
    cancellation: &CancellationToken,
    (kind, name): (&str, &str),
    trace_id: &str,
) -> Result<Result<T, ToolError>, Refusal>
where
    Fut: Future<Output = Result<T, ToolError>>,
{
    let guarded = AssertUnwindSafe(panic_capture::in_body(body)).catch_unwind();
    let timed = async {
        match guards.timeout_ms {
            Some(ms) => tokio::time::timeout(Duration::from_millis(ms), guarded)
                .await
                .ok(),
            None => Some(guarded.await),
        }
    };
    let finished = tokio::select! {
        finished = timed => finished,
        () = cancellation.cancelled() => return Err(Refusal::Cancelled),
    };
    match finished {
        None => Err(Refusal::Timeout(guards.timeout_ms.unwrap_or_default())),
        Some(Err(panic)) => {
            tracing::error!(
                trace_id,
                name,
                panic = panic_capture::panic_message(&panic),
                at = panic_capture::take_location().as_deref(),
                "{kind} body panicked"
            );
            Err(Refusal::Panic {
                caught: guards.catch_unhandled,
            })
        }
        Some(Ok(ended)) => Ok(ended),
    }
}

/// A body's own error as a JSON-RPC error: the message through the strip and redaction,
/// the envelope's fields and `extra` (the URI or prompt name) in `data`. `not_found` is the
/// JSON-RPC code for a body that says what was asked for does not exist.
pub(crate) fn body_error(
    error: &ToolError,
    guards: &GuardSpec,
    trace_id: &str,
    (key, value): (&str, &str),
    not_found: ErrorCode,
) -> ErrorData {
    let stripped = crate::guards::strip::sanitize(error.message(), true);
    let message = redact::apply(
        &stripped,
        redact::policy(guards),
        &mut redact::Redactions::default(),
    )
    .into_owned();
    let mut data = json!({
        "status": "error",
        "error_code": error.code(),
        "message": message,
        "trace_id": trace_id,
    });
    data[key] = value.into();
    let code = match error.outcome() {
        "not_found" => not_found,
        "invalid_arguments" => ErrorCode::INVALID_PARAMS,
        _ => ErrorCode::INTERNAL_ERROR,
    };
    ErrorData::new(code, message, Some(data))
}
