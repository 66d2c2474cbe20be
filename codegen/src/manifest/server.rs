//! The server-wide tables: `[server]`, `[transport]`, `[audit]` and `[rate_limit_store]`, with
//! their defaults (the transport's and the store's are harness-contract's, which the runtime
//! uses too). Each `Default` is what an absent table deserializes to, so it cannot drift from
//! the `serde` defaults.

use schemars::JsonSchema;
use serde::Deserialize;

use harness_contract::guards::store_defaults;
use harness_contract::transport::defaults;
use harness_contract::{FsyncPolicy, RateLimitBackend, StoreUnreachable, TransportKind};

/// The `[server]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Server {
    /// Implementation name sent in `serverInfo.name`, e.g. `llmkb-readonly-monitor`.
    pub name: String,
    /// Implementation version sent in `serverInfo.version`.
    pub version: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Instructions for the model, sent in the `initialize` result.
    pub instructions: Option<String>,
    /// Publish the built-in read-only tools `health`, `ping` and `diagnostics`.
    #[serde(default = "yes")]
    pub register_builtins: bool,
    /// The environment variable holding the key (at least 32 bytes) that seals the request
    /// state of input-required results (2026-07-28), so a body may ask the client over
    /// several rounds; `serve` refuses to start when it is named but unset. The key never
    /// goes in the manifest.
    pub request_state_key_env: Option<String>,
    /// Tool calls in flight at once in this process (1 to 100000); one more is shed at once
    /// with `ServerBusy` rather than queued. Default: no bound of its own (over HTTP,
    /// `[transport] max_connections` already bounds calls in flight, one per request).
    pub max_in_flight: Option<u32>,
}

fn yes() -> bool {
    true
}

/// The `[transport]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Transport {
    /// The default transport of `serve`.
    #[serde(default)]
    pub kind: TransportKind,
    /// Socket address the HTTP transports bind to.
    #[serde(default = "default_bind")]
    pub bind: String,
    /// Path of the MCP endpoint (the legacy SSE transport serves `<path>/sse` and
    /// `<path>/message`).
    #[serde(default = "default_path")]
    pub path: String,
    /// Path answering `GET` with 200 `{"status":"ok"}`.
    #[serde(default = "default_health_path")]
    pub health_path: String,
    /// Streamable HTTP sessions (`Mcp-Session-Id`); false serves each request on its own, so
    /// replicas behind a load balancer need no sticky sessions.
    #[serde(default = "default_stateful")]
    pub stateful: bool,
    /// Stateless streamable HTTP answers with plain JSON rather than an SSE stream.
    #[serde(default = "default_json_response")]
    pub json_response: bool,
    /// Largest request body accepted (bytes).
    #[serde(default = "default_max_body")]
    pub max_request_body_bytes: u64,
    /// Seconds between SSE keep-alive comments.
    #[serde(default = "default_keep_alive")]
    pub sse_keep_alive_seconds: u64,
    /// Host names a request's `Host` header may carry (DNS-rebinding protection); loopback
    /// by default.
    #[serde(default = "default_allowed_hosts")]
    pub allowed_hosts: Vec<String>,
    /// Origins (`scheme://host[:port]`) allowed besides those on an allowed host.
    #[serde(default = "default_allowed_origins")]
    pub allowed_origins: Vec<String>,
    /// Name of the environment variable holding the bearer token; auth is on when set.
    /// The token itself never goes in the manifest.
    pub auth_token_env: Option<String>,
    /// Serve a non-loopback bind without auth (a warning is logged at startup).
    #[serde(default = "default_allow_public_bind")]
    pub allow_public_bind: bool,
    /// Seconds in-flight calls get to finish after SIGTERM or SIGINT.
    #[serde(default = "default_grace")]
    pub shutdown_grace_seconds: u64,
    /// Milliseconds a request's head (request line and headers) may take from its first
    /// byte; a client that stalls mid-head is disconnected (slow-header attacks).
    #[serde(default = "default_header_read_timeout_ms")]
    pub header_read_timeout_ms: u64,
    /// Milliseconds a connection may wait silent for a request (its first, or the next one
    /// on a kept-alive connection) before the server closes it.
    #[serde(default = "default_keep_alive_idle_ms")]
    pub keep_alive_idle_ms: u64,
    /// Milliseconds a new connection may wait before its first byte; one that sends nothing
    /// this long is closed (it would otherwise hold a place until `keep_alive_idle_ms`).
    #[serde(default = "default_first_byte_timeout_ms")]
    pub first_byte_timeout_ms: u64,
    /// Milliseconds from a request's head to the start of its response, reading its body
    /// included; past it the answer is 408. Must exceed every tool's and upstream's
    /// `timeout_ms` by 5 s, so a call that times out gets its own envelope.
    #[serde(default = "default_request_timeout_ms")]
    pub request_timeout_ms: u64,
    /// Most header fields a request may carry; more get 431.
    #[serde(default = "default_max_headers")]
    pub max_headers: u64,
    /// Largest request head (request line and headers) in bytes; larger gets 431.
    #[serde(default = "default_max_header_bytes")]
    pub max_header_bytes: u64,
    /// Most connections open at once (each is a file descriptor). Past it, the connection
    /// that has been idle longest (one that never sent a byte first) is closed to admit the
    /// new one; only when every connection has a request in flight or a stream open is the
    /// new one answered 503 and closed.
    #[serde(default = "default_max_connections")]
    pub max_connections: u64,
    /// Most long-lived event streams of each kind open at once: GET streams (legacy SSE's,
    /// streamable HTTP's standalone one; 503 past it) and `subscriptions/listen` streams
    /// (ended at once past it). Default: a quarter of `max_connections`; at most a quarter,
    /// so that streams never hold more than half the connections.
    pub max_streams: Option<u64>,
}

