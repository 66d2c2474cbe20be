//! `subscriptions/listen` (MCP 2026-07-28) over real stateless streamable HTTP, as a client
//! meets it: the capability in `server/discover`, the acknowledgment first on the stream with
//! only the subscribable resources it asked for, `notifications/resources/updated` for those
//! and no others, and the stream's end when the client leaves or the server tears it down.
//! The handler does what the generated one does: it hands each request to the pipeline.

use crate::common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use harness_runtime::Pipeline;
use harness_runtime::catalog::{CatalogSpec, ResourceContent, ResourceSpec};
use harness_runtime::spec::{ServerSpec, ToolSpec, TransportKind, TransportSpec};
use harness_runtime::subscriptions::NotSubscribable;
use harness_runtime::transport::{HttpOptions, HttpTransport, http_router};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use rmcp::ServerHandler;
use rmcp::model::{ErrorData, InitializeResult, SubscriptionFilter};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use common::SERVER;
use common::listening::Listening;

/// A resource the manifest marks `subscribe = true`.
const fn resource(uri: &'static str, subscribe: bool) -> ResourceSpec {
    ResourceSpec {
        uri,
        name: "r",
        title: None,
        description: None,
        mime_type: "text/plain",
        content: ResourceContent::Text("content"),
        size: 7,
        subscribe,
    }
}

static LISTEN_SERVER: ServerSpec = ServerSpec {
    transport: TransportSpec {
        kind: TransportKind::StreamableHttp,
        stateful: false,
        json_response: true,
        ..TransportSpec::stdio()
    },
    catalog: CatalogSpec {
        resources: &[
            resource("test://watched", true),
            resource("test://other", true),
            resource("test://static", false),
        ],
        ..CatalogSpec::EMPTY
    },
    ..SERVER
};

/// The same server, with room for two listen streams.
static TWO_STREAMS: ServerSpec = ServerSpec {
    transport: TransportSpec {
        max_streams: 2,
        ..LISTEN_SERVER.transport
    },
    ..LISTEN_SERVER
};

static TOOLS: [ToolSpec; 0] = [];

/// The server on a loopback port: its pipeline and address.
async fn serve() -> (Arc<Pipeline>, SocketAddr) {
    serve_spec(&LISTEN_SERVER).await
}

/// The server `spec` describes on a loopback port: its pipeline and address.
async fn serve_spec(spec: &'static ServerSpec) -> (Arc<Pipeline>, SocketAddr) {
    let pipeline = Arc::new(Pipeline::new(spec, &TOOLS));
    let options =
        HttpOptions::from_manifest(spec.transport, HttpTransport::StreamableHttp).unwrap();
    let router = http_router(
        Listening(Arc::clone(&pipeline), &LISTEN_SERVER),
        &options,
        CancellationToken::new(),
        None,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (pipeline, address)
}

/// The `_meta` every 2026-07-28 request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// POSTs `body` to the MCP endpoint on a connection of its own (hyper's client: a response
/// dropped mid-stream closes that connection, which is how a client goes away).
async fn post(address: SocketAddr, body: Value) -> hyper::Response<Incoming> {
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let request = hyper::Request::post("/mcp")
        .header("host", address.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        // SEP-2243's standard header, which 2026-07-28 requires beside the body's method.
        .header("mcp-method", body["method"].as_str().unwrap())
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    sender.send_request(request).await.unwrap()
}

/// The whole body of a plain JSON reply.
async fn json_reply(response: hyper::Response<Incoming>) -> Value {
    let body = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&body).unwrap()
}

/// An open listen stream, read one JSON-RPC message at a time.
struct Stream {
    response: hyper::Response<Incoming>,
    buffer: String,
}

impl Stream {
    /// Opens `subscriptions/listen` with id `id` and this filter.
    async fn open(address: SocketAddr, id: u64, notifications: Value) -> Self {
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "subscriptions/listen",
            "params": {"_meta": meta(), "notifications": notifications},
        });
        let response = post(address, body).await;
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        Self {
            response,
            buffer: String::new(),
        }
    }

    /// The next message on the stream, `None` once the server has closed it. SSE comments
    /// (keep-alives) and events without data (priming) are skipped.
    async fn next(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if !data.is_empty() {
                    return Some(serde_json::from_str(&data).unwrap());
                }
            }
            let frame = tokio::time::timeout(Duration::from_secs(10), self.response.frame())
                .await
                .expect("the server sent nothing for 10 s")?
                .unwrap();
            let Ok(chunk) = frame.into_data() else {
                continue;
            };
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

