//! Transports: stdio, and Streamable HTTP on axum with a health route.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::get;
use rmcp::ServerHandler;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The stdio session could not start (e.g. the client sent no `initialize`).
    #[error("stdio session failed to start: {0}")]
    StdioInit(String),
    /// The stdio session ended abnormally.
    #[error("stdio session failed: {0}")]
    Stdio(String),
    /// The HTTP listener could not bind.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
    /// The HTTP server failed.
    #[error("HTTP server failed: {0}")]
    Http(std::io::Error),
}

/// Serves one MCP session over stdin/stdout until the client disconnects.
pub async fn serve_stdio<H: ServerHandler>(handler: H) -> Result<(), ServeError> {
    let running = handler
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| ServeError::StdioInit(error.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|error| ServeError::Stdio(error.to_string()))?;
    Ok(())
}

/// Where and how the HTTP transport listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Bind address.
    pub bind: SocketAddr,
    /// MCP endpoint path.
    pub path: String,
    /// Health endpoint path.
    pub health_path: String,
}

/// The axum router: the MCP endpoint at `options.path` and `GET options.health_path`.
pub fn http_router<H: ServerHandler + Clone>(
    handler: H,
    options: &HttpOptions,
    shutdown: CancellationToken,
) -> Router {
    let config = StreamableHttpServerConfig::default().with_cancellation_token(shutdown);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .route(
            &options.health_path,
            get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }),
        )
        .nest_service(&options.path, service)
}

/// Serves Streamable HTTP until SIGINT or SIGTERM, then shuts down gracefully.
pub async fn serve_http<H: ServerHandler + Clone>(
    handler: H,
    options: HttpOptions,
) -> Result<(), ServeError> {
    let shutdown = CancellationToken::new();
    let router = http_router(handler, &options, shutdown.clone());
    let listener = tokio::net::TcpListener::bind(options.bind)
        .await
        .map_err(|source| ServeError::Bind {
            addr: options.bind,
            source,
        })?;
    let local = listener.local_addr().map_err(ServeError::Http)?;
    tracing::info!(addr = %local, path = %options.path, health = %options.health_path, "serving streamable HTTP");
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            tracing::info!("shutting down");
            shutdown.cancel();
        })
        .await
        .map_err(ServeError::Http)
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("SIGTERM handler installs");
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
