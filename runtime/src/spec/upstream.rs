//! The manifest's `[[upstreams]]` and the pins of the tools, prompts, resources and resource
//! templates they serve, as generated code states them.

pub use harness_contract::{ForwardedRequest, OnDrift, PinKind, UpstreamProtocol};

use crate::validate::PinnedSchema;

/// One upstream MCP server the gateway guards.
#[derive(Debug, Clone, Copy)]
pub struct UpstreamSpec {
    /// Its name in the manifest (tools say `upstream = "NAME"`).
    pub name: &'static str,
    /// How it is reached.
    pub endpoint: EndpointSpec,
    /// Time limit for connecting, and for each call a tool's own timeout does not bound.
    pub timeout_ms: u64,
    /// Restarts in a row before a stdio child stays down.
    pub max_restarts: u32,
    /// First wait before a restart (doubled each time, at most 30 s).
    pub backoff_ms: u64,
    /// What a changed pinned definition does.
    pub on_drift: OnDrift,
    /// The protocol revision spoken to it.
    pub protocol: UpstreamProtocol,
    /// The requests it may start that reach the client (the rest are refused).
    pub forward: &'static [ForwardedRequest],
    /// What it serves (tools, prompts, resources and resource templates), each pinned.
    pub pins: &'static [PinSpec],
}

/// Where an upstream is.
#[derive(Debug, Clone, Copy)]
pub enum EndpointSpec {
    /// A child process speaking MCP on stdin and stdout.
    Stdio {
        /// The program (looked up on `PATH`).
        command: &'static str,
        /// Its arguments.
        args: &'static [&'static str],
        /// Its working directory (default: the server's).
        cwd: Option<&'static str>,
        /// Variables it receives from the server's environment, besides `PATH`.
        env: &'static [&'static str],
    },
    /// A streamable HTTP endpoint.
    StreamableHttp {
        /// The MCP endpoint URL.
        url: &'static str,
        /// `(header, environment variable holding its value)`.
        headers: &'static [(&'static str, &'static str)],
        /// PEM CA certificates trusted besides Mozilla's roots (the manifest's `ca_file`).
        ca_pem: Option<&'static str>,
    },
}

/// One definition an upstream serves (a tool, prompt, resource or resource template), pinned
/// to the digest of the definition it was imported from.
#[derive(Debug, Clone, Copy)]
pub struct PinSpec {
    /// Which list the definition comes from.
    pub kind: PinKind,
    /// How this server publishes it: a tool's or prompt's name, a resource's URI, a
    /// template's URI template.
    pub name: &'static str,
    /// The upstream's name for it (resources and templates keep the upstream's).
    pub remote_name: &'static str,
    /// sha256 of the pinned definition ([`harness_contract::pin_sha256`]).
    pub sha256: &'static str,
    /// The pinned JSON Schema a tool's arguments are validated by, when the manifest keeps one
    /// (`input_schema`) instead of arguments in its grammar.
    pub schema: Option<&'static PinnedSchema>,
    /// A resource clients may subscribe to (`subscribe = true`): the gateway subscribes to it
    /// upstream and passes its updates on.
    pub subscribe: bool,
}
