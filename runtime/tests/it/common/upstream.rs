//! An rmcp server handler served over streamable HTTP on loopback, as the gateway's upstream,
//! and the gateway's spec of such an upstream.

use std::sync::Arc;

use harness_runtime::spec::{
    EndpointSpec, ForwardedRequest, OnDrift, PinSpec, UpstreamProtocol, UpstreamSpec,
};

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

/// A 2026-07-28 upstream named `name` at `url` (no headers, no restarts, 5 s per request,
/// drift refused), which may send the client `forward`, with `pins`.
pub(crate) fn spec_2026(
    name: &'static str,
    url: &str,
    forward: &'static [ForwardedRequest],
    pins: &'static [PinSpec],
) -> &'static UpstreamSpec {
    spec(name, url, UpstreamProtocol::V2026_07_28, forward, pins)
}

/// An upstream named `name` at `url` speaking `protocol` (no headers, no restarts, 5 s per
/// request, drift refused), which may send the client `forward`, with `pins`.
pub(crate) fn spec(
    name: &'static str,
    url: &str,
    protocol: UpstreamProtocol,
    forward: &'static [ForwardedRequest],
    pins: &'static [PinSpec],
) -> &'static UpstreamSpec {
    Box::leak(Box::new(UpstreamSpec {
        name,
        endpoint: EndpointSpec::StreamableHttp {
            url: Box::leak(url.to_owned().into_boxed_str()),
            headers: &[],
            ca_pem: None,
        },
        timeout_ms: 5000,
        max_restarts: 0,
        backoff_ms: 10,
        on_drift: OnDrift::Refuse,
        protocol,
        forward,
        pins,
    }))
}
