//! `[[upstreams]]`: MCP servers that already exist, which the gateway starts or connects to
//! and guards; a `[[tools]]` entry with `upstream = "NAME"` is served by one of them.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use harness_contract::{ForwardedRequest, OnDrift, UpstreamProtocol, UpstreamTransport};

/// One upstream MCP server.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Upstream {
    /// How tools name it (`upstream = "NAME"`): lowercase letters, digits, `-` and `_`.
    pub name: String,
    /// `stdio` (a child process) or `streamable-http`.
    pub transport: UpstreamTransport,
    /// stdio: the program to start (looked up on `PATH`).
    pub command: Option<String>,
    /// stdio: its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// stdio: its working directory (relative to where the server starts; default: the
    /// server's own).
    pub cwd: Option<String>,
    /// stdio: names of the environment variables the child receives from the server's
    /// environment, besides `PATH`; it inherits nothing else.
    #[serde(default)]
    pub env: Vec<String>,
    /// streamable-http: the MCP endpoint, e.g. `http://127.0.0.1:9000/mcp`.
    pub url: Option<String>,
    /// streamable-http: headers sent on every request, each naming the environment variable
    /// that holds its value (`{ Authorization = "UPSTREAM_TOKEN" }`); values never appear in
    /// the manifest.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// streamable-http: a PEM file of CA certificates trusted for this upstream besides
    /// Mozilla's roots (a private CA), relative to the manifest; embedded when the server is
    /// built, so it must hold certificates only.
    pub ca_file: Option<String>,
    /// Time limit in milliseconds for connecting and for each call a tool's own
    /// `timeout_ms` does not bound (default 30000).
    pub timeout_ms: Option<u64>,
    /// stdio: how a child that exits is restarted.
    #[serde(default)]
    pub restart: Restart,
    /// What happens when the upstream's live definition of a pinned tool differs from its
    /// pin (default `refuse`).
    #[serde(default)]
    pub on_drift: OnDrift,
    /// Requests the upstream may start while it serves a call (`sampling`, `elicitation`,
    /// `roots`) that the gateway passes on to the calling client, checked as a body's own
    /// requests are (default none: every one is refused).
    #[serde(default)]
    pub forward: Vec<ForwardedRequest>,
    /// The protocol revision spoken to it: `2025-11-25` (default; `initialize`, then a
    /// session in which it asks for input while a call runs) or `2026-07-28`
    /// (`server/discover`; a call that needs input ends with an input-required result, which
    /// the gateway passes on to the client and answers in the next round).
    #[serde(default)]
    pub protocol: UpstreamProtocol,
}

/// `restart = { max_restarts = 5, backoff_ms = 500 }`: a stdio child that exits is started
/// again after `backoff_ms` (doubling each time, at most 30 s), at most `max_restarts` times
/// in a row; a connection that stays up a minute resets the count.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Restart {
    /// Restarts in a row before the upstream stays down (default 5; 0 never restarts).
    #[serde(default = "default_max_restarts")]
    pub max_restarts: u32,
    /// Wait before the first restart, in milliseconds (default 500).
    #[serde(default = "default_backoff_ms")]
    pub backoff_ms: u64,
}

impl Default for Restart {
    fn default() -> Self {
        Self {
            max_restarts: default_max_restarts(),
            backoff_ms: default_backoff_ms(),
        }
    }
}

fn default_max_restarts() -> u32 {
    5
}

fn default_backoff_ms() -> u64 {
    500
}
