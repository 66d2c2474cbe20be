//! Every way the harness itself refuses or fails a call, in one table: each refusal's error
//! code (what the model reads), its audit outcome, how it reaches the client (the error
//! envelope, or a JSON-RPC error) and the shape of its message. A tool body's own errors carry
//! their code and outcome with them ([`crate::error::ToolError`]) and are not listed here.

use std::borrow::Cow;

use harness_contract::HarnessOutcome;
use rmcp::model::ErrorData;

use crate::content::guard::ContentRefusal;
use crate::guards::schema_cap::TooLarge;
use crate::guards::tabular;
use crate::pipeline::envelope::codes;
use crate::validate::{ArgErrors, quote_client_text};

/// A refusal by the harness, with what its message needs.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The tool's rate limit is spent; the limiter's message says when to retry.
    RateLimited(String),
    /// Redis could not be asked and the manifest says refuse.
    RateLimitStoreUnavailable,
    /// The tool already runs its `max_concurrent` (the value) calls.
    ToolBusy(u32),
    /// The server already has its `max_in_flight` (the value) calls in flight.
    ServerBusy(u32),
    /// The arguments failed strict validation.
    InvalidArguments(ArgErrors),
    /// The client cancelled the call.
    Cancelled,
    /// The body ran past the tool's timeout (milliseconds).
    Timeout(u64),
    /// The body panicked; `caught` is the manifest's `catch_unhandled`.
    Panic { caught: bool },
    /// The body's output does not serialize to JSON.
    OutputNotJson,
    /// The result held a table and the tabular blockade refuses tables: the seed's
    /// `TokenStarvationError`, audited with the other output guards' refusals as `blocked`.
    TokenStarvation,
    /// An output guard on content blocks refused the result.
    Content(ContentRefusal),
    /// A declared result that no cut within its schema brings under the char cap.
    ResultTooLarge(TooLarge),
    /// A declared result that, guarded, does not fit its schema: a bug in the body (or a
    /// secret redacted inside a constrained field); the problems are in the server log only.
    ResultInvalid,
    /// The client named a tool the server does not publish.
    UnknownTool(String),
    /// The request state of an earlier round is altered, expired or sealed for another call.
    InvalidRequestState(String),
    /// `resources/read` of a URI no resource or template has.
    UnknownResource(String),
    /// `prompts/get` or `completion/complete` of a prompt (or template) the server does not
    /// have.
    UnknownPrompt(String),
    /// A `confirm = true` tool whose confirmation did not say yes; the body never ran.
    NotConfirmed(NotConfirmed),
    /// An idempotency key already used with other arguments.
    IdempotencyKeyReused,
    /// An idempotency key whose first call still runs.
    IdempotencyKeyInFlight,
    /// The idempotency store gave no answer (Redis unreachable, or full of running calls).
    IdempotencyStoreUnavailable,
    /// The gateway could not carry the call to its upstream, or the upstream failed it.
    Upstream(UpstreamFailure),
    /// A tool that runs only as a task, called by a request that did not declare the tasks
    /// extension.
    TaskRequired,
    /// The tool already has its `max_alive` (the value) tasks alive.
    TooManyTasks(u32),
    /// A task outlived its time to live (milliseconds) and was stopped.
    TaskExpired(u64),
    /// The task store (Redis) gave no answer, so no task was created.
    TaskStoreUnavailable,
}

/// How a gateway's call to its upstream failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UpstreamFailure {
    /// The upstream is not connected (not started yet, or exited).
    NotConnected,
    /// The request could not reach the upstream.
    Unreachable,
    /// The upstream did not answer within its `timeout_ms` (the value, when the gateway's
    /// own clock ran out; none when the client library's did).
    NoAnswer(Option<u64>),
    /// The upstream answered with an error, or with what the gateway cannot carry: the
    /// message, the upstream's own text already stripped and cut.
    Failed(Cow<'static, str>),
    /// The upstream's result holds content the gateway does not carry (the message says
    /// which), so no guard could check it: refused as an output guard refuses.
    NotCarried(&'static str),
    /// The tool's definition upstream is not the pinned one (`checked`), or could not be
    /// compared with it, and `on_drift` refuses.
    Drifted { checked: bool },
}

#[cfg(feature = "gateway")]
impl Refusal {
    /// The refusal as the error a tool body returns: the gateway's upstream call is the body
    /// of an upstream tool, so its failures travel as a body's errors do, with the table's
    /// code, outcome and message.
    pub(crate) fn into_tool_error(self) -> crate::error::ToolError {
        let row = self.row();
        crate::error::ToolError::new(row.code, row.message).with_outcome(row.outcome.as_str())
    }
}

/// Why a confirmation did not let the body run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotConfirmed {
    /// The user declined (or answered no).
    Declined,
    /// The user dismissed the question.
    Cancelled,
    /// The client cannot be asked: no elicitation capability, or a transport without a way
    /// to ask.
    Unavailable,
    /// The client did not answer, or answered something that is not the form.
    NoAnswer,
}