/// Resolves once `count` listen streams are open on the server.
async fn open_streams(pipeline: &Pipeline, count: usize) {
    let mut open = pipeline.subscriptions().open();
    tokio::time::timeout(
        Duration::from_secs(10),
        open.wait_for(|open| *open == count),
    )
    .await
    .expect("the listen streams did not open or close")
    .unwrap();
}

#[tokio::test]
async fn discover_advertises_resource_subscriptions_and_no_list_changes() {
    let (_, address) = serve().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}});
    let reply = json_reply(post(address, body).await).await;
    let capabilities = &reply["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": true}),
        "{reply}"
    );
    assert_eq!(capabilities["tools"].get("listChanged"), None, "{reply}");
}

#[tokio::test]
async fn the_acknowledgment_comes_first_and_holds_only_the_subscribable_resources_asked_for() {
    let (_, address) = serve().await;
    let asked = json!({
        "resourceSubscriptions": ["test://static", "test://watched", "test://unknown"],
        "toolsListChanged": true,
        "resourcesListChanged": true,
    });
    let mut stream = Stream::open(address, 7, asked).await;
    let ack = stream.next().await.unwrap();
    assert_eq!(
        ack,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 7},
                "notifications": {"resourceSubscriptions": ["test://watched"]},
            },
        })
    );
}

#[tokio::test]
async fn a_stream_asking_for_nothing_subscribable_is_acknowledged_with_nothing() {
    let (_, address) = serve().await;
    let asked = json!({"resourceSubscriptions": ["test://static"], "promptsListChanged": true});
    let mut stream = Stream::open(address, 8, asked).await;
    let ack = stream.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"], json!({}), "{ack}");
}

#[tokio::test]
async fn an_update_reaches_the_streams_that_listen_to_it_and_no_other() {
    let (pipeline, address) = serve().await;
    let mut watched = Stream::open(
        address,
        1,
        json!({"resourceSubscriptions": ["test://watched"]}),
    )
    .await;
    let mut other = Stream::open(
        address,
        2,
        json!({"resourceSubscriptions": ["test://other"]}),
    )
    .await;
    for stream in [&mut watched, &mut other] {
        let ack = stream.next().await.unwrap();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    }
    open_streams(&pipeline, 2).await;

    assert_eq!(
        pipeline.subscriptions().resource_updated("test://watched"),
        Ok(2)
    );
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://other"),
        Ok(2)
    );
    let updated = |uri: &str, id: u64| {
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": uri, "_meta": {"io.modelcontextprotocol/subscriptionId": id}},
        })
    };
    assert_eq!(watched.next().await.unwrap(), updated("test://watched", 1));
    // Published after the watched update: had that one leaked, it would come first.
    assert_eq!(other.next().await.unwrap(), updated("test://other", 2));
}

#[tokio::test]
async fn only_a_subscribable_resource_can_be_updated() {
    let (pipeline, _) = serve().await;
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://static"),
        Err(NotSubscribable("test://static".into()))
    );
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://watched"),
        Ok(0)
    );
}

#[tokio::test]
async fn a_client_that_goes_away_ends_its_stream_on_the_server() {
    let (pipeline, address) = serve().await;
    let mut stream = Stream::open(
        address,
        3,
        json!({"resourceSubscriptions": ["test://watched"]}),
    )
    .await;
    stream.next().await.unwrap();
    open_streams(&pipeline, 1).await;
    drop(stream);
    open_streams(&pipeline, 0).await;
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://watched"),
        Ok(0)
    );
}

#[tokio::test]
async fn a_server_teardown_ends_the_stream_with_its_final_result() {
    let (pipeline, address) = serve().await;
    let mut stream = Stream::open(
        address,
        4,
        json!({"resourceSubscriptions": ["test://watched"]}),
    )
    .await;
    stream.next().await.unwrap();
    open_streams(&pipeline, 1).await;
    pipeline.subscriptions().closing().cancel();
    let last = stream.next().await.unwrap();
    assert_eq!(last["id"], 4, "{last}");
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 4,
        "{last}"
    );
    assert_eq!(
        stream.next().await,
        None,
        "the stream closes after the final result"
    );
    open_streams(&pipeline, 0).await;
}

#[tokio::test]
async fn a_stream_past_max_streams_ends_at_once_and_the_open_ones_stay() {
    let (pipeline, address) = serve_spec(&TWO_STREAMS).await;
    let watched = json!({"resourceSubscriptions": ["test://watched"]});
    let mut open = Vec::new();
    for id in 1..=2 {
        let mut stream = Stream::open(address, id, watched.clone()).await;
        stream.next().await.expect("the acknowledgment");
        open.push(stream);
    }
    open_streams(&pipeline, 2).await;
    let mut third = Stream::open(address, 3, watched.clone()).await;
    third.next().await.expect("the acknowledgment");
    let last = third.next().await.expect("the final result at once");
    assert_eq!(last["id"], 3, "{last}");
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert_eq!(third.next().await, None, "then the stream closes");
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://watched"),
        Ok(2),
        "the two open streams still listen"
    );
    for stream in &mut open {
        let update = stream.next().await.expect("the update");
        assert_eq!(
            update["method"], "notifications/resources/updated",
            "{update}"
        );
    }
}

