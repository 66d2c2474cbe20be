//! The 2024-11-05 HTTP+SSE transport, which Harbor still defaults to and rmcp removed in
//! 0.11: `GET <path>/sse` opens an event stream whose first event, `endpoint`, carries the
//! POST URL with a session id; the client POSTs JSON-RPC messages there (202 Accepted) and the
//! replies come on the stream (a JSON-RPC batch is answered 400 with one error object, as
//! streamable HTTP answers it). Each session is the same generated handler served over a pair
//! of bounded channels; it ends, and is forgotten, when the client disconnects.
//!
//! The specification's backwards-compatibility section lets a server host the old transport
//! beside the new one, and a client given the SSE URL may speak streamable HTTP to it (Codex
//! has no legacy client and does): on `<path>/sse` only a GET outside a streamable HTTP session
//! opens a legacy stream; every other request there (a POST
//! of an initialize or of a 2026-07-28 request, a session's GET or DELETE) is streamable HTTP,
//! answered by the same service that serves `<path>`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use futures::{Stream, StreamExt};
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, Service};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, PollSender};

use crate::auth::Caller;
use crate::sync::lock;

/// Messages buffered per session in each direction; a client that floods past this gets 503.
const SESSION_QUEUE: usize = 64;

type Sessions = Arc<Mutex<HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>>>;

struct SseState<H> {
    handler: H,
    sessions: Sessions,
    message_path: String,
    keep_alive: Duration,
    shutdown: CancellationToken,
    streamable: Router,
}

/// Removes its session when the event stream is dropped (the client went away).
struct SessionGuard {
    sessions: Sessions,
    id: String,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        let mut sessions = lock(&self.sessions);
        sessions.remove(&self.id);
        tracing::debug!(session = %self.id, "sse session closed");
    }
}

#[derive(serde::Deserialize)]
struct SessionQuery {
    session_id: String,
}

/// Where the legacy transport's event stream opens: `<path>/sse`.
pub(crate) fn stream_path(path: &str) -> String {
    format!("{}/sse", path.trim_end_matches('/'))
}

/// The router serving `GET {path}/sse` and `POST {path}/message`, with `streamable` (which
/// serves streamable HTTP at `{path}` and `{path}/sse`) answering every other request.
pub(crate) fn sse_router<H: Service<RoleServer> + Clone>(
    handler: H,
    path: &str,
    keep_alive: Duration,
    max_request_body_bytes: usize,
    shutdown: CancellationToken,
    streamable: Router,
) -> Router {
    let base = path.trim_end_matches('/');
    let state = Arc::new(SseState {
        handler,
        sessions: Arc::default(),
        message_path: format!("{base}/message"),
        keep_alive,
        shutdown,
        streamable,
    });
    let at_path = state.streamable.clone();
    Router::new()
        .route_service(if base.is_empty() { "/" } else { base }, at_path)
        .route(&stream_path(base), any(legacy_or_streamable::<H>))
        .route(
            &format!("{base}/message"),
            post(post_message::<H>).layer(DefaultBodyLimit::max(max_request_body_bytes)),
        )
        .with_state(state)
}

/// `<path>/sse`: a legacy stream for a GET that asks for one outside a streamable HTTP
/// session; streamable HTTP for anything else.
async fn legacy_or_streamable<H: Service<RoleServer> + Clone>(
    State(state): State<Arc<SseState<H>>>,
    request: Request,
) -> Response {
    if opens_a_legacy_stream(&request) {
        return open_stream(&state).into_response();
    }
    let mut streamable = state.streamable.clone();
    match tower_service::Service::call(&mut streamable, request).await {
        Ok(response) => response,
        Err(infallible) => match infallible {},
    }
}

/// A GET without an `Mcp-Session-Id` (a streamable HTTP session's standalone stream
/// carries one, and a stateless server has no GET stream to open).
fn opens_a_legacy_stream(request: &Request) -> bool {
    request.method() == Method::GET && !request.headers().contains_key("mcp-session-id")
}