/// How a refusal reaches the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reply {
    /// A result with `isError: true` carrying the error envelope, so the model can correct
    /// itself.
    Envelope,
    /// A JSON-RPC internal error (-32603).
    InternalError,
    /// A JSON-RPC invalid-params error (-32602).
    InvalidParams,
    /// The specification's resource-not-found error (-32002; rmcp answers -32602 on
    /// 2026-07-28, as that revision asks).
    ResourceNotFound,
    /// The tasks extension's missing-capability error (-32021), naming the extension in
    /// `data.requiredCapabilities`.
    TasksRequired,
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct Row {
    /// The envelope's `error_code`, and the audit record's.
    pub(crate) code: &'static str,
    /// The audit outcome.
    pub(crate) outcome: HarnessOutcome,
    /// Envelope or JSON-RPC error.
    pub(crate) reply: Reply,
    /// The message the model reads, before the envelope's output guards.
    pub(crate) message: Cow<'static, str>,
}

impl Refusal {
    /// The table.
    pub(crate) fn row(self) -> Row {
        use HarnessOutcome as Audit;
        use Reply::{Envelope, InternalError, InvalidParams, ResourceNotFound, TasksRequired};
        let (code, outcome, reply, message): (_, _, _, Cow<'static, str>) = match self {
            Self::RateLimited(message) => (
                codes::RATE_LIMITED,
                Audit::RateLimited,
                Envelope,
                message.into(),
            ),
            Self::RateLimitStoreUnavailable => (
                codes::RATE_LIMIT_STORE_UNAVAILABLE,
                Audit::RateLimitUnavailable,
                Envelope,
                "The rate limit could not be checked, so the call was not run. Retry shortly."
                    .into(),
            ),
            Self::ToolBusy(max) => (
                codes::TOOL_BUSY,
                Audit::Busy,
                Envelope,
                format!("This tool already runs {max} calls at once, its limit, so this one did not run. Retry in a few seconds, or once an earlier call has finished.").into(),
            ),
            Self::ServerBusy(max) => (
                codes::SERVER_BUSY,
                Audit::Shed,
                Envelope,
                format!("The server is busy ({max} calls in flight, its limit), so this call did not run. Retry in a few seconds.").into(),
            ),
            Self::InvalidArguments(errors) => (
                codes::INVALID_ARGUMENTS,
                Audit::InvalidArguments,
                Envelope,
                format!("invalid arguments: {errors}").into(),
            ),
            Self::Cancelled => (
                codes::CANCELLED,
                Audit::Cancelled,
                Envelope,
                "The call was cancelled.".into(),
            ),
            Self::Timeout(ms) => (
                codes::TIMEOUT,
                Audit::Timeout,
                Envelope,
                format!("Tool call timed out after {ms} ms.").into(),
            ),
            Self::Panic { caught } => (
                codes::INTERNAL_ERROR,
                Audit::Panic,
                if caught { Envelope } else { InternalError },
                "internal error".into(),
            ),
            Self::OutputNotJson => (
                codes::INTERNAL_ERROR,
                Audit::Error,
                Envelope,
                "internal error".into(),
            ),
            Self::Upstream(failure) => match failure {
                UpstreamFailure::NotConnected => (
                    codes::UPSTREAM_UNAVAILABLE,
                    Audit::Error,
                    Envelope,
                    "the upstream is not connected".into(),
                ),
                UpstreamFailure::Unreachable => (
                    codes::UPSTREAM_UNAVAILABLE,
                    Audit::Error,
                    Envelope,
                    "the upstream is not reachable".into(),
                ),
                UpstreamFailure::NoAnswer(within) => (
                    codes::UPSTREAM_TIMEOUT,
                    Audit::Timeout,
                    Envelope,
                    match within {
                        Some(ms) => format!("the upstream did not answer within {ms} ms").into(),
                        None => "the upstream did not answer in time".into(),
                    },
                ),
                UpstreamFailure::Failed(message) => {
                    (codes::UPSTREAM_ERROR, Audit::Error, Envelope, message)
                }
                UpstreamFailure::NotCarried(what) => {
                    (codes::UPSTREAM_ERROR, Audit::Blocked, Envelope, what.into())
                }
                UpstreamFailure::Drifted { checked } => (
                    codes::UPSTREAM_DRIFT,
                    Audit::Blocked,
                    Envelope,
                    if checked {
                        "the upstream changed this definition since it was pinned; it is refused until the pin is reviewed"
                    } else {
                        "the upstream's definition could not be checked against its pin"
                    }
                    .into(),
                ),
            },
            Self::TokenStarvation => (
                codes::TOKEN_STARVATION,
                Audit::Blocked,
                Envelope,
                tabular::BLOCK_MESSAGE.into(),
            ),
            Self::Content(ContentRefusal::TooLarge { bytes, max }) => (
                codes::OUTPUT_TOO_LARGE,
                Audit::Blocked,
                Envelope,
                format!("The result carried {bytes} bytes of binary content; this tool returns at most {max}. Ask for less.").into(),
            ),
            Self::Content(ContentRefusal::MimeNotAllowed(mime)) => (
                codes::CONTENT_NOT_ALLOWED,
                Audit::Blocked,
                Envelope,
                format!("The result carried content of type {}, which this tool does not return.", quote_client_text(&mime)).into(),
            ),
            Self::Content(ContentRefusal::SchemeNotAllowed(uri)) => (
                codes::CONTENT_NOT_ALLOWED,
                Audit::Blocked,
                Envelope,
                format!("The result linked to {}, whose URI scheme this tool does not link to.", quote_client_text(&uri)).into(),
            ),
            Self::ResultTooLarge(TooLarge { chars, max, floor }) => (
                codes::OUTPUT_TOO_LARGE,
                Audit::Blocked,
                Envelope,
                format!("The result is {chars} characters of JSON; this tool returns at most {max}, and the fields that may be shortened leave at least {floor}. Ask for less.").into(),
            ),
            Self::ResultInvalid => (
                codes::INTERNAL_ERROR,
                Audit::Error,
                Envelope,
                "internal error".into(),
            ),
            // A body bug; the reason is in the server log only.
            Self::Content(ContentRefusal::InvalidBase64(_)) => (
                codes::INTERNAL_ERROR,
                Audit::Error,
                Envelope,
                "internal error".into(),
            ),
            // The name is sanitized and quoted at most 40 characters, like every client
            // string in a message.
            Self::UnknownTool(name) => (
                codes::UNKNOWN_TOOL,
                Audit::UnknownTool,
                InvalidParams,
                format!("unknown tool: {}", quote_client_text(&name)).into(),
            ),
            Self::InvalidRequestState(reason) => (
                codes::INVALID_REQUEST_STATE,
                Audit::InvalidArguments,
                InvalidParams,
                format!("invalid request state: {reason}; start the call again without it").into(),
            ),
            Self::UnknownResource(uri) => (
                codes::RESOURCE_NOT_FOUND,
                Audit::NotFound,
                ResourceNotFound,
                format!("unknown resource: {}", quote_client_text(&uri)).into(),
            ),
            Self::UnknownPrompt(name) => (
                codes::UNKNOWN_PROMPT,
                Audit::NotFound,
                InvalidParams,
                format!("unknown prompt: {}", quote_client_text(&name)).into(),
            ),
            Self::NotConfirmed(why) => (
                codes::NOT_CONFIRMED,
                Audit::NotConfirmed,
                Envelope,
                match why {
                    NotConfirmed::Declined => "The user declined to run this tool; it did not run.",
                    NotConfirmed::Cancelled => "The user dismissed the confirmation; the tool did not run.",
                    NotConfirmed::Unavailable => "This tool runs only once the user confirms, and this client cannot be asked (it declares no elicitation); it did not run.",
                    NotConfirmed::NoAnswer => "The client did not answer the confirmation; the tool did not run.",
                }
                .into(),
            ),
            Self::IdempotencyKeyReused => (
                codes::IDEMPOTENCY_KEY_REUSED,
                Audit::IdempotencyConflict,
                Envelope,
                "This idempotency key was already used with other arguments; a new request takes a new key.".into(),
            ),
            Self::IdempotencyKeyInFlight => (
                codes::IDEMPOTENCY_KEY_IN_FLIGHT,
                Audit::IdempotencyConflict,
                Envelope,
                "A call with this idempotency key is still running; retry once it has finished to get its result.".into(),
            ),
            Self::IdempotencyStoreUnavailable => (
                codes::IDEMPOTENCY_STORE_UNAVAILABLE,
                Audit::Error,
                Envelope,
                "The idempotency key could not be checked, so the call was not run. Retry shortly with the same key.".into(),
            ),
            Self::TaskRequired => (
                codes::TASK_REQUIRED,
                Audit::Error,
                TasksRequired,
                "This tool runs only as a task; declare the tasks extension (io.modelcontextprotocol/tasks) in the request's client capabilities.".into(),
            ),
            Self::TooManyTasks(max) => (
                codes::TOO_MANY_TASKS,
                Audit::Busy,
                Envelope,
                format!("This tool already has {max} tasks running, its limit, so no task was created. Retry once an earlier task has finished.").into(),
            ),
            Self::TaskExpired(ttl_ms) => (
                codes::TASK_EXPIRED,
                Audit::Expired,
                InternalError,
                format!("The task outlived its time to live ({ttl_ms} ms) and was stopped.").into(),
            ),
            Self::TaskStoreUnavailable => (
                codes::TASK_STORE_UNAVAILABLE,
                Audit::Error,
                Envelope,
                "The task store did not answer, so no task was created and nothing ran. Retry shortly.".into(),
            ),
        };
        Row {
            code,
            outcome,
            reply,
            message,
        }
    }
}

