//! How a call ended, before it becomes a reply and an audit record.

use std::borrow::Cow;

use harness_contract::HarnessOutcome;
use rmcp::model::{CallToolResponse, CallToolResult, ErrorData, InputRequiredResult};
use serde_json::Value;

use crate::error::ToolError;
use crate::guards::{redact, strip};
use crate::pipeline::envelope::{ErrorEnvelope, envelope_message};
use crate::pipeline::refusal::Refusal;
use crate::spec::GuardSpec;

/// A call's reply, with what its audit record and log line say.
pub(crate) struct Outcome {
    /// The reply.
    pub(crate) result: Result<CallToolResponse, ErrorData>,
    /// The audit outcome (`ok`, `rate_limited`, a tool's own such as `not_found`).
    pub(crate) outcome: Cow<'static, str>,
    /// The error code, on failure.
    pub(crate) error_code: Option<Cow<'static, str>>,
    /// The arguments the audit hashes.
    pub(crate) args: Value,
}

impl Outcome {
    /// A successful call.
    pub(crate) fn ok(result: CallToolResult, args: Value) -> Self {
        Self {
            result: Ok(result.into()),
            outcome: Cow::Borrowed(HarnessOutcome::Ok.as_str()),
            error_code: None,
            args,
        }
    }

    /// Whether the call succeeded (a replay of a success did).
    pub(crate) fn is_ok(&self) -> bool {
        self.outcome == HarnessOutcome::Ok.as_str()
            || (self.outcome == HarnessOutcome::Replayed.as_str() && self.error_code.is_none())
    }

    /// A refusal by the harness, as its row in the refusal table says. `guards` are the
    /// tool's (none when no tool was found), which hold an envelope's message to its caps.
    pub(crate) fn refused(
        refusal: Refusal,
        guards: Option<&GuardSpec>,
        trace_id: &str,
        args: Value,
    ) -> Self {
        let row = refusal.row();
        let result = match (row.json_rpc_error(), guards) {
            (Some(error), _) => Err(error),
            (None, guards) => Ok(envelope(guards, row.code, &row.message, trace_id).into()),
        };
        Self {
            result,
            outcome: Cow::Borrowed(row.outcome.as_str()),
            error_code: Some(Cow::Borrowed(row.code)),
            args,
        }
    }

    /// A tool body's own error, answered with the envelope under its code and audited under
    /// its outcome.
    pub(crate) fn tool_error(
        error: &ToolError,
        guards: &GuardSpec,
        trace_id: &str,
        args: Value,
    ) -> Self {
        Self {
            result: Ok(envelope(Some(guards), error.code(), error.message(), trace_id).into()),
            outcome: Cow::Owned(error.outcome().to_owned()),
            error_code: Some(Cow::Owned(error.code().to_owned())),
            args,
        }
    }
}

impl Outcome {
    /// A call that ended asking the client for input.
    pub(crate) fn input_required(result: InputRequiredResult, args: Value) -> Self {
        Self {
            result: Ok(CallToolResponse::InputRequired(result)),
            outcome: Cow::Borrowed(HarnessOutcome::InputRequired.as_str()),
            error_code: None,
            args,
        }
    }

    /// A call refused with a JSON-RPC error of its own (such as -32021), audited under
    /// `outcome` and `code`.
    pub(crate) fn json_rpc_error(
        error: ErrorData,
        outcome: HarnessOutcome,
        code: &'static str,
        args: Value,
    ) -> Self {
        Self {
            result: Err(error),
            outcome: Cow::Borrowed(outcome.as_str()),
            error_code: Some(Cow::Borrowed(code)),
            args,
        }
    }
}

/// The error envelope as a result. The message is guarded like any output (a tool's own error
/// text may quote untrusted data): tags and hidden characters removed, secrets redacted, then
/// held to the tool's line and char caps, the envelope's own fields counted (without a tool,
/// the built-in redaction).
fn envelope(
    guards: Option<&GuardSpec>,
    code: &str,
    message: &str,
    trace_id: &str,
) -> CallToolResult {
    let message = match guards {
        Some(guards) => envelope_message(guards, code, message, trace_id),
        None => match strip::sanitize(message, true) {
            Cow::Borrowed(message) => redact::redact(message),
            Cow::Owned(message) => Cow::Owned(redact::redact(&message).into_owned()),
        },
    };
    ErrorEnvelope::new(code, &message, trace_id).into_result()
}
