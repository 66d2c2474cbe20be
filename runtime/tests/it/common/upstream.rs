//! An rmcp server handler served over streamable HTTP on loopback, as the gateway's upstream.

use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// The router serving `handler` (a fresh clone per session) at `/mcp`.
pub(crate) fn mcp_router<H: ServerHandler + Clone>(handler: H) -> axum::Router {
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    axum::Router::new().nest_service("/mcp", service)
}

/// Serves `handler` over plain HTTP on a loopback port; returns its MCP URL.
pub(crate) async fn serve<H: ServerHandler + Clone>(handler: H) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = mcp_router(handler);
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    format!("http://{address}/mcp")
}