impl Default for Transport {
    /// Every key at its default: what an absent table deserializes to.
    fn default() -> Self {
        toml::Table::new()
            .try_into()
            .expect("every key of the table has a default")
    }
}

fn default_bind() -> String {
    defaults::BIND.to_owned()
}

fn default_path() -> String {
    defaults::PATH.to_owned()
}

fn default_health_path() -> String {
    defaults::HEALTH_PATH.to_owned()
}

fn default_stateful() -> bool {
    defaults::STATEFUL
}

fn default_json_response() -> bool {
    defaults::JSON_RESPONSE
}

fn default_max_body() -> u64 {
    defaults::MAX_REQUEST_BODY_BYTES
}

fn default_keep_alive() -> u64 {
    defaults::SSE_KEEP_ALIVE_SECONDS
}

fn default_allowed_hosts() -> Vec<String> {
    owned(defaults::ALLOWED_HOSTS)
}

fn default_allowed_origins() -> Vec<String> {
    owned(defaults::ALLOWED_ORIGINS)
}

fn default_allow_public_bind() -> bool {
    defaults::ALLOW_PUBLIC_BIND
}

fn owned(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|text| (*text).to_owned()).collect()
}

fn default_grace() -> u64 {
    defaults::SHUTDOWN_GRACE_SECONDS
}

fn default_header_read_timeout_ms() -> u64 {
    defaults::HEADER_READ_TIMEOUT_MS
}

fn default_keep_alive_idle_ms() -> u64 {
    defaults::KEEP_ALIVE_IDLE_MS
}

fn default_first_byte_timeout_ms() -> u64 {
    defaults::FIRST_BYTE_TIMEOUT_MS
}

fn default_request_timeout_ms() -> u64 {
    defaults::REQUEST_TIMEOUT_MS
}

fn default_max_headers() -> u64 {
    defaults::MAX_HEADERS
}

fn default_max_header_bytes() -> u64 {
    defaults::MAX_HEADER_BYTES
}

fn default_max_connections() -> u64 {
    defaults::MAX_CONNECTIONS
}

/// The `[audit]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Audit {
    /// The JSONL file in the bundle's sidecar, where the verifier collects it; created before
    /// serving. A local `serve` writes under the user's state directory unless `--audit-path`
    /// says otherwise.
    #[serde(default = "default_audit_path")]
    pub path: String,
    /// The `schema_version` of every record.
    #[serde(default = "default_audit_schema_version")]
    pub schema_version: u32,
    /// Optional fields added to the seven every record has: `trace_id`, `error_code`,
    /// `subject` (the caller's token subject, with `[auth]`).
    #[serde(default)]
    pub extra_fields: Vec<AuditField>,
    /// When records reach the disk.
    #[serde(default)]
    pub fsync: FsyncPolicy,
    /// Every outcome a record may have (the verifier refuses others); the harness's own
    /// outcomes by default. Add the outcomes your tool bodies set with `with_outcome`.
    pub outcomes: Option<Vec<String>>,
}

impl Default for Audit {
    /// Every key at its default: what an absent table deserializes to.
    fn default() -> Self {
        toml::Table::new()
            .try_into()
            .expect("every key of the table has a default")
    }
}

fn default_audit_path() -> String {
    "/var/log/monitor-mcp/audit.jsonl".to_owned()
}

fn default_audit_schema_version() -> u32 {
    1
}

/// An optional audit record field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditField {
    /// The call's trace id.
    TraceId,
    /// The envelope's error code, on failures.
    ErrorCode,
    /// The caller's access-token subject (needs `[auth]`; null for a call without one).
    Subject,
}

/// The `[rate_limit_store]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RateLimitStore {
    /// The backend of every rate limit that names none: `memory` (default; each process keeps
    /// its own window) or `redis` (one exact window shared by every replica).
    #[serde(default)]
    pub backend: RateLimitBackend,
    /// The environment variable holding the Redis URL (`redis://host:6379/0`), read when the
    /// server starts. The URL never goes in the manifest: it may carry a password.
    #[serde(default = "default_store_url_env")]
    pub url_env: String,
    /// Longest wait for Redis per call, connecting included, in milliseconds; past it the
    /// store counts as unreachable.
    #[serde(default = "default_store_timeout_ms")]
    pub timeout_ms: u64,
    /// When Redis is unreachable: `refuse` the call (default; error_code
    /// `RateLimitStoreUnavailable`, outcome `rate_limit_unavailable`) or `admit` it and log.
    #[serde(default)]
    pub when_unreachable: StoreUnreachable,
    /// Prefix of every Redis key; the server and tool names follow it, so servers sharing a
    /// Redis keep separate windows.
    #[serde(default = "default_store_key_prefix")]
    pub key_prefix: String,
}

impl Default for RateLimitStore {
    /// Every key at its default: what an absent table deserializes to.
    fn default() -> Self {
        toml::Table::new()
            .try_into()
            .expect("every key of the table has a default")
    }
}

fn default_store_url_env() -> String {
    store_defaults::URL_ENV.to_owned()
}

fn default_store_timeout_ms() -> u64 {
    store_defaults::TIMEOUT_MS
}

fn default_store_key_prefix() -> String {
    store_defaults::KEY_PREFIX.to_owned()
}