fn open_stream<H: Service<RoleServer> + Clone>(
    state: &SseState<H>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + use<H>> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let (inbound_tx, mut inbound_rx) = mpsc::channel::<ClientJsonRpcMessage>(SESSION_QUEUE);
    let (outbound_tx, outbound_rx) = mpsc::channel::<ServerJsonRpcMessage>(SESSION_QUEUE);
    lock(&state.sessions).insert(id.clone(), inbound_tx);
    let inbound = futures::stream::poll_fn(move |cx| inbound_rx.poll_recv(cx));
    let transport = (PollSender::new(outbound_tx), Box::pin(inbound));
    let handler = state.handler.clone();
    let shutdown = state.shutdown.clone();
    let session = id.clone();
    tokio::spawn(async move {
        match handler.serve(transport).await {
            Ok(running) => {
                tokio::select! {
                    result = running.waiting() => {
                        if let Err(error) = result {
                            tracing::warn!(%session, %error, "sse session ended with an error");
                        }
                    }
                    () = shutdown.cancelled() => {}
                }
            }
            Err(error) => tracing::warn!(%session, %error, "sse session failed to initialize"),
        }
    });
    let guard = SessionGuard {
        sessions: Arc::clone(&state.sessions),
        id: id.clone(),
    };
    let endpoint = Event::default()
        .event("endpoint")
        .data(format!("{}?session_id={id}", state.message_path));
    let messages = futures::stream::unfold((outbound_rx, guard), |(mut rx, guard)| async move {
        let message = rx.recv().await?;
        let data = serde_json::to_string(&message).unwrap_or_default();
        Some((
            Ok(Event::default().event("message").data(data)),
            (rx, guard),
        ))
    });
    let stream = futures::stream::once(async move { Ok(endpoint) }).chain(messages);
    Sse::new(stream).keep_alive(KeepAlive::new().interval(state.keep_alive))
}

async fn post_message<H: Service<RoleServer> + Clone>(
    State(state): State<Arc<SseState<H>>>,
    Query(query): Query<SessionQuery>,
    caller: Option<axum::Extension<Arc<Caller>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !is_json(&headers) {
        return StatusCode::UNSUPPORTED_MEDIA_TYPE.into_response();
    }
    if crate::transport::batch::is_batch(&body) {
        return crate::transport::batch::refusal();
    }
    let caller = caller.map(|axum::Extension(caller)| caller);
    deliver(&state, &query.session_id, &body, caller).into_response()
}

/// Hands one message to its session: 202, or why not. The caller the auth layer accepted for
/// this POST goes with a request, as rmcp's own transport carries the HTTP request's parts.
fn deliver<H>(
    state: &SseState<H>,
    session_id: &str,
    body: &Bytes,
    caller: Option<Arc<Caller>>,
) -> StatusCode {
    let sender = lock(&state.sessions).get(session_id).cloned();
    let Some(sender) = sender else {
        return StatusCode::NOT_FOUND;
    };
    let marked = crate::transport::duplicate_keys::mark_duplicate_arguments(body);
    let raw = marked.as_deref().unwrap_or(body);
    let Ok(mut message) = serde_json::from_slice::<ClientJsonRpcMessage>(raw) else {
        return StatusCode::BAD_REQUEST;
    };
    if let (ClientJsonRpcMessage::Request(request), Some(caller)) = (&mut message, caller) {
        request.request.extensions_mut().insert(caller);
    }
    match sender.try_send(message) {
        Ok(()) => StatusCode::ACCEPTED,
        Err(mpsc::error::TrySendError::Full(_)) => StatusCode::SERVICE_UNAVAILABLE,
        Err(mpsc::error::TrySendError::Closed(_)) => StatusCode::GONE,
    }
}

/// True when the request says its body is JSON (`application/json`, parameters allowed).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}