impl Row {
    /// The JSON-RPC error of a row whose reply is not the envelope.
    pub(crate) fn json_rpc_error(&self) -> Option<ErrorData> {
        match self.reply {
            Reply::Envelope => None,
            Reply::InternalError => Some(ErrorData::internal_error(self.message.clone(), None)),
            Reply::InvalidParams => Some(ErrorData::invalid_params(self.message.clone(), None)),
            Reply::ResourceNotFound => {
                Some(ErrorData::resource_not_found(self.message.clone(), None))
            }
            Reply::TasksRequired => {
                let mut error = ErrorData::missing_required_client_capability(
                    rmcp::model::ClientCapabilities::builder()
                        .enable_tasks()
                        .build(),
                );
                error.message = self.message.clone();
                Some(error)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_envelope_code_appears_in_one_row_with_its_outcome() {
        let rows = [
            Refusal::RateLimited("Retry after 3 s.".into()),
            Refusal::RateLimitStoreUnavailable,
            Refusal::ToolBusy(2),
            Refusal::ServerBusy(256),
            Refusal::InvalidArguments(ArgErrors::default()),
            Refusal::Cancelled,
            Refusal::Timeout(5),
            Refusal::Panic { caught: true },
            Refusal::OutputNotJson,
            Refusal::TokenStarvation,
            Refusal::Content(ContentRefusal::TooLarge { bytes: 2, max: 1 }),
            Refusal::Content(ContentRefusal::MimeNotAllowed("image/svg+xml".into())),
            Refusal::Content(ContentRefusal::SchemeNotAllowed("file:///x".into())),
            Refusal::Content(ContentRefusal::InvalidBase64("bad".into())),
            Refusal::ResultTooLarge(TooLarge {
                chars: 3,
                max: 2,
                floor: 3,
            }),
            Refusal::ResultInvalid,
            Refusal::UnknownTool("x".into()),
            Refusal::InvalidRequestState("expired".into()),
            Refusal::UnknownResource("test://x".into()),
            Refusal::UnknownPrompt("x".into()),
            Refusal::NotConfirmed(NotConfirmed::Declined),
            Refusal::IdempotencyKeyReused,
            Refusal::IdempotencyKeyInFlight,
            Refusal::IdempotencyStoreUnavailable,
            Refusal::Upstream(UpstreamFailure::NotConnected),
            Refusal::Upstream(UpstreamFailure::Unreachable),
            Refusal::Upstream(UpstreamFailure::NoAnswer(Some(5))),
            Refusal::Upstream(UpstreamFailure::NoAnswer(None)),
            Refusal::Upstream(UpstreamFailure::Failed("failed".into())),
            Refusal::Upstream(UpstreamFailure::NotCarried("audio")),
            Refusal::Upstream(UpstreamFailure::Drifted { checked: true }),
            Refusal::Upstream(UpstreamFailure::Drifted { checked: false }),
            Refusal::TaskRequired,
            Refusal::TooManyTasks(2),
            Refusal::TaskExpired(1000),
            Refusal::TaskStoreUnavailable,
        ]
        .map(|refusal| {
            let row = refusal.row();
            (row.code, row.outcome.as_str(), row.reply)
        });
        assert_eq!(
            rows,
            [
                ("ToolRateLimitError", "rate_limited", Reply::Envelope),
                (
                    "RateLimitStoreUnavailable",
                    "rate_limit_unavailable",
                    Reply::Envelope
                ),
                ("ToolBusy", "busy", Reply::Envelope),
                ("ServerBusy", "shed", Reply::Envelope),
                ("InvalidArguments", "invalid_arguments", Reply::Envelope),
                ("Cancelled", "cancelled", Reply::Envelope),
                ("ToolTimeoutError", "timeout", Reply::Envelope),
                ("InternalError", "panic", Reply::Envelope),
                ("InternalError", "error", Reply::Envelope),
                ("TokenStarvationError", "blocked", Reply::Envelope),
                ("OutputTooLarge", "blocked", Reply::Envelope),
                ("ContentNotAllowed", "blocked", Reply::Envelope),
                ("ContentNotAllowed", "blocked", Reply::Envelope),
                ("InternalError", "error", Reply::Envelope),
                ("OutputTooLarge", "blocked", Reply::Envelope),
                ("InternalError", "error", Reply::Envelope),
                ("UnknownTool", "unknown_tool", Reply::InvalidParams),
                (
                    "InvalidRequestState",
                    "invalid_arguments",
                    Reply::InvalidParams
                ),
                ("ResourceNotFound", "not_found", Reply::ResourceNotFound),
                ("UnknownPrompt", "not_found", Reply::InvalidParams),
                ("NotConfirmed", "not_confirmed", Reply::Envelope),
                (
                    "IdempotencyKeyReused",
                    "idempotency_conflict",
                    Reply::Envelope
                ),
                (
                    "IdempotencyKeyInFlight",
                    "idempotency_conflict",
                    Reply::Envelope
                ),
                ("IdempotencyStoreUnavailable", "error", Reply::Envelope),
                ("UpstreamUnavailable", "error", Reply::Envelope),
                ("UpstreamUnavailable", "error", Reply::Envelope),
                ("UpstreamTimeout", "timeout", Reply::Envelope),
                ("UpstreamTimeout", "timeout", Reply::Envelope),
                ("UpstreamError", "error", Reply::Envelope),
                ("UpstreamError", "blocked", Reply::Envelope),
                ("UpstreamDrift", "blocked", Reply::Envelope),
                ("UpstreamDrift", "blocked", Reply::Envelope),
                ("TaskRequired", "error", Reply::TasksRequired),
                ("TooManyTasks", "busy", Reply::Envelope),
                ("TaskExpired", "expired", Reply::InternalError),
                ("TaskStoreUnavailable", "error", Reply::Envelope),
            ]
        );
    }

    #[test]
    fn an_uncaught_panic_is_a_json_rpc_internal_error() {
        let row = Refusal::Panic { caught: false }.row();
        let error = row.json_rpc_error().expect("not an envelope");
        assert_eq!(error.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
        assert_eq!(error.message, "internal error");
    }

    #[test]
    fn an_unknown_tool_name_is_quoted_and_cut() {
        let row = Refusal::UnknownTool(format!("<x>{}", "n".repeat(100))).row();
        let error = row.json_rpc_error().expect("JSON-RPC");
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(error.message.len() < 80, "{}", error.message);
    }
}
