//! What a tool body knows about the call it serves.

use tokio_util::sync::CancellationToken;

/// Per-call context handed to every tool body.
#[derive(Debug, Clone)]
pub struct CallContext {
    tool: &'static str,
    trace_id: String,
    cancellation: CancellationToken,
}

impl CallContext {
    /// A context for a call of `tool`.
    pub fn new(tool: &'static str, trace_id: String, cancellation: CancellationToken) -> Self {
        Self {
            tool,
            trace_id,
            cancellation,
        }
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
}
