//! The direct lane to a streamable HTTP upstream: a `tools/call` POSTed by the task that makes
//! it, with the session id and headers rmcp's client last sent, and its answer read from that
//! POST's own response.
//!
//! The POST goes through the connection's own reqwest client (its pool, its TLS roots, no
//! redirects) to a URL parsed once, and its response is held to the limits rmcp's client holds
//! its own to (a JSON body's size, each event's size: `events.rs`). A plain result is decoded
//! in one pass, as a stdio reply is (crate::upstream::replies); anything else as rmcp decodes
//! it. What a call's event stream carries besides the answer (progress, logs, the upstream's
//! own requests) is handed to rmcp's service as if its worker had read it
//! (crate::upstream::remote). A stream that ends before the answer is resumed after its last
//! event id, as the specification's resumability asks; a session the upstream no longer knows
//! (404) is rmcp's to renew, so that call is sent again through rmcp.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, RequestId, ServerJsonRpcMessage, ServerResult};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::streamable_http_client::{StreamableHttpClient, StreamableHttpResponseLimits};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::sync::lock;
use crate::upstream::lane::call::{self, Answer, Ids};
use crate::upstream::lane::events::{Events, events, json_body};
use crate::upstream::replies::{plain_reply, reply_id};

/// The header that carries the session id.
const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// Resumptions of a call's event stream in a row with no event between them; then the call
/// fails.
const MAX_RESUMES: u32 = 3;

/// The wait before resuming a call's event stream when the upstream set no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The longest `retry` an upstream may ask for (the call's own timeout bounds it too).
const MAX_RETRY: Duration = Duration::from_secs(10);

/// Messages from calls' event streams that rmcp's service has yet to read: a stream that
/// floods waits for the service.
const INBOUND_CAPACITY: usize = 16;

/// What rmcp's client sent with its last message after `initialize`; a lane call sends the
/// same.
pub(crate) struct Posting {
    /// The session the upstream gave, if any.
    session_id: Option<Arc<str>>,
    /// The manifest's headers and the negotiated protocol version's.
    headers: HashMap<HeaderName, HeaderValue>,
    /// rmcp's limits on a response's size.
    limits: StreamableHttpResponseLimits,
    /// A call's headers, as rmcp's client sends a request's: `None` when the session id is
    /// not a header value (then rmcp's client is left to fail as it does).
    request_headers: Option<HeaderMap>,
}

impl Posting {
    /// What rmcp's client sent a message with.
    pub(crate) fn new(
        session_id: Option<Arc<str>>,
        headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Self {
        let mut request_headers = HeaderMap::with_capacity(headers.len() + 3);
        request_headers.insert(
            ACCEPT,
            HeaderValue::from_static("text/event-stream, application/json"),
        );
        request_headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in &headers {
            request_headers.insert(name.clone(), value.clone());
        }
        let request_headers = match session_id.as_deref().map(HeaderValue::from_str) {
            None => Some(request_headers),
            Some(Ok(session)) => {
                request_headers.insert(SESSION_ID, session);
                Some(request_headers)
            }
            Some(Err(_)) => None,
        };
        Self {
            session_id,
            headers,
            limits,
            request_headers,
        }
    }
}

/// The latest [`Posting`]: recorded by the client rmcp sends through
/// (crate::upstream::remote), read by every lane call.
#[derive(Default)]
pub(crate) struct LastSent(Mutex<Option<Arc<Posting>>>);

impl LastSent {
    /// `posting` is what rmcp's client sent last.
    pub(crate) fn record(&self, posting: Posting) {
        *lock(&self.0) = Some(Arc::new(posting));
    }

