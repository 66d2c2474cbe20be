//! The MCP transports, the `[transport]` defaults both the manifest and hand-built specs use,
//! and where a client on the server's own host reaches it.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

use serde::{Deserialize, Serialize};

use crate::enums::contract_enum;

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

/// What a server binary's name ends with when it is its stdio launcher: invoked under such a
/// name (a link to the binary) with no arguments, it serves stdio with the manifest's audit
/// path, so an agent that drops or mangles `args` (Harbor's Codex agent joins them into
/// `command`) still starts it.
pub const STDIO_LAUNCHER_SUFFIX: &str = "-stdio";

/// Where a bundle's main image links the stdio launcher of the server binary at `binary`.
pub fn stdio_launcher(binary: &str) -> String {
    format!("{binary}{STDIO_LAUNCHER_SUFFIX}")
}

/// `[transport]` defaults: every key the manifest may leave out, the kind being
/// [`TransportKind::default`].
pub mod defaults {
    /// Socket address the HTTP transports bind to.
    pub const BIND: &str = "127.0.0.1:8765";
    /// Path of the MCP endpoint.
    pub const PATH: &str = "/mcp";
    /// Path of the health endpoint.
    pub const HEALTH_PATH: &str = "/health";
    /// Streamable HTTP keeps sessions.
    pub const STATEFUL: bool = true;
    /// Stateless streamable HTTP answers with an SSE stream, not plain JSON.
    pub const JSON_RESPONSE: bool = false;
    /// Largest request body accepted (bytes).
    pub const MAX_REQUEST_BODY_BYTES: u64 = 4 * 1024 * 1024;
    /// Seconds between SSE keep-alive comments.
    pub const SSE_KEEP_ALIVE_SECONDS: u64 = 15;
    /// Host names a request's `Host` may carry: loopback only.
    pub const ALLOWED_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];
    /// Origins allowed besides those on an allowed host: none.
    pub const ALLOWED_ORIGINS: &[&str] = &[];
    /// A non-loopback bind needs auth.
    pub const ALLOW_PUBLIC_BIND: bool = false;
    /// Seconds in-flight calls get to finish after SIGTERM or SIGINT.
    pub const SHUTDOWN_GRACE_SECONDS: u64 = 10;
    /// Milliseconds a request's head (request line and headers) may take to arrive, from
    /// its first byte: a client that stalls mid-head is closed after this.
    pub const HEADER_READ_TIMEOUT_MS: u64 = 10_000;
    /// Milliseconds a connection may stay silent waiting for a request (its first, or the
    /// next on a kept-alive connection) before it is closed.
    pub const KEEP_ALIVE_IDLE_MS: u64 = 60_000;
    /// Milliseconds a new connection may wait before sending its first byte; one that sends
    /// nothing this long is closed.
    pub const FIRST_BYTE_TIMEOUT_MS: u64 = 5_000;
    /// Milliseconds from a request's head to the start of its response, its body read
    /// included; past it the answer is 408. Longer than every call's own time limit.
    pub const REQUEST_TIMEOUT_MS: u64 = 120_000;
    /// Most header fields one request may carry (hyper's own default); more get 431.
    pub const MAX_HEADERS: u64 = 100;
    /// Largest request head (request line and headers) in bytes; larger gets 431.
    pub const MAX_HEADER_BYTES: u64 = 16 * 1024;
    /// Most connections open at once; past it the connection idle longest gives way, and a
    /// new one is answered 503 and closed only when every connection has a request in flight.
    pub const MAX_CONNECTIONS: u64 = 1024;

    /// Most long-lived event streams of each kind open at once when the manifest does not
    /// say: a quarter of `max_connections` (at least one), so that streams of both kinds
    /// together leave half the connections to requests.
    pub const fn max_streams(max_connections: u64) -> u64 {
        let quarter = max_connections / 4;
        if quarter == 0 { 1 } else { quarter }
    }
}

/// The address a client on the server's own host connects to when the server listens on
/// `bind`: `bind` itself, or loopback (same family, same port) when `bind` is unspecified
/// (`0.0.0.0` or `[::]`, every interface), which is not an address one can connect to.
pub fn local_address_of(bind: SocketAddr) -> SocketAddr {
    if !bind.ip().is_unspecified() {
        return bind;
    }
    let loopback = if bind.is_ipv4() {
        Ipv4Addr::LOCALHOST.into()
    } else {
        Ipv6Addr::LOCALHOST.into()
    };
    SocketAddr::new(loopback, bind.port())
}

#[cfg(test)]
mod tests {
    use super::local_address_of;

    #[test]
    fn an_unspecified_bind_is_reached_on_loopback_of_its_family_and_port() {
        let reach = |bind: &str| local_address_of(bind.parse().expect("an address")).to_string();
        assert_eq!(reach("0.0.0.0:8765"), "127.0.0.1:8765");
        assert_eq!(reach("[::]:9000"), "[::1]:9000");
        assert_eq!(reach("127.0.0.1:8765"), "127.0.0.1:8765");
        assert_eq!(reach("10.1.2.3:80"), "10.1.2.3:80");
    }
}
