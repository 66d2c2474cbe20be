//! `[server]`, `[transport]` and `[audit]`: the checks no type can express (addresses, URL
//! paths, auth variable names, Host and Origin lists; the HTTP edge's limits are
//! `http_edge`'s) and their validated form.

use std::net::SocketAddr;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, AuditField, FsyncPolicy, TransportKind};
use crate::manifest_path::ManifestPath;
use crate::model::names::is_env_var_name;

/// The validated `[audit]` table.
#[derive(Debug, Clone)]
pub struct AuditModel {
    /// Default path of the log.
    pub path: String,
    /// `schema_version` of every record.
    pub schema_version: u32,
    /// Records carry `trace_id`.
    pub trace_id: bool,
    /// Records carry `error_code`.
    pub error_code: bool,
    /// Records carry `subject`.
    pub subject: bool,
    /// fsync policy.
    pub fsync: FsyncPolicy,
}

/// The validated `[server]` table.
#[derive(Debug, Clone)]
pub struct ServerModel {
    /// Implementation name.
    pub name: String,
    /// Implementation version.
    pub version: String,
    /// Display name.
    pub title: Option<String>,
    /// Instructions for the model.
    pub instructions: Option<String>,
    /// The variable holding the request-state key.
    pub request_state_key_env: Option<String>,
    /// Tool calls in flight at once.
    pub max_in_flight: Option<u32>,
}

/// The validated `[transport]` table.
#[derive(Debug, Clone)]
pub struct TransportModel {
    /// Default transport.
    pub kind: TransportKind,
    /// HTTP bind address, checked to parse as a socket address.
    pub bind: String,
    /// MCP endpoint path.
    pub path: String,
    /// Health endpoint path.
    pub health_path: String,
    /// Streamable HTTP keeps sessions (`Mcp-Session-Id`).
    pub stateful: bool,
    /// Stateless streamable HTTP answers with plain JSON.
    pub json_response: bool,
    /// Largest request body accepted.
    pub max_request_body_bytes: u64,
    /// Seconds between SSE keep-alive comments.
    pub sse_keep_alive_seconds: u64,
    /// Host names a request's `Host` may carry.
    pub allowed_hosts: Vec<String>,
    /// Origins allowed besides those on an allowed host.
    pub allowed_origins: Vec<String>,
    /// The environment variable holding the bearer token, when auth is on.
    pub auth_token_env: Option<String>,
    /// A non-loopback bind without auth is accepted.
    pub allow_public_bind: bool,
    /// Seconds in-flight calls get to finish after SIGTERM or SIGINT.
    pub shutdown_grace_seconds: u64,
    /// Milliseconds a request's head may take from its first byte.
    pub header_read_timeout_ms: u64,
    /// Milliseconds a connection may wait silent for a request.
    pub keep_alive_idle_ms: u64,
    /// Milliseconds a new connection may wait before its first byte.
    pub first_byte_timeout_ms: u64,
    /// Milliseconds from a request's head to the start of its response.
    pub request_timeout_ms: u64,
    /// Most header fields per request.
    pub max_headers: u64,
    /// Largest request head in bytes.
    pub max_header_bytes: u64,
    /// Most connections open at once.
    pub max_connections: u64,
    /// Most long-lived event streams of each kind open at once.
    pub max_streams: u64,
}

/// Checks `[server]`.
pub(crate) fn server(server: &manifest::Server, errors: &ErrorSink<'_>) -> ServerModel {
    let path = ManifestPath::root().key("server");
    for (key, value) in [("name", &server.name), ("version", &server.version)] {
        if value.trim().is_empty() {
            errors.report(
                Diagnostic::value(path.key(key), format!("server {key} is empty"))
                    .label("empty")
                    .help(format!("clients show the server {key}; give one")),
            );
        }
    }
    if let Some(variable) = server
        .request_state_key_env
        .as_deref()
        .filter(|name| !is_env_var_name(name))
    {
        errors.report(
            Diagnostic::value(path.key("request_state_key_env"), format!("`{variable}` is not an environment variable name"))
                .label("name the variable, not the key")
                .help("use uppercase letters, digits and `_`, e.g. \"HARNESS_REQUEST_STATE_KEY\"; the key never goes in the manifest"),
        );
    }
    crate::model::guards::check_calls_at_once(
        "max_in_flight",
        server.max_in_flight,
        path.key("max_in_flight"),
        errors,
    );
    ServerModel {
        name: server.name.clone(),
        version: server.version.clone(),
        title: server.title.clone(),
        instructions: server.instructions.clone(),
        request_state_key_env: server.request_state_key_env.clone(),
        max_in_flight: server.max_in_flight,
    }
}