    fn get(&self) -> Option<Arc<Posting>> {
        lock(&self.0).clone()
    }
}

/// The messages calls' event streams carry besides their answers, for rmcp's service.
pub(crate) type Inbound = mpsc::Receiver<ServerJsonRpcMessage>;

/// One streamable HTTP connection's direct lane.
pub(crate) struct PostLane {
    pub(in crate::upstream::lane) ids: Ids,
    client: reqwest::Client,
    uri: Arc<str>,
    /// `uri` parsed once (reqwest would parse the text on every request).
    url: Option<reqwest::Url>,
    last_sent: Arc<LastSent>,
    inbound: mpsc::Sender<ServerJsonRpcMessage>,
    closed: CancellationToken,
}

impl PostLane {
    /// The lane to `uri` through `client` (the one rmcp's client uses), sending what
    /// `last_sent` holds; the other messages its calls receive go to the returned [`Inbound`].
    pub(crate) fn new(
        client: reqwest::Client,
        uri: Arc<str>,
        last_sent: Arc<LastSent>,
    ) -> (Self, Inbound) {
        let (inbound, messages) = mpsc::channel(INBOUND_CAPACITY);
        let lane = Self {
            ids: Ids::default(),
            client,
            url: reqwest::Url::parse(&uri).ok(),
            uri,
            last_sent,
            inbound,
            closed: CancellationToken::new(),
        };
        (lane, messages)
    }

    /// Sends `params` as `tools/call` number `id` (from
    /// [`Lane::next_id`](crate::upstream::lane::Lane::next_id)) and waits for its answer.
    /// `None` when the call must go through rmcp instead, unsent or unread: rmcp's client has
    /// sent nothing since `initialize` yet, or the upstream no longer knows the session (rmcp
    /// opens a new one).
    pub(crate) async fn call(&self, id: i64, params: &CallToolRequestParams) -> Option<Answer> {
        let posting = self.last_sent.get()?;
        tokio::select! {
            biased;
            () = self.closed.cancelled() => Some(Err(ServiceError::TransportClosed)),
            answer = self.exchange(id, params, &posting) => answer,
        }
    }

    /// The connection has ended (its transport dropped): every call still waiting fails, and
    /// later ones at once.
    pub(crate) fn close(&self) {
        self.closed.cancel();
    }

    async fn exchange(
        &self,
        id: i64,
        params: &CallToolRequestParams,
        posting: &Posting,
    ) -> Option<Answer> {
        let (Some(url), Some(headers)) = (&self.url, &posting.request_headers) else {
            return None;
        };
        let body = match call::request(id, params, 0) {
            Ok(body) => body,
            Err(error) => return Some(Err(error)),
        };
        let sent = self
            .client
            .post(url.clone())
            .headers(headers.clone())
            .body(body)
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(error) => return Some(Err(transport_error(error))),
        };
        let status = response.status();
        if status == StatusCode::NOT_FOUND && posting.session_id.is_some() {
            return None;
        }
        let answer = match media_type(&response) {
            Some(Media::EventStream) if status.is_success() => {
                let events = events(response, posting.limits.max_sse_event_size);
                self.follow(events, id, posting).await
            }
            Some(Media::Json)
                if status != StatusCode::ACCEPTED && status != StatusCode::NO_CONTENT =>
            {
                match json_body(response, posting.limits.max_json_response_size).await {
                    Ok(body) => answer_in(&body, id, status),
                    Err(error) => Err(transport_error(error)),
                }
            }
            _ => Err(transport_error(UnexpectedStatus(status))),
        };
        Some(answer)
    }

    /// Reads call `id`'s event stream to its answer, handing everything else to rmcp's
    /// service, and resumes it from its last event id when it ends first.
    async fn follow(&self, mut events: Events, id: i64, posting: &Posting) -> Answer {
        let mut last_event_id = None;
        let mut retry = DEFAULT_RETRY;
        let mut resumes = 0;
        loop {
            while let Some(event) = events.next().await {
                let event = match event {
                    Ok(event) => event,
                    Err(error) => {
                        tracing::debug!(%error, "a call's event stream from an upstream broke");
                        break;
                    }
                };
                if let Some(event_id) = event.id {
                    last_event_id = Some(event_id);
                    resumes = 0;
                }
                if let Some(millis) = event.retry {
                    retry = Duration::from_millis(millis).min(MAX_RETRY);
                }
                let Some(data) = event.data.filter(|data| !data.is_empty()) else {
                    continue;
                };
                let message = match serde_json::from_str::<ServerJsonRpcMessage>(&data) {
                    Ok(message) => message,
                    // The answer, unreadable: the call fails now rather than at its timeout.
                    Err(_) if reply_id(data.as_bytes()) == Some(RequestId::Number(id)) => {
                        tracing::warn!("an upstream's reply to a call could not be read");
                        return Err(ServiceError::UnexpectedResponse);
                    }
                    Err(error) => {
                        tracing::warn!(%error, "dropped an upstream's message that cannot be read");
                        continue;
                    }
                };
                match received(message, id) {
                    Received::Answer(answer) => return answer,
                    Received::Other(
                        other @ (ServerJsonRpcMessage::Request(_)
                        | ServerJsonRpcMessage::Notification(_)),
                    ) => {
                        if self.inbound.send(other).await.is_err() {
                            return Err(ServiceError::TransportClosed);
                        }
                    }
                    Received::Other(_) => {
                        tracing::debug!("dropped a reply to another call on a call's stream");
                    }
                }
            }
            let Some(event_id) = last_event_id.clone() else {
                return Err(ended_unanswered());
            };
            resumes += 1;
            if resumes > MAX_RESUMES {
                return Err(ended_unanswered());
            }
            tokio::time::sleep(retry).await;
            events = self
                .client
                .get_stream_with_max_sse_event_size(
                    Arc::clone(&self.uri),
                    posting.session_id.clone(),
                    Some(event_id),
                    None,
                    posting.headers.clone(),
                    posting.limits.max_sse_event_size,
                )
                .await
                .map_err(transport_error)?;
        }
    }
}

