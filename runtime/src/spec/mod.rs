//! Static descriptions of a server as the manifest states them: its transport, its tools and
//! their guards. Generated code fills them in as `static`s; the pipeline and the transports
//! read them.

mod auth;
pub mod catalog;
mod guards;
mod output;
pub mod skills;
mod task;
#[cfg(feature = "gateway")]
mod upstream;
mod write;

pub use self::auth::{AuthSpec, IntrospectionSpec};
pub use self::guards::{GuardSpec, RateLimitSpec, RedactPattern, TabularSpec};
pub use self::output::{OutputSpec, OutputValidator, validate_output};
#[cfg(feature = "gateway")]
pub use self::upstream::{
    EndpointSpec, ForwardedRequest, OnDrift, PinKind, PinSpec, UpstreamProtocol, UpstreamSpec,
};

use std::sync::Arc;

use harness_contract::transport::defaults;
use rmcp::model::{
    Implementation, InitializeResult, PromptsCapability, ResourcesCapability, ServerCapabilities,
    Tool, ToolAnnotations,
};

use crate::audit::AuditSpec;
use crate::spec::catalog::CatalogSpec;
use crate::validate::JsonObject;

pub use harness_contract::{
    RateLimitBackend, RateLimitScope, StoreUnreachable, TabularAction, TransportKind,
};

pub use self::task::{FormQuestion, TaskSpec, TaskSupport};
pub use self::write::{IdempotencySpec, WriteSpec};

/// The `[transport]` table of the manifest.
#[derive(Debug, Clone, Copy)]
pub struct TransportSpec {
    /// Default transport.
    pub kind: TransportKind,
    /// HTTP bind address.
    pub bind: &'static str,
    /// MCP endpoint path.
    pub path: &'static str,
    /// Health endpoint path.
    pub health_path: &'static str,
    /// Streamable HTTP keeps sessions (`Mcp-Session-Id`); false serves every request on its
    /// own, so replicas behind a load balancer need no sticky sessions.
    pub stateful: bool,
    /// Stateless streamable HTTP answers with plain JSON instead of an SSE stream.
    pub json_response: bool,
    /// Largest request body accepted.
    pub max_request_body_bytes: u64,
    /// Seconds between SSE keep-alive comments.
    pub sse_keep_alive_seconds: u64,
    /// Host names a request's `Host` may carry (DNS-rebinding protection).
    pub allowed_hosts: &'static [&'static str],
    /// Origins allowed besides those on an allowed host.
    pub allowed_origins: &'static [&'static str],
    /// The environment variable holding the bearer token, when auth is on.
    pub auth_token_env: Option<&'static str>,
    /// Allows a non-loopback bind without auth (logged as a warning).
    pub allow_public_bind: bool,
    /// Seconds in-flight calls get to finish after SIGTERM or SIGINT.
    pub shutdown_grace_seconds: u64,
    /// Milliseconds a request's head (request line and headers) may take from its first
    /// byte before the connection is closed.
    pub header_read_timeout_ms: u64,
    /// Milliseconds a connection may wait silent for a request (its first, or the next on a
    /// kept-alive connection) before it is closed.
    pub keep_alive_idle_ms: u64,
    /// Milliseconds a new connection may wait before sending its first byte.
    pub first_byte_timeout_ms: u64,
    /// Milliseconds from a request's head to the start of its response (408 past it).
    pub request_timeout_ms: u64,
    /// Most header fields a request may carry (431 past it).
    pub max_headers: u64,
    /// Largest request head in bytes (431 past it).
    pub max_header_bytes: u64,
    /// Most connections open at once: past it the connection idle longest gives way, and a
    /// new one is answered 503 only when every connection has a request in flight.
    pub max_connections: u64,
    /// Most long-lived event streams of each kind open at once (GET streams, listen streams).
    pub max_streams: u64,
}

