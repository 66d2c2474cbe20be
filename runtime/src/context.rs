//! What a tool body knows about the call it serves, and what it may tell the client while it
//! runs.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::error::ToolError;
use crate::input::session::InputSession;
use crate::input::{
    Capability, ElicitAnswer, Elicitation, Form, FormAnswer, Root, Sampled, Sampling,
};
use crate::notify::{LogLevel, Notifier};

/// Per-call context handed to every tool body.
#[derive(Debug, Clone)]
pub struct CallContext {
    tool: &'static str,
    trace_id: String,
    cancellation: CancellationToken,
    notifier: Option<Arc<Notifier>>,
    input: Option<Arc<InputSession>>,
}

impl CallContext {
    /// A context for a call of `tool`.
    pub fn new(tool: &'static str, trace_id: String, cancellation: CancellationToken) -> Self {
        Self {
            tool,
            trace_id,
            cancellation,
            notifier: None,
            input: None,
        }
    }

    pub(crate) fn with_input(mut self, input: Option<Arc<InputSession>>) -> Self {
        self.input = input;
        self
    }

    fn input(&self) -> Result<&InputSession, ToolError> {
        self.input.as_deref().ok_or_else(|| {
            ToolError::new(
                crate::pipeline::envelope::codes::INPUT_UNAVAILABLE,
                "This call cannot ask the client for input.",
            )
        })
    }

    /// Whether the client declared `capability` (to choose what to ask for).
    pub fn client_supports(&self, capability: Capability) -> bool {
        self.input
            .as_ref()
            .is_some_and(|input| input.supports(capability))
    }

    /// Asks the user to fill in a form; `key` names the question (unique within the tool).
    /// In a 2025-11-25 session the client is asked and the answer awaited; on a 2026-07-28
    /// request the answer is in the request, or this returns an error that, passed on with
    /// `?`, ends the call with an input-required result the client answers by calling again.
    /// The answer is validated against `elicitation`'s schema first; a client that did not
    /// declare elicitation gets the specification's error.
    pub async fn elicit(
        &self,
        key: &str,
        elicitation: &Elicitation,
    ) -> Result<ElicitAnswer, ToolError> {
        self.input()?.elicit(key, elicitation).await
    }

    /// Asks the user the form `F` the manifest declares for this tool (`[[tools.forms]]`),
    /// like [`CallContext::elicit`]; the answer is validated by `F`'s generated strict
    /// validator, exactly as arguments are, before the body sees it.
    pub async fn ask<F: Form>(&self) -> Result<FormAnswer<F>, ToolError> {
        self.input()?.ask_form::<F>().await
    }

    /// Asks the client's model for a reply, like [`CallContext::elicit`]; the reply's text
    /// passes the tag strip and a length cap.
    pub async fn sample(&self, key: &str, sampling: &Sampling) -> Result<Sampled, ToolError> {
        self.input()?.sample(key, sampling).await
    }

    /// Asks the client for its roots, like [`CallContext::elicit`].
    pub async fn list_roots(&self, key: &str) -> Result<Vec<Root>, ToolError> {
        self.input()?.roots(key).await
    }

    #[cfg(feature = "gateway")]
    /// The call's way of asking the client, for the gateway passing on what an upstream
    /// asks while it serves the call.
    pub(crate) fn input_session(&self) -> Option<&InputSession> {
        self.input.as_deref()
    }

    pub(crate) fn with_notifier(mut self, notifier: Option<Arc<Notifier>>) -> Self {
        self.notifier = notifier;
        self
    }

    /// The MCP name of the tool being called.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The call's trace id (`mcp-xxxxxxxx`); put it in your own log lines.
    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    /// True once the client has cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Resolves when the client cancels the call; select on it around long work.
    pub async fn cancelled(&self) {
        self.cancellation.cancelled().await;
    }

    /// Whether the client asked for progress on this call (its request carried a token).
    pub fn wants_progress(&self) -> bool {
        self.notifier
            .as_ref()
            .is_some_and(|notifier| notifier.wants_progress())
    }

    #[cfg(feature = "gateway")]
    /// The lowest log level the client wants for this call (its session's `logging/setLevel`
    /// or the request's own), if it wants logs at all.
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        self.notifier
            .as_ref()
            .and_then(|notifier| notifier.log_level())
    }

    /// Reports progress (of `total`, when known). Sent only when the client asked for
    /// progress, the value is larger than the last one sent, the call is not cancelled and
    /// the last report is not too recent (the one reaching `total` always goes); returns
    /// whether it was sent. `message` passes the tag strip and is kept short.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        match &self.notifier {
            Some(notifier) => notifier.progress(progress, total, message).await,
            None => false,
        }
    }

    /// Sends a log message to the client (`notifications/message`, logger = the tool's name).
    /// Sent only at or above the level the client asked for, and at most 100 per call; the
    /// message passes the tag strip and is kept short. Returns whether it was sent.
    pub async fn log(&self, level: LogLevel, message: &str) -> bool {
        match &self.notifier {
            Some(notifier) => notifier.log(level, self.tool, message).await,
            None => false,
        }
    }
}
