//! The generated server inside an existing axum application: [`router`] returns its MCP
//! endpoint and health route, behind the same Host, Origin and bearer checks as `serve`, to
//! nest under a path of the application's own router, with the manifest's request timeout
//! and the one answer to a JSON-RPC batch; the application serves it and owns the shutdown
//! and the connections (their timers and limits are its own server's, not `[transport]`'s).
//!
//! ```ignore
//! let shutdown = CancellationToken::new();
//! let mcp = harness_runtime::embed::router(server, "/var/log/app/mcp-audit.jsonl".as_ref(), shutdown.clone())?;
//! let app = axum::Router::new()
//!     .route("/", get(index))
//!     .nest("/tools", mcp); // MCP at /tools/mcp, health at /tools/health
//! axum::serve(listener, app)
//!     .with_graceful_shutdown(async move {
//!         signal().await;
//!         shutdown.cancel(); // ends the MCP sessions and event streams too
//!     })
//!     .await?;
//! ```

use std::path::Path;

use std::sync::Arc;

use axum::Router;
use tokio_util::sync::CancellationToken;

use crate::audit::{AuditError, AuditLog};
use crate::server::GeneratedServer;
use crate::spec::TransportKind;
use crate::transport::fast_path::StatelessAnswer;
use crate::transport::http::{HttpOptions, HttpTransport, MissingToken, http_router};

/// Why the server cannot be mounted.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The manifest turns auth on but the token's variable is unset or empty.
    #[error(transparent)]
    MissingToken(#[from] MissingToken),
    /// `[auth]` cannot start (introspection's credentials are missing, or the `oauth` feature
    /// is off).
    #[error(transparent)]
    Auth(#[from] crate::auth::AuthSetupError),
    /// The audit log cannot be opened: a server that cannot audit must not serve.
    #[error(transparent)]
    Audit(#[from] AuditError),
    /// A rate limit kept in Redis has no usable Redis URL, or OTLP export cannot start.
    #[error(transparent)]
    Setup(#[from] crate::pipeline::SetupError),
    /// The server was already given an audit log (it was mounted or served before).
    #[error("this server already has an audit log: mount a fresh one")]
    AlreadyAudited,
}

/// The server's HTTP endpoints as a router to nest in an application: the manifest's MCP
/// path (streamable HTTP, stateful or stateless as the manifest says; the legacy SSE pair
/// when its transport is `sse`) and health path, behind its Host, Origin and bearer checks.
/// Every call is audited to `audit_path`, created (empty) before this returns. Cancelling
/// `shutdown` ends the MCP sessions and event streams: cancel it where the application's
/// graceful shutdown begins. With OTLP export on (the `otel` feature and
/// `OTEL_EXPORTER_OTLP_ENDPOINT`), call `server.pipeline().flush_telemetry()` once the
/// application has stopped, outside the async runtime, to send the last spans.
pub fn router<S: GeneratedServer>(
    server: S,
    audit_path: &Path,
    shutdown: CancellationToken,
) -> Result<Router, EmbedError> {
    // As `serve` does: the application's own reqwest clients share this build's reqwest,
    // which has no rustls provider of its own (see http_client.rs).
    #[cfg(any(feature = "gateway", feature = "oauth", feature = "otel"))]
    crate::http_client::install_default_provider();
    let spec = server.spec();
    let kind = match spec.transport.kind {
        TransportKind::Sse => HttpTransport::Sse,
        TransportKind::StreamableHttp | TransportKind::Stdio => HttpTransport::StreamableHttp,
    };
    #[cfg_attr(not(feature = "gateway"), expect(unused_mut))]
    let mut options = HttpOptions::from_manifest(spec.transport, kind)?.with_auth(server.auth())?;
    // Upstreams connect on their first call here (the router is built outside the runtime).
    #[cfg(feature = "gateway")]
    {
        options.upstreams = server.upstreams();
    }
    server.pipeline().check_setup()?;
    crate::server::check_upstreams(&server)?;
    let audit = AuditLog::open(audit_path, spec.audit)?;
    server
        .pipeline()
        .install_audit(audit)
        .map_err(|_| EmbedError::AlreadyAudited)?;
    let fast: Arc<dyn StatelessAnswer> = Arc::new(server.clone());
    Ok(http_router(server, &options, shutdown, Some(fast)))
}
