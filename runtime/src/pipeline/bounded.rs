//! Every body runs the same way, a tool's, a resource template's, a computed prompt's or a
//! completion's: under its guards' timeout, with panics caught (logged with where they
//! happened) and the client's cancellation honoured. And what a catalog body's own error
//! becomes, since those requests have no `isError` result: a JSON-RPC error carrying the
//! envelope's fields in `error.data`.

use std::pin::Pin;
use std::task::{Context, Poll};
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

/// Runs `body` under `run`'s guards until it ends or the request is cancelled; a timeout, a
/// cancellation or a panic (logged as `{kind} body panicked` with the name) is the refusal.
/// Callers pass `async move { body(..).await }`, so a panic while a body builds its future is
/// caught too.
///
/// A future of its own rather than an `async fn`: an `async fn` keeps its argument in its
/// state beside the pinned body it moves it into, twice the body's size, and every caller's
/// future (the whole call, boxed once per call) grew by it.
pub(crate) fn run_bounded<'a, T, Fut>(
    body: Fut,
    run: BodyRun<'a>,
) -> impl Future<Output = Result<Result<T, ToolError>, Refusal>> + 'a
where
    Fut: Future<Output = Result<T, ToolError>> + 'a,
{
    let bounded = Bounded {
        body: panic_capture::caught(body),
        deadline: run
            .guards
            .timeout_ms
            .map(|ms| tokio::time::sleep(Duration::from_millis(ms))),
        cancelled: run.cancellation.cancelled(),
    };
    bounded.map(move |ended| match ended {
        Ended::Cancelled => Err(Refusal::Cancelled),
        Ended::TimedOut => Err(Refusal::Timeout(run.guards.timeout_ms.unwrap_or_default())),
        Ended::Ran(Err(panic)) => {
            tracing::error!(
                trace_id = run.trace_id,
                name = run.name,
                panic = panic_capture::panic_message(&panic),
                at = panic_capture::take_location().as_deref(),
                "{} body panicked",
                run.kind
            );
            Err(Refusal::Panic {
                caught: run.guards.catch_unhandled,
            })
        }
        Ended::Ran(Ok(ended)) => Ok(ended),
    })
}

/// How a bounded body ended.
enum Ended<T> {
    /// It returned, or panicked (caught).
    Ran(T),
    /// Its timeout ran out first.
    TimedOut,
    /// The call was cancelled first.
    Cancelled,
}

pin_project_lite::pin_project! {
    /// A body, its deadline and its call's cancellation, polled together: whichever ends
    /// first ends the run (the body is polled first, as `tokio::time::timeout` does).
    struct Bounded<'a, Fut> {
        #[pin]
        body: panic_capture::Caught<Fut>,
        #[pin]
        deadline: Option<tokio::time::Sleep>,
        #[pin]
        cancelled: tokio_util::sync::WaitForCancellationFuture<'a>,
    }
}

impl<Fut: Future> Future for Bounded<'_, Fut> {
    type Output = Ended<<panic_capture::Caught<Fut> as Future>::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(ran) = this.body.poll(cx) {
            return Poll::Ready(Ended::Ran(ran));
        }
        if this.cancelled.poll(cx).is_ready() {
            return Poll::Ready(Ended::Cancelled);
        }
        match this.deadline.as_pin_mut().map(|deadline| deadline.poll(cx)) {
            Some(Poll::Ready(())) => Poll::Ready(Ended::TimedOut),
            _ => Poll::Pending,
        }
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
