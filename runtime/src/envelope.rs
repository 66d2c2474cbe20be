//! The error envelope every failed call returns, as structuredContent and as text, with
//! `isError: true`: `{"status":"error","error_code":...,"message":...,"trace_id":...}`.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::Value;

/// Error codes the harness itself produces.
pub mod codes {
    /// The arguments failed strict validation.
    pub const INVALID_ARGUMENTS: &str = "InvalidArguments";
    /// A panic or an unexpected failure (details only in the server log).
    pub const INTERNAL_ERROR: &str = "InternalError";
    /// The client cancelled the call.
    pub const CANCELLED: &str = "Cancelled";
}

/// The JSON body of a failed call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorEnvelope<'a> {
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
    pub fn new(error_code: &'a str, message: &'a str, trace_id: &'a str) -> Self {
        Self {
            status: "error",
            error_code,
            message,
            trace_id,
        }
    }

    /// The tool result carrying this envelope.
    pub fn into_result(self) -> CallToolResult {
        let value = serde_json::to_value(&self).expect("the envelope is plain JSON");
        CallToolResult::structured_error(value)
    }
}

/// The tool result for a successful call: a JSON object becomes structuredContent (and
/// the same JSON as text); a string becomes plain text; anything else becomes JSON text.
pub fn success(value: Value) -> CallToolResult {
    match value {
        Value::Object(_) => CallToolResult::structured(value),
        Value::String(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        other => CallToolResult::success(vec![ContentBlock::text(other.to_string())]),
    }
}
