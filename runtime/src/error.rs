//! Errors a tool body returns. Only the code and the public message reach the model; the
//! internal detail is logged under the call's trace id. The outcome names the failure in
//! the audit log.

use std::borrow::Cow;
use std::fmt;

use harness_contract::HarnessOutcome;

/// A tool failure the model may see, e.g. `NotFound: incident not found`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    code: Cow<'static, str>,
    message: Cow<'static, str>,
    outcome: Cow<'static, str>,
    internal: Option<String>,
}

impl ToolError {
    /// A failure with its own error code (e.g. `ConnectionResetError`) and a message safe to
    /// show the model; audited with outcome `error`.
    pub fn new(code: impl Into<Cow<'static, str>>, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            outcome: Cow::Borrowed(HarnessOutcome::Error.as_str()),
            internal: None,
        }
    }

    /// `NotFound` with a message safe to show the model; audited as `not_found`.
    pub fn not_found(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new("NotFound", message).with_outcome(HarnessOutcome::NotFound.as_str())
    }

    /// `InternalError` with a generic message; `detail` (an error chain, a path, a query)
    /// goes to the server log only.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new("InternalError", "internal error").with_internal_detail(detail)
    }

    /// Sets the outcome recorded in the audit log (e.g. `not_found`).
    pub fn with_outcome(mut self, outcome: impl Into<Cow<'static, str>>) -> Self {
        self.outcome = outcome.into();
        self
    }

    /// Attaches detail for the server log that the model must not see.
    pub fn with_internal_detail(mut self, detail: impl fmt::Display) -> Self {
        self.internal = Some(detail.to_string());
        self
    }

    /// The error code, e.g. `NotFound`.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The message shown to the model.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The audit outcome, e.g. `not_found` or `error`.
    pub fn outcome(&self) -> &str {
        &self.outcome
    }

    /// The detail kept for the server log.
    pub fn internal_detail(&self) -> Option<&str> {
        self.internal.as_deref()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ToolError {}