impl TransportSpec {
    /// stdio with every HTTP setting at the manifest's defaults (for tests and benches that
    /// build a spec by hand).
    pub const fn stdio() -> Self {
        Self {
            kind: TransportKind::Stdio,
            bind: defaults::BIND,
            path: defaults::PATH,
            health_path: defaults::HEALTH_PATH,
            stateful: defaults::STATEFUL,
            json_response: defaults::JSON_RESPONSE,
            max_request_body_bytes: defaults::MAX_REQUEST_BODY_BYTES,
            sse_keep_alive_seconds: defaults::SSE_KEEP_ALIVE_SECONDS,
            allowed_hosts: defaults::ALLOWED_HOSTS,
            allowed_origins: defaults::ALLOWED_ORIGINS,
            auth_token_env: None,
            allow_public_bind: defaults::ALLOW_PUBLIC_BIND,
            shutdown_grace_seconds: defaults::SHUTDOWN_GRACE_SECONDS,
            header_read_timeout_ms: defaults::HEADER_READ_TIMEOUT_MS,
            keep_alive_idle_ms: defaults::KEEP_ALIVE_IDLE_MS,
            first_byte_timeout_ms: defaults::FIRST_BYTE_TIMEOUT_MS,
            request_timeout_ms: defaults::REQUEST_TIMEOUT_MS,
            max_headers: defaults::MAX_HEADERS,
            max_header_bytes: defaults::MAX_HEADER_BYTES,
            max_connections: defaults::MAX_CONNECTIONS,
            max_streams: defaults::max_streams(defaults::MAX_CONNECTIONS),
        }
    }
}

/// The `[server]` table of the manifest.
#[derive(Debug, Clone, Copy)]
pub struct ServerSpec {
    /// Implementation name.
    pub name: &'static str,
    /// Implementation version.
    pub version: &'static str,
    /// Display name.
    pub title: Option<&'static str>,
    /// Instructions for the model.
    pub instructions: Option<&'static str>,
    /// Default transport settings.
    pub transport: TransportSpec,
    /// The audit log.
    pub audit: AuditSpec,
    /// Where Redis-backed rate limits keep their windows.
    pub rate_limit_store: RateLimitStoreSpec,
    /// sha256 of the manifest text the server was generated from.
    pub manifest_sha256: &'static str,
    /// Resources, resource templates and prompts.
    pub catalog: CatalogSpec,
    /// The environment variable holding the key that seals input-required request state
    /// (2026-07-28); without one, a body may still ask, but earlier rounds' answers are not
    /// carried to later ones.
    pub request_state_key_env: Option<&'static str>,
    /// Calls (`tools/call`) in flight at once in this process; past it a call is shed
    /// (`ServerBusy`) rather than queued. `None`: no bound but the transport's own.
    pub max_in_flight: Option<u32>,
}

impl ServerSpec {
    /// The `initialize` result advertising tools, and what the manifest has besides them;
    /// `server/discover` (2026-07-28) answers with the same capabilities, `resources.subscribe`
    /// included: 2025-11-25 clients use it with `resources/subscribe`, 2026-07-28 clients with
    /// `subscriptions/listen`.
    #[allow(
        deprecated,
        reason = "bodies may log to 2025-11-25 clients; rmcp marks MCP logging deprecated (SEP-2577)"
    )]
    pub fn server_info(&self) -> InitializeResult {
        let mut implementation = Implementation::new(self.name, self.version);
        if let Some(title) = self.title {
            implementation = implementation.with_title(title);
        }
        let catalog = &self.catalog;
        // Skill files are resources: the extension requires the capability.
        let has_resources = !catalog.resources.is_empty()
            || !catalog.templates.is_empty()
            || !catalog.skills.is_empty();
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        if has_resources {
            let mut resources = ResourcesCapability::default();
            if catalog.resources.iter().any(|resource| resource.subscribe) {
                resources.subscribe = Some(true);
            }
            capabilities.resources = Some(resources);
        }
        if !catalog.prompts.is_empty() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if !catalog.skills.is_empty() {
            skills::declare_extension(&mut capabilities);
        }
        if !catalog.prompts.is_empty() || !catalog.templates.is_empty() {
            capabilities.completions = Some(JsonObject::new());
        }
        let mut info = InitializeResult::new(capabilities);
        info.server_info = implementation;
        info.instructions = self.instructions.map(str::to_owned);
        info
    }
}

