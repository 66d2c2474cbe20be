//! An rmcp server handler served over streamable HTTP on loopback, as the gateway's upstream,
//! the one-tool list such handlers give, and the gateway's spec of such an upstream.

use std::sync::Arc;

use harness_runtime::spec::{
    EndpointSpec, ForwardedRequest, OnDrift, PinSpec, UpstreamProtocol, UpstreamSpec,
};

use rmcp::ServerHandler;
use rmcp::model::{ListToolsResult, Tool};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// One tool, `name`, that takes no arguments: the whole `tools/list` of a test upstream.
pub(crate) fn one_tool(name: &'static str, description: &'static str) -> ListToolsResult {
    let schema = serde_json::json!({"type": "object", "properties": {}});
    let tool = Tool::new(
        name,
        description,
        Arc::new(schema.as_object().unwrap().clone()),
    );
    ListToolsResult::with_all_items(vec![tool])
}

/// The router serving `handler` (a fresh clone per session) at `/mcp`.
pub(crate) fn mcp_router<H: ServerHandler + Clone>(handler: H) -> axum::Router {
    router_with(handler, Arc::default())
}

fn router_with<H: ServerHandler + Clone>(
    handler: H,
    sessions: Arc<LocalSessionManager>,
) -> axum::Router {
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        sessions,
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    axum::Router::new().nest_service("/mcp", service)
}

/// Serves `handler` over plain HTTP on a loopback port; returns its MCP URL.
pub(crate) async fn serve<H: ServerHandler + Clone>(handler: H) -> String {
    serve_with(handler, Arc::default()).await
}

/// [`serve`] with its sessions kept by `sessions`, so that a test can make the upstream
/// forget them.
pub(crate) async fn serve_with<H: ServerHandler + Clone>(
    handler: H,
    sessions: Arc<LocalSessionManager>,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = router_with(handler, sessions);
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
