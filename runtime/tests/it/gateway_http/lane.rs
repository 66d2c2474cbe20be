//! The direct lane to a streamable HTTP upstream (its calls' ids start at 2^40, rmcp's at 0,
//! so the upstream's view of the id says which path a call took): progress on a call's event
//! stream reaches the caller, a session the upstream forgot is renewed through rmcp and the
//! lane goes on in the new one, JSON answers and errors are read, and an event stream that
//! ends before its answer is resumed after its last event id.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use harness_contract::definition_sha256;
use harness_runtime::spec::{PinKind, PinSpec, ToolSpec, UpstreamProtocol, UpstreamSpec};
use harness_runtime::upstream::{Reply, Upstreams, fetch_tools};
use harness_runtime::validate::NoArguments;
use harness_runtime::{Call, CallContext, LogLevel, Pipeline};
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common;
use crate::common::upstream;

/// The first id the gateway's lane gives a call.
const FIRST_LANE_ID: i64 = 1 << 40;

fn leak<T: ?Sized>(value: Box<T>) -> &'static T {
    Box::leak(value)
}

/// A 2025-11-25 upstream at `url` with `tools` pinned by `digests`.
fn spec(url: &str, tools: &[&'static str], digests: &[String]) -> &'static [UpstreamSpec] {
    let pins: Vec<PinSpec> = tools
        .iter()
        .zip(digests)
        .map(|(name, sha256)| PinSpec {
            kind: PinKind::Tool,
            name,
            remote_name: name,
            sha256: leak(sha256.clone().into_boxed_str()),
            schema: None,
            subscribe: false,
        })
        .collect();
    let pins = leak(pins.into_boxed_slice());
    std::slice::from_ref(upstream::spec(
        "remote",
        url,
        UpstreamProtocol::V2025_11_25,
        &[],
        pins,
    ))
}

/// The gateway in front of `url`, its `tools` pinned as the upstream lists them, started.
async fn gateway(url: &str, tools: &[&'static str]) -> Upstreams {
    let probe = spec(url, tools, &vec!["0".repeat(64); tools.len()]);
    let live = fetch_tools(&probe[0]).await.expect("tools/list over HTTP");
    let digests: Vec<String> = tools
        .iter()
        .map(|name| {
            let tool = live.iter().find(|tool| tool.name == *name).unwrap();
            definition_sha256(&serde_json::to_value(tool).unwrap())
        })
        .collect();
    let upstreams = Upstreams::new(spec(url, tools, &digests));
    upstreams.start().await;
    assert!(upstreams.all_up(), "{}", upstreams.health());
    upstreams
}

/// Calls pinned tool `index`.
async fn try_call(
    upstreams: &Upstreams,
    index: usize,
) -> Result<Reply, harness_runtime::ToolError> {
    let context = CallContext::new("tool", "mcp-00000000".into(), CancellationToken::new());
    upstreams.call(0, index, json!({}), context).await
}

/// Calls pinned tool `index`; its structured reply.
async fn call(upstreams: &Upstreams, index: usize) -> Value {
    match try_call(upstreams, index).await {
        Ok(Reply::Json(reply)) => reply,
        Ok(other) => panic!("not a JSON reply: {other:?}"),
        Err(error) => panic!("the call failed: {error:?}"),
    }
}

/// An rmcp upstream with sessions (its replies are event streams): `count` sends three
/// progress notifications when asked for progress, then answers with its request's id and
/// session.
#[derive(Clone)]
struct Counting;

impl ServerHandler for Counting {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(upstream::one_tool("count", "Counts to three."))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(token) = context.meta.get_progress_token() {
            for step in 1..=3 {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step));
                context.peer.notify_progress(progress).await.unwrap();
                // Past the gateway's rate bound on progress (one per 10 ms).
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        let session = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.headers.get("mcp-session-id"))
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        Ok(CallToolResult::structured(json!({"id": context.id, "session": session})).into())
    }
}

/// The gateway's one tool, `count`, served to a client session in this process.
#[derive(Clone)]
struct Served(Arc<Pipeline>, Arc<Upstreams>);

static SERVED_TOOLS: [ToolSpec; 1] = [common::tool("count", common::GUARDS)];

impl ServerHandler for Served {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (_, call) = Call::split(request, context, Some(LogLevel::Info));
        self.0
            .respond(0, call, |args: NoArguments, ctx| {
                self.1.call(0, 0, args, ctx)
            })
            .await
    }
}

