//! The error envelope every failed call returns, as structuredContent and as text, with
//! `isError: true`: `{"status":"error","error_code":...,"message":...,"trace_id":...}`, and
//! the budget its message is held to.

use std::borrow::Cow;

use rmcp::model::CallToolResult;
use serde::Serialize;

use crate::guards::redact::{self, Redactions};
use crate::guards::{chars, lines, strip};
use crate::spec::GuardSpec;

/// Error codes the harness itself produces.
pub mod codes {
    /// The arguments failed strict validation.
    pub const INVALID_ARGUMENTS: &str = "InvalidArguments";
    /// A panic or an unexpected failure (details only in the server log).
    pub const INTERNAL_ERROR: &str = "InternalError";
    /// The client cancelled the call.
    pub const CANCELLED: &str = "Cancelled";
    /// The tool's rate limit refused the call; the body never ran.
    pub const RATE_LIMITED: &str = "ToolRateLimitError";
    /// The tool's rate limit lives in Redis, Redis did not answer in time, and the manifest
    /// says refuse (`[rate_limit_store] when_unreachable`); the body never ran.
    pub const RATE_LIMIT_STORE_UNAVAILABLE: &str = "RateLimitStoreUnavailable";
    /// The body ran past the tool's timeout.
    pub const TIMEOUT: &str = "ToolTimeoutError";
    /// The gateway's upstream is not connected (not started yet, exited, or unreachable).
    pub const UPSTREAM_UNAVAILABLE: &str = "UpstreamUnavailable";
    /// The gateway's upstream did not answer within its `timeout_ms`.
    pub const UPSTREAM_TIMEOUT: &str = "UpstreamTimeout";
    /// The gateway's upstream answered with an error, or with something that is not a tool
    /// result.
    pub const UPSTREAM_ERROR: &str = "UpstreamError";
    /// The upstream's definition of the tool is not the pinned one (`on_drift`).
    pub const UPSTREAM_DRIFT: &str = "UpstreamDrift";
    /// The result was a table, refused by the tabular blockade.
    pub const TOKEN_STARVATION: &str = "TokenStarvationError";
    /// The result's binary content is over the tool's `max_bytes`, or a declared result is
    /// over its char cap even with every string it lets be cut cut.
    pub const OUTPUT_TOO_LARGE: &str = "OutputTooLarge";
    /// The result carried a MIME type, or linked to a URI scheme, the tool does not allow.
    pub const CONTENT_NOT_ALLOWED: &str = "ContentNotAllowed";
    /// `resources/read` of a URI the server has no resource or template for.
    pub const RESOURCE_NOT_FOUND: &str = "ResourceNotFound";
    /// `prompts/get` of a prompt the server does not have.
    pub const UNKNOWN_PROMPT: &str = "UnknownPrompt";
    /// The body needs input from the client (2026-07-28: the call ends with an
    /// input-required result; never seen by a client as an envelope).
    pub const INPUT_REQUIRED: &str = "InputRequired";
    /// The body needs a capability the client did not declare.
    pub const MISSING_CLIENT_CAPABILITY: &str = "MissingClientCapability";
    /// The client's answer to a request for input did not fit what was asked.
    pub const INVALID_INPUT: &str = "InvalidInput";
    /// The server cannot ask the client on this transport.
    pub const INPUT_UNAVAILABLE: &str = "InputUnavailable";
    /// The client did not answer a request for input.
    pub const CLIENT_REQUEST_FAILED: &str = "ClientRequestFailed";
    /// The request state is altered, expired, or sealed for another call.
    pub const INVALID_REQUEST_STATE: &str = "InvalidRequestState";
    /// A `confirm = true` tool was not confirmed by the user (declined, cancelled, or the
    /// client cannot be asked); the body never ran.
    pub const NOT_CONFIRMED: &str = "NotConfirmed";
    /// An idempotency key already used with other arguments (HTTP APIs answer 422); the body
    /// never ran.
    pub const IDEMPOTENCY_KEY_REUSED: &str = "IdempotencyKeyReused";
    /// An idempotency key whose first call is still running (HTTP APIs answer 409); the body
    /// never ran.
    pub const IDEMPOTENCY_KEY_IN_FLIGHT: &str = "IdempotencyKeyInFlight";
    /// The idempotency store (Redis) did not answer; the body never ran.
    pub const IDEMPOTENCY_STORE_UNAVAILABLE: &str = "IdempotencyStoreUnavailable";
    /// The tool already runs its `max_concurrent` calls at once; the body never ran.
    pub const TOOL_BUSY: &str = "ToolBusy";
    /// The server already has its `[server] max_in_flight` calls in flight and shed this one
    /// (the HTTP answer would be 503); nothing of it ran.
    pub const SERVER_BUSY: &str = "ServerBusy";
    /// The client called a tool the server does not publish. Answered with JSON-RPC error
    /// -32602 (no envelope); the code appears only in the audit record.
    pub const UNKNOWN_TOOL: &str = "UnknownTool";
    /// The tool runs only as a task (`support = "required"`) and the request did not declare
    /// the tasks extension. Answered with the extension's JSON-RPC error -32021; nothing ran.
    pub const TASK_REQUIRED: &str = "TaskRequired";
    /// The tool already has its `max_alive` tasks alive; no task was created.
    pub const TOO_MANY_TASKS: &str = "TooManyTasks";
    /// A task outlived its `ttl_ms` and its body was stopped; the task reads `failed`.
    pub const TASK_EXPIRED: &str = "TaskExpired";
    /// The task store (Redis) did not answer; no task was created and the body never ran.
    pub const TASK_STORE_UNAVAILABLE: &str = "TaskStoreUnavailable";
}

