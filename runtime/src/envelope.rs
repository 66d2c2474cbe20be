//! The error envelope every failed call returns, as structuredContent and as text, with
//! `isError: true`: `{"status":"error","error_code":...,"message":...,"trace_id":...}`.

use rmcp::model::CallToolResult;
use serde::Serialize;

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
    /// The result was a table, refused by the tabular blockade.
    pub const TOKEN_STARVATION: &str = "TokenStarvationError";
    /// The client called a tool the server does not publish. Answered with JSON-RPC error
    /// -32602 (no envelope); the code appears only in the audit record.
    pub const UNKNOWN_TOOL: &str = "UnknownTool";
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