#[tokio::test]
async fn progress_on_a_calls_event_stream_reaches_the_caller() {
    let url = upstream::serve(Counting).await;
    let upstreams = Arc::new(gateway(&url, &["count"]).await);
    let pipeline = Arc::new(Pipeline::new(&common::SERVER, &SERVED_TOOLS));
    let seen = common::clients::exchange(
        Served(pipeline, upstreams),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "p1"}}}),
    )
    .await;
    let reply = seen.last().expect("the reply");
    let answered = &reply["result"]["structuredContent"];
    assert!(answered["id"].as_i64().unwrap() >= FIRST_LANE_ID, "{reply}");
    let progress: Vec<f64> = seen
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .map(|message| {
            assert_eq!(message["params"]["progressToken"], "p1", "{message}");
            message["params"]["progress"].as_f64().unwrap()
        })
        .collect();
    // The first is sent 40 ms before the answer; the last may race it.
    assert!(
        !progress.is_empty() && progress.windows(2).all(|pair| pair[0] < pair[1]),
        "{progress:?}"
    );
    assert!(
        progress.iter().all(|step| [1.0, 2.0, 3.0].contains(step)),
        "{progress:?}"
    );
}

#[tokio::test]
async fn a_session_the_upstream_forgot_is_renewed_through_rmcp_and_the_lane_goes_on_in_it() {
    let sessions = Arc::new(LocalSessionManager::default());
    let url = upstream::serve_with(Counting, Arc::clone(&sessions)).await;
    let upstreams = gateway(&url, &["count"]).await;
    let first = call(&upstreams, 0).await;
    assert!(first["id"].as_i64().unwrap() >= FIRST_LANE_ID, "{first}");
    let old_session = first["session"].as_str().expect("a session").to_owned();

    sessions.sessions.write().await.clear();
    // The lane's POST is refused (404): the call goes through rmcp, which opens a new session.
    let renewed = call(&upstreams, 0).await;
    assert!(renewed["id"].as_i64().unwrap() < FIRST_LANE_ID, "{renewed}");
    let new_session = renewed["session"].as_str().expect("a session").to_owned();
    assert_ne!(new_session, old_session);

    let after = call(&upstreams, 0).await;
    assert!(after["id"].as_i64().unwrap() >= FIRST_LANE_ID, "{after}");
    assert_eq!(after["session"], new_session.as_str());
}

/// A hand-written upstream without sessions: `plain` answers with JSON; `resumed` answers
/// with an event stream that holds only a priming event and ends, and gives its answer to the
/// GET that resumes after that event; `refused` answers with a JSON-RPC error, `broken` with
/// HTTP 500 and text.
#[derive(Default)]
struct Resumable {
    /// The call `resumed` is answering.
    call_id: Mutex<Option<Value>>,
    /// The `Last-Event-ID` of every GET.
    resumed_after: Mutex<Vec<String>>,
}

fn tool_result(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [], "structuredContent": {"id": id}}})
}

async fn resumable_post(State(state): State<Arc<Resumable>>, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap();
    let id = &body["id"];
    match body["method"].as_str() {
        Some("initialize") => axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "resumable", "version": "0"},
        }}))
        .into_response(),
        Some("tools/list") => {
            let tool = |name| json!({"name": name, "inputSchema": {"type": "object"}});
            let tools = json!([
                tool("plain"),
                tool("resumed"),
                tool("refused"),
                tool("broken")
            ]);
            axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}))
                .into_response()
        }
        Some("tools/call") if body["params"]["name"] == "plain" => {
            axum::Json(tool_result(id)).into_response()
        }
        Some("tools/call") if body["params"]["name"] == "refused" => axum::Json(json!({
            "jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "no such thing"},
        }))
        .into_response(),
        Some("tools/call") if body["params"]["name"] == "broken" => {
            (StatusCode::INTERNAL_SERVER_ERROR, "it broke").into_response()
        }
        Some("tools/call") => {
            *state.call_id.lock().unwrap() = Some(id.clone());
            let priming = "id: e1\nretry: 5\ndata: \n\n";
            ([(header::CONTENT_TYPE, "text/event-stream")], priming).into_response()
        }
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

async fn resumable_get(State(state): State<Arc<Resumable>>, headers: HeaderMap) -> Response {
    let Some(after) = headers.get("last-event-id") else {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    };
    state
        .resumed_after
        .lock()
        .unwrap()
        .push(after.to_str().unwrap().to_owned());
    let id = state
        .call_id
        .lock()
        .unwrap()
        .clone()
        .expect("a call to resume");
    let events = format!("id: e2\ndata: {}\n\n", tool_result(&id));
    ([(header::CONTENT_TYPE, "text/event-stream")], events).into_response()
}

#[tokio::test]
async fn json_answers_and_errors_are_read_and_a_stream_ended_early_is_resumed_after_its_last_event()
{
    let state = Arc::new(Resumable::default());
    let router = axum::Router::new()
        .route(
            "/mcp",
            axum::routing::post(resumable_post).get(resumable_get),
        )
        .with_state(Arc::clone(&state));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let upstreams = gateway(&format!("http://{address}/mcp"), &["plain", "resumed"]).await;

    let plain = call(&upstreams, 0).await;
    assert!(plain["id"].as_i64().unwrap() >= FIRST_LANE_ID, "{plain}");
    let resumed = call(&upstreams, 1).await;
    assert!(
        resumed["id"].as_i64().unwrap() >= FIRST_LANE_ID,
        "{resumed}"
    );
    assert_eq!(*state.resumed_after.lock().unwrap(), ["e1"]);
}