/// The JSON body of a failed call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ErrorEnvelope<'a> {
    /// Always `"error"`.
    pub status: &'static str,
    /// A stable code such as `InvalidArguments` or `NotFound`.
    pub error_code: &'a str,
    /// A message safe to show the model.
    pub message: &'a str,
    /// The call's trace id.
    pub trace_id: &'a str,
}

impl<'a> ErrorEnvelope<'a> {
    /// An envelope for `error_code` and `message`.
    pub(crate) fn new(error_code: &'a str, message: &'a str, trace_id: &'a str) -> Self {
        Self {
            status: "error",
            error_code,
            message,
            trace_id,
        }
    }

    /// The tool result carrying this envelope.
    pub(crate) fn into_result(self) -> CallToolResult {
        let value = serde_json::to_value(&self).expect("the envelope is plain JSON");
        CallToolResult::structured_error(value)
    }
}

/// An envelope's message after the output guards: sanitized, line-capped, its secrets
/// redacted (unless the tool opts out), and cut so that the envelope's JSON text (what the
/// model reads) fits the tool's char cap.
pub(crate) fn envelope_message<'m>(
    guards: &GuardSpec,
    code: &str,
    message: &'m str,
    trace_id: &str,
) -> Cow<'m, str> {
    let mut message = strip::sanitize(message, true);
    if let Some(max_lines) = guards.max_lines
        && let Cow::Owned(capped) = lines::cap_lines(&message, max_lines.max(1))
    {
        message = Cow::Owned(capped);
    }
    if let Cow::Owned(redacted) =
        redact::apply(&message, redact::policy(guards), &mut Redactions::default())
    {
        message = Cow::Owned(redacted);
    }
    let Some(max_chars) = guards.max_chars else {
        return message;
    };
    let frame = serde_json::to_string(&ErrorEnvelope::new(code, "", trace_id))
        .map_or(0, |text| text.chars().count() as u64);
    let budget = max_chars.saturating_sub(frame);
    // What the message costs inside the envelope's JSON text: escapes make it longer.
    let cost = |text: &str| serde_json::to_string(text).map_or(0, |t| t.chars().count() as u64 - 2);
    if cost(&message) <= budget {
        return message;
    }
    let mut keep = budget;
    loop {
        let cut = match chars::cap_text(&message, keep) {
            Some(cut) if cut.chars().count() as u64 <= keep => cut,
            // Too small a budget for the marker: a bare cut with an ellipsis.
            _ => short_cut(&message, keep),
        };
        let over = cost(&cut).saturating_sub(budget);
        if over == 0 || keep == 0 {
            return Cow::Owned(cut);
        }
        keep = keep.saturating_sub(over);
    }
}

/// The first `keep` characters of `text`, the last three of them an ellipsis when they fit.
fn short_cut(text: &str, keep: u64) -> String {
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    if keep < 3 {
        return text.chars().take(keep).collect();
    }
    let mut cut: String = text.chars().take(keep - 3).collect();
    cut.push_str("...");
    cut
}
