//! The MCP transports, and the `[transport]` defaults both the manifest and hand-built specs use.

use serde::{Deserialize, Serialize};

use crate::contract_enum;

/// An MCP transport: what `serve` listens on, and what a Harbor `mcp_servers` entry names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum TransportKind {
    /// JSON-RPC over standard input and output.
    #[default]
    Stdio,
    /// MCP Streamable HTTP.
    StreamableHttp,
    /// The legacy 2024-11-05 HTTP+SSE transport (Harbor's default).
    Sse,
}

contract_enum!(TransportKind {
    Stdio => "stdio",
    StreamableHttp => "streamable-http",
    Sse => "sse",
});

/// `[transport]` defaults.
pub mod defaults {
    /// Socket address the HTTP transports bind to.
    pub const BIND: &str = "127.0.0.1:8765";
    /// Path of the MCP endpoint.
    pub const PATH: &str = "/mcp";
    /// Path of the health endpoint.
    pub const HEALTH_PATH: &str = "/health";
    /// Streamable HTTP keeps sessions.
    pub const STATEFUL: bool = true;
    /// Largest request body accepted (bytes).
    pub const MAX_REQUEST_BODY_BYTES: u64 = 4 * 1024 * 1024;
    /// Seconds between SSE keep-alive comments.
    pub const SSE_KEEP_ALIVE_SECONDS: u64 = 15;
    /// Host names a request's `Host` may carry: loopback only.
    pub const ALLOWED_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];
    /// Seconds in-flight calls get to finish after SIGTERM or SIGINT.
    pub const SHUTDOWN_GRACE_SECONDS: u64 = 10;
}