/// MCP tool annotations as the manifest states them (unset hints are omitted).
#[derive(Debug, Clone, Copy, Default)]
pub struct AnnotationSpec {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

/// One tool as `tools/list` publishes it.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// MCP tool name.
    pub name: &'static str,
    /// Display name.
    pub title: Option<&'static str>,
    /// Description for the model.
    pub description: &'static str,
    /// The published inputSchema, as JSON text.
    pub input_schema: &'static str,
    /// The declared result (outputSchema and validator), when the manifest declares one.
    pub output: Option<OutputSpec>,
    /// Behaviour hints.
    pub annotations: AnnotationSpec,
    /// The guard policy (the manifest's defaults with the tool's overrides applied).
    pub guards: GuardSpec,
    /// Confirmation before the body runs.
    pub write: WriteSpec,
    /// Its calls as tasks (`[tools.task]`); `None`: always answered inline.
    pub task: Option<TaskSpec>,
}

/// The `[rate_limit_store]` table of the manifest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimitStoreSpec {
    /// The environment variable holding the Redis URL.
    pub url_env: &'static str,
    /// Longest wait for Redis per call, connecting included (milliseconds).
    pub timeout_ms: u64,
    /// Refuse or admit while Redis is unreachable.
    pub when_unreachable: StoreUnreachable,
    /// Prefix of every Redis key.
    pub key_prefix: &'static str,
}

impl RateLimitStoreSpec {
    /// The manifest's defaults (`HARNESS_REDIS_URL`, 250 ms, refuse, `harness`).
    pub const DEFAULT: Self = {
        use harness_contract::guards::store_defaults;
        Self {
            url_env: store_defaults::URL_ENV,
            timeout_ms: store_defaults::TIMEOUT_MS,
            when_unreachable: StoreUnreachable::Refuse,
            key_prefix: store_defaults::KEY_PREFIX,
        }
    };
}

impl ToolSpec {
    /// The rmcp tool definition.
    ///
    /// # Panics
    /// If `input_schema` or an output schema is not a JSON object, which harness-codegen
    /// never emits.
    pub fn to_tool(&self) -> Tool {
        let schema: JsonObject = serde_json::from_str(self.input_schema)
            .expect("generated inputSchema is a JSON object");
        let mut tool = Tool::new(self.name, self.description, Arc::new(schema));
        if let Some(output) = &self.output {
            let schema: JsonObject = serde_json::from_str(output.schema)
                .expect("generated outputSchema is a JSON object");
            tool.output_schema = Some(Arc::new(schema));
        }
        if let Some(title) = self.title {
            tool = tool.with_title(title);
        }
        let hints = self.annotations;
        if [
            hints.read_only,
            hints.destructive,
            hints.idempotent,
            hints.open_world,
        ]
        .iter()
        .any(Option::is_some)
        {
            let mut annotations = ToolAnnotations::new();
            annotations.read_only_hint = hints.read_only;
            annotations.destructive_hint = hints.destructive;
            annotations.idempotent_hint = hints.idempotent;
            annotations.open_world_hint = hints.open_world;
            tool = tool.with_annotations(annotations);
        }
        tool
    }
}

/// One file of the embedded bundle.
#[derive(Debug, Clone, Copy)]
pub struct BundleFile {
    /// Path inside the bundle.
    pub path: &'static str,
    /// Contents.
    pub contents: &'static str,
    /// Written with mode 0755.
    pub executable: bool,
}

/// The embedded bundle.
#[derive(Debug, Clone, Copy)]
pub struct BundleSpec {
    /// Every generated file.
    pub files: &'static [BundleFile],
    /// Where the server binary goes inside the bundle (the sidecar's and the verifier's
    /// build contexts).
    pub binary_paths: &'static [&'static str],
}