/// A message on a call's response: its answer, or something else.
enum Received {
    Answer(Answer),
    Other(ServerJsonRpcMessage),
}

/// Sorts `message`, received on call `id`'s response. An error without an id (the upstream
/// could not read the request) on the call's own response is the call's.
fn received(message: ServerJsonRpcMessage, id: i64) -> Received {
    let id = RequestId::Number(id);
    match message {
        ServerJsonRpcMessage::Response(response) if response.id == id => {
            Received::Answer(Ok(response.result))
        }
        ServerJsonRpcMessage::Error(error) if error.id.as_ref().is_none_or(|of| *of == id) => {
            Received::Answer(Err(ServiceError::McpError(error.error)))
        }
        other => Received::Other(other),
    }
}

/// Call `id`'s answer in a JSON body received with `status`: the plain result read in one
/// pass, else any message as rmcp reads one (a JSON-RPC error is the call's, whatever the
/// status).
fn answer_in(body: &[u8], id: i64, status: StatusCode) -> Answer {
    if status.is_success()
        && let Some((reply_id, result)) = plain_reply(body)
        && reply_id == RequestId::Number(id)
    {
        return Ok(ServerResult::CallToolResult(result));
    }
    match serde_json::from_slice::<ServerJsonRpcMessage>(body).map(|message| received(message, id))
    {
        Ok(Received::Answer(Err(error))) => Err(error),
        Ok(Received::Answer(Ok(result))) if status.is_success() => Ok(result),
        _ if !status.is_success() => Err(transport_error(UnexpectedStatus(status))),
        Ok(Received::Answer(Ok(_)) | Received::Other(_)) => Err(ServiceError::UnexpectedResponse),
        Err(error) => {
            tracing::warn!(%error, "an upstream's reply to a call could not be read");
            Err(ServiceError::UnexpectedResponse)
        }
    }
}

/// The two kinds of body a call's response may have.
enum Media {
    Json,
    EventStream,
}

/// What kind of body `response` says it has (`application/json; charset=utf-8` is JSON).
fn media_type(response: &reqwest::Response) -> Option<Media> {
    let value = response.headers().get(CONTENT_TYPE)?.to_str().ok()?;
    let essence = value.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Some(Media::Json)
    } else if essence.eq_ignore_ascii_case("text/event-stream") {
        Some(Media::EventStream)
    } else {
        None
    }
}

/// A response that holds no answer to a request.
#[derive(Debug, thiserror::Error)]
#[error("the upstream answered a call with HTTP {0} and no JSON-RPC reply")]
struct UnexpectedStatus(StatusCode);

/// A request that failed on its way, as rmcp's peer reports one.
fn transport_error(error: impl std::error::Error + Send + Sync + 'static) -> ServiceError {
    ServiceError::TransportSend(DynamicTransportError::from_parts(
        "streamable HTTP (direct lane)",
        TypeId::of::<PostLane>(),
        Box::new(error),
    ))
}

fn ended_unanswered() -> ServiceError {
    ServiceError::TransportSend(DynamicTransportError::from_parts(
        "streamable HTTP (direct lane)",
        TypeId::of::<PostLane>(),
        "the upstream ended the call's event stream without answering it".into(),
    ))
}