/// The same over one stdio-like byte stream, with rmcp's own 2026-07-28 client: the client
/// cancels with `notifications/cancelled`, and the server's stream ends with it.
#[tokio::test]
async fn on_one_channel_an_update_arrives_and_cancelling_ends_the_stream() {
    use rmcp::model::{ProtocolVersion, ServerNotification};
    use rmcp::service::SubscriptionEnd;
    use rmcp::{ClientServiceExt, ServiceExt};

    let pipeline = Arc::new(Pipeline::new(&LISTEN_SERVER, &TOOLS));
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = Listening(Arc::clone(&pipeline), &LISTEN_SERVER);
    tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let lifecycle = rmcp::ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = ().serve_with_lifecycle(client_io, lifecycle).await.unwrap();
    let asked = SubscriptionFilter::builder()
        .resource_subscriptions(["test://static", "test://watched"])
        .build();
    let mut subscription = client.listen(asked).await.unwrap();
    assert_eq!(
        subscription.acknowledged().resource_subscriptions,
        Some(vec!["test://watched".to_owned()])
    );
    open_streams(&pipeline, 1).await;

    assert_eq!(
        pipeline.subscriptions().resource_updated("test://watched"),
        Ok(1)
    );
    let Some(ServerNotification::ResourceUpdatedNotification(update)) =
        subscription.next().await.unwrap()
    else {
        panic!("expected notifications/resources/updated");
    };
    assert_eq!(update.params.uri, "test://watched");

    subscription.cancel().await.unwrap();
    assert!(matches!(
        subscription.end(),
        Some(SubscriptionEnd::Cancelled)
    ));
    open_streams(&pipeline, 0).await;
}

/// A 2025-11-25 client that hands every `notifications/resources/updated` it gets to a
/// channel.
struct Updated(tokio::sync::mpsc::UnboundedSender<String>);

impl rmcp::ClientHandler for Updated {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

/// The same updates reach a 2025-11-25 session that subscribed with `resources/subscribe`,
/// until it unsubscribes; a URI that is not subscribable gets the not-found error.
#[tokio::test]
#[allow(
    deprecated,
    reason = "resources/subscribe is 2025-11-25's, which this test is about"
)]
async fn a_session_that_subscribed_gets_the_same_updates_until_it_unsubscribes() {
    use rmcp::ServiceExt;
    use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};

    /// What the generated handler adds for `resources/subscribe`.
    #[derive(Clone)]
    struct Subscribing(Listening);

    impl ServerHandler for Subscribing {
        fn get_info(&self) -> InitializeResult {
            self.0.get_info()
        }

        async fn subscribe(
            &self,
            request: SubscribeRequestParams,
            context: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<(), ErrorData> {
            self.0
                .0
                .subscriptions()
                .subscribe(&request.uri, context.peer)
        }

        async fn unsubscribe(
            &self,
            request: UnsubscribeRequestParams,
            context: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<(), ErrorData> {
            self.0
                .0
                .subscriptions()
                .unsubscribe(&request.uri, &context.peer)
        }
    }

    let pipeline = Arc::new(Pipeline::new(&LISTEN_SERVER, &TOOLS));
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = Subscribing(Listening(Arc::clone(&pipeline), &LISTEN_SERVER));
    tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let (sender, mut updates) = tokio::sync::mpsc::unbounded_channel();
    let client = Updated(sender).serve(client_io).await.unwrap();

    let refused = client
        .subscribe(SubscribeRequestParams::new("test://static"))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("-32002"), "{refused}");
    for _ in 0..2 {
        client
            .subscribe(SubscribeRequestParams::new("test://watched"))
            .await
            .unwrap();
    }
    open_streams(&pipeline, 1).await;
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://other"),
        Ok(1)
    );
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://watched"),
        Ok(1)
    );
    // The update of a resource it did not subscribe to, published first, did not come.
    assert_eq!(updates.recv().await.unwrap(), "test://watched");

    client
        .unsubscribe(UnsubscribeRequestParams::new("test://watched"))
        .await
        .unwrap();
    open_streams(&pipeline, 0).await;
    assert_eq!(
        pipeline.subscriptions().resource_updated("test://watched"),
        Ok(0)
    );
}