/// Checks `[transport]`; `oauth` says whether the manifest has `[auth]` (which counts as auth
/// for a public bind).
pub(crate) fn transport(
    transport: &manifest::Transport,
    oauth: bool,
    errors: &ErrorSink<'_>,
) -> TransportModel {
    let path = ManifestPath::root().key("transport");
    if transport.bind.parse::<SocketAddr>().is_err() {
        errors.report(
            Diagnostic::value(path.key("bind"), "bind is not an IP address with a port")
                .label("not ADDRESS:PORT")
                .help("write an IP address and a port, such as 127.0.0.1:8765"),
        );
    }
    for (key, value) in [
        ("path", &transport.path),
        ("health_path", &transport.health_path),
    ] {
        if !value.starts_with('/') || value.contains(char::is_whitespace) {
            errors.report(
                Diagnostic::value(path.key(key), format!("{key} is not an absolute URL path"))
                    .label("must start with `/` and contain no spaces")
                    .help("for example \"/mcp\" or \"/health\""),
            );
        }
    }
    if transport.path == transport.health_path {
        errors.report(
            Diagnostic::value(
                path.key("health_path"),
                "health_path is the same as the MCP path",
            )
            .label("clashes with `path`")
            .help("serve health on its own path, such as \"/health\""),
        );
    }
    transport_security(transport, oauth, &path, errors);
    crate::model::http_edge::check_limits(transport, errors);
    TransportModel {
        kind: transport.kind,
        bind: transport.bind.clone(),
        path: transport.path.clone(),
        health_path: transport.health_path.clone(),
        stateful: transport.stateful,
        json_response: transport.json_response,
        max_request_body_bytes: transport.max_request_body_bytes,
        sse_keep_alive_seconds: transport.sse_keep_alive_seconds,
        allowed_hosts: transport.allowed_hosts.clone(),
        allowed_origins: transport.allowed_origins.clone(),
        auth_token_env: transport.auth_token_env.clone(),
        allow_public_bind: transport.allow_public_bind,
        shutdown_grace_seconds: transport.shutdown_grace_seconds,
        header_read_timeout_ms: transport.header_read_timeout_ms,
        keep_alive_idle_ms: transport.keep_alive_idle_ms,
        first_byte_timeout_ms: transport.first_byte_timeout_ms,
        request_timeout_ms: transport.request_timeout_ms,
        max_headers: transport.max_headers,
        max_header_bytes: transport.max_header_bytes,
        max_connections: transport.max_connections,
        max_streams: crate::model::http_edge::max_streams(transport),
    }
}

/// The checks that keep a served transport safe: auth beyond loopback, Host and Origin lists,
/// and limits that would refuse ordinary calls.
fn transport_security(
    transport: &manifest::Transport,
    oauth: bool,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) {
    if transport.json_response && transport.stateful {
        errors.report(
            Diagnostic::value(
                path.key("json_response"),
                "json_response needs stateful = false",
            )
            .label("only stateless streamable HTTP answers with plain JSON")
            .help("set stateful = false, or remove json_response"),
        );
    }
    let public = transport
        .bind
        .parse::<SocketAddr>()
        .is_ok_and(|bind| !bind.ip().is_loopback());
    if public && transport.auth_token_env.is_none() && !oauth && !transport.allow_public_bind {
        errors.report(
            Diagnostic::value(path.key("bind"), format!("{} is reachable from other hosts, without auth", transport.bind))
                .label("not a loopback address")
                .help("add an [auth] table (OAuth 2.1: issuer, audience), or set auth_token_env = \"MCP_TOKEN\" (the variable holding a bearer token), or allow_public_bind = true to accept the risk"),
        );
    }
    if let Some(variable) = &transport.auth_token_env
        && !is_env_var_name(variable)
    {
        errors.report(
            Diagnostic::value(path.key("auth_token_env"), format!("`{variable}` is not an environment variable name"))
                .label("name the variable, not the token")
                .help("use uppercase letters, digits and `_`, e.g. \"MCP_TOKEN\"; the token itself never goes in the manifest"),
        );
    }
    for (index, host) in transport.allowed_hosts.iter().enumerate() {
        if host.is_empty()
            || host.contains(['/', ' '])
            || (host.contains(':') && host.parse::<std::net::IpAddr>().is_err())
        {
            errors.report(
                Diagnostic::value(
                    path.key("allowed_hosts").index(index),
                    format!("allowed host `{host}` is not a host name"),
                )
                .label("no scheme, port or path")
                .help("write host names or IP addresses, e.g. \"localhost\" or \"127.0.0.1\""),
            );
        }
    }
    for (index, origin) in transport.allowed_origins.iter().enumerate() {
        let valid = origin.split_once("://").is_some_and(|(scheme, rest)| {
            matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains('/')
        });
        if !valid {
            errors.report(
                Diagnostic::value(
                    path.key("allowed_origins").index(index),
                    format!("allowed origin `{origin}` is not scheme://host[:port]"),
                )
                .label("not an origin")
                .help("an origin has no path, e.g. \"https://app.example.com\""),
            );
        }
    }
    let too_small = [
        (
            "sse_keep_alive_seconds",
            transport.sse_keep_alive_seconds < 1,
            "a keep-alive comment needs at least 1 s between them",
        ),
        (
            "max_request_body_bytes",
            transport.max_request_body_bytes < 1024,
            "a request body limit below 1024 bytes refuses ordinary calls",
        ),
    ];
    for (key, small, help) in too_small {
        if small {
            errors.report(
                Diagnostic::value(path.key(key), format!("{key} is too small"))
                    .label("out of range")
                    .help(help),
            );
        }
    }
}

/// Checks `[audit]`.
pub(crate) fn audit(audit: &manifest::Audit, errors: &ErrorSink<'_>) -> AuditModel {
    let path = ManifestPath::root().key("audit");
    if audit.path.trim().is_empty() {
        errors.report(
            Diagnostic::value(path.key("path"), "audit path is empty")
                .label("empty")
                .help("give a file path, such as /var/log/monitor-mcp/audit.jsonl"),
        );
    }
    if audit.schema_version == 0 {
        errors.report(
            Diagnostic::value(
                path.key("schema_version"),
                "audit schema_version must be at least 1",
            )
            .label("zero")
            .help("start at 1 and raise it when the record format changes"),
        );
    }
    AuditModel {
        path: audit.path.clone(),
        schema_version: audit.schema_version,
        trace_id: audit.extra_fields.contains(&AuditField::TraceId),
        error_code: audit.extra_fields.contains(&AuditField::ErrorCode),
        subject: audit.extra_fields.contains(&AuditField::Subject),
        fsync: audit.fsync,
    }
}
