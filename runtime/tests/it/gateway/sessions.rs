//! The gateway's tools served to a client session in this process: the list-changed
//! notifications it is sent, and what an upstream's flood of notifications leaves of itself.

use std::sync::Arc;
use std::time::Duration;

use harness_runtime::spec::OnDrift;
use harness_runtime::upstream::Upstreams;
use harness_runtime::validate::NoArguments;
use harness_runtime::{Call, LogLevel};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ErrorData, ServerConfig};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;

use super::{GATEWAY_GUARDS, Gateway, NAMES, error_code, gateway, tool};

/// A server of the gateway's tools in this process, doing only what the generated one does
/// about the listing: advertising `tools.listChanged` and registering its sessions (and
/// saying when it has).
#[derive(Clone)]
struct Listed(Arc<Upstreams>, Arc<tokio::sync::Notify>);

impl rmcp::ServerHandler for Listed {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        let capabilities = rmcp::model::ServerCapabilities::builder()
            .enable_tools()
            .build();
        self.0
            .advertise(rmcp::model::InitializeResult::new(capabilities))
    }

    async fn on_initialized(
        &self,
        context: rmcp::service::NotificationContext<rmcp::service::RoleServer>,
    ) {
        self.0.watch_list(context.peer);
        self.1.notify_one();
    }
}

/// A session client that counts the `notifications/tools/list_changed` it is sent.
#[derive(Clone, Default)]
struct Told(Arc<tokio::sync::Notify>);

impl rmcp::ClientHandler for Told {
    async fn on_tool_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<rmcp::service::RoleClient>,
    ) {
        self.0.notify_one();
    }
}

#[tokio::test]
async fn with_on_drift_drop_a_changed_tool_leaves_the_listing_and_sessions_are_told() {
    let gateway = gateway(&["rugpull"], OnDrift::Drop, &[]).await;
    let definitions: Vec<rmcp::model::Tool> = NAMES
        .iter()
        .map(|name| tool(name, GATEWAY_GUARDS).to_tool())
        .collect();
    assert_eq!(gateway.upstreams.visible(&definitions).len(), NAMES.len());
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let registered = Arc::new(tokio::sync::Notify::new());
    let listed = Listed(Arc::clone(&gateway.upstreams), Arc::clone(&registered));
    let server = tokio::spawn(listed.serve(server_side));
    let told = Told::default();
    let session = told.clone().serve(client_side).await.expect("initialized");
    let _server = server.await.unwrap().expect("served");
    let capabilities = &session.peer_info().expect("the server's info").capabilities;
    assert_eq!(
        capabilities.tools.as_ref().unwrap().list_changed,
        Some(true)
    );
    registered.notified().await;
    gateway.call("echo").await;
    tokio::time::timeout(Duration::from_secs(20), told.0.notified())
        .await
        .expect("the session is told the list changed");
    gateway
        .until("echo to be dropped", |g| {
            g.upstreams.visible(&definitions).len() == NAMES.len() - 1
        })
        .await;
    assert!(
        !gateway
            .upstreams
            .visible(&definitions)
            .iter()
            .any(|t| t.name == "echo")
    );
    assert_eq!(error_code(&gateway.call("echo").await), "UpstreamDrift");
}

/// A server of the gateway's tools in this process, each call run through the pipeline as the
/// generated server runs it, with the session's log level at `info`.
#[derive(Clone)]
struct Served(Arc<Gateway>);

impl rmcp::ServerHandler for Served {
    fn get_info(&self) -> ServerConfig {
        let capabilities = rmcp::model::ServerCapabilities::builder()
            .enable_tools()
            .build();
        rmcp::model::InitializeResult::new(capabilities)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (name, call) = Call::split(request, context, Some(LogLevel::Info));
        let index = NAMES.iter().position(|n| *n == name).unwrap();
        self.0
            .pipeline
            .respond(index, call, |args: NoArguments, ctx| {
                self.0.upstreams.call(0, index, args, ctx)
            })
            .await
    }
}

/// The upstream sends 2,000 log lines, each with a tag block, and 2,000 progress
/// notifications before it answers: the client asked for both, and gets a bounded few of
/// each, stripped, progress increasing.
#[tokio::test]
async fn an_upstream_notification_flood_reaches_the_client_bounded_and_stripped() {
    let gateway = Arc::new(gateway(&[], OnDrift::Refuse, &[]).await);
    let seen = crate::common::clients::exchange(
        Served(Arc::clone(&gateway)),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "flood", "arguments": {}, "_meta": {"progressToken": "f1"}}}),
    )
    .await;
    let (mut logs, mut progress) = (Vec::new(), Vec::new());
    for message in &seen {
        match message["method"].as_str() {
            Some("notifications/message") => logs.push(message["params"]["data"].clone()),
            Some("notifications/progress") => progress.push(message["params"].clone()),
            _ => {}
        }
    }
    let reply = seen.last().expect("the reply");
    assert_eq!(reply["result"]["content"][0]["text"], "flooded", "{reply}");
    println!(
        "{} log and {} progress notifications of 2,000 each",
        logs.len(),
        progress.len()
    );
    // The notifier's bound on log messages per call is 100.
    assert!(
        (1..=100).contains(&logs.len()),
        "{} log messages",
        logs.len()
    );
    for data in &logs {
        let data = data.as_str().expect("text");
        assert!(
            data.starts_with("line ") && !data.contains('<') && !data.contains("obey"),
            "{data:?}"
        );
    }
    // Progress is rate-bounded (one per 10 ms at most): the 2,000 came in far less than
    // the 20 s that would let them all through.
    assert!(
        !progress.is_empty() && progress.len() < 2000,
        "{}",
        progress.len()
    );
    let values: Vec<f64> = progress
        .iter()
        .map(|p| {
            assert_eq!(p["progressToken"], "f1");
            p["progress"].as_f64().unwrap()
        })
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
}
