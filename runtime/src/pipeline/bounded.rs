//! Every body runs the same way, a tool's, a resource template's, a computed prompt's or a
//! completion's: under its guards' timeout, with panics caught (logged with where they
//! happened) and the client's cancellation honoured. And what a catalog body's own error
//! becomes, since those requests have no `isError` result: a JSON-RPC error carrying the
//! envelope's fields in `error.data`.

use std::time::Duration;

use rmcp::model::{ErrorCode, ErrorData};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::error::ToolError;
use crate::guards::redact;
use crate::pipeline::panic_capture;
use crate::pipeline::refusal::Refusal;
use crate::spec::GuardSpec;

/// One body about to run: which (for the log), under which guards, until which cancellation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyRun<'a> {
    /// What kind of body: `tool`, `resource` (a template's or an upstream's read), `prompt` or
    /// `completion`.
    pub(crate) kind: &'static str,
    /// The tool's, template's or prompt's name, or the completion's target.
    pub(crate) name: &'a str,
    /// Its guards: the timeout, and whether a panic is caught (`catch_unhandled`).
    pub(crate) guards: &'a GuardSpec,
    /// The client's cancellation of the request.
    pub(crate) cancellation: &'a CancellationToken,
    /// The request's trace id.
    pub(crate) trace_id: &'a str,
}

/// What a catalog request asked for, as its error's `data` names it: `uri`, `name` or `ref`,
/// and its value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AskedFor<'a> {
    /// The key in `error.data`.
    pub(crate) field: &'static str,
    /// What the request named.
    pub(crate) value: &'a str,
}

/// Runs `body` under its guards' timeout until it ends or the request is cancelled; a
/// timeout, a cancellation or a panic (logged as `{kind} body panicked` with the name) is the
/// refusal. Callers pass `async move { body(..).await }`, so a panic while a body builds its
/// future is caught too.
pub(crate) async fn run_bounded<T, Fut>(
    body: Fut,
    run: BodyRun<'_>,
) -> Result<Result<T, ToolError>, Refusal>
where
    Fut: Future<Output = Result<T, ToolError>>,
{
    let BodyRun {
        kind,
        name,
        guards,
        cancellation,
        trace_id,
    } = run;
    // Pinned once and awaited by reference, so the body's future is held in one place.
    let mut guarded = std::pin::pin!(panic_capture::caught(body));
    let timed = async {
        match guards.timeout_ms {
            Some(ms) => tokio::time::timeout(Duration::from_millis(ms), guarded.as_mut())
                .await
                .ok(),
            None => Some(guarded.as_mut().await),
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
/// the envelope's fields and what was asked for in `data`. `not_found` is the
/// JSON-RPC code for a body that says what was asked for does not exist.
pub(crate) fn body_error(
    error: &ToolError,
    guards: &GuardSpec,
    trace_id: &str,
    asked: AskedFor<'_>,
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
    data[asked.field] = asked.value.into();
    let code = match error.outcome() {
        "not_found" => not_found,
        "invalid_arguments" => ErrorCode::INVALID_PARAMS,
        _ => ErrorCode::INTERNAL_ERROR,
    };
    ErrorData::new(code, message, Some(data))
}
