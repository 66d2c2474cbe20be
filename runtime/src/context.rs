//! What a tool body knows about the call it serves, and what it may tell the client while it
//! runs.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::notify::{LogLevel, Notifier};

/// Per-call context handed to every tool body.
#[derive(Debug, Clone)]
pub struct CallContext {
    tool: &'static str,
    trace_id: String,
    cancellation: CancellationToken,
    notifier: Option<Arc<Notifier>>,
}

impl CallContext {
    /// A context for a call of `tool`.
    pub fn new(tool: &'static str, trace_id: String, cancellation: CancellationToken) -> Self {
        Self {
            tool,
            trace_id,
            cancellation,
            notifier: None,
        }
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
