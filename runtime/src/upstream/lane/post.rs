//! The direct lane to a streamable HTTP upstream: a `tools/call` POSTed by the task that makes
//! it, with the session id and headers rmcp's client last sent, and its answer read from that
//! POST's own response.
//!
//! The POST goes through the very client code rmcp's worker uses (reqwest's
//! `StreamableHttpClient`), so the request's headers, the response's checks and their size
//! limits stay rmcp's; only the hops through rmcp's service task and worker loop are left
//! out. What a call's event stream carries besides the answer (progress, logs, the upstream's
//! own requests) is handed to rmcp's service as if its worker had read it
//! (crate::upstream::remote). A stream that ends before the answer is resumed from its last
//! event id, as the specification's resumability asks; a session the upstream no longer knows
//! (404) is rmcp's to renew, so that call is sent again through rmcp.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use http::{HeaderName, HeaderValue};
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::sync::lock;
use crate::upstream::lane::ids::{Answer, Ids};
use crate::upstream::replies::reply_id;

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
#[derive(Clone)]
pub(crate) struct Posting {
    /// The session the upstream gave, if any.
    pub(crate) session_id: Option<Arc<str>>,
    /// The manifest's headers and the negotiated protocol version's.
    pub(crate) headers: HashMap<HeaderName, HeaderValue>,
    /// rmcp's limits on a response's size.
    pub(crate) limits: StreamableHttpResponseLimits,
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
            uri,
            last_sent,
            inbound,
            closed: CancellationToken::new(),
        };
        (lane, messages)
    }

    /// Sends `params` as `tools/call` number `id` (from [`Lane::next_id`](crate::upstream::lane::Lane::next_id)) and waits
    /// for its answer. `None` when the call must go through rmcp instead, unsent or unread:
    /// rmcp's client has sent nothing since `initialize` yet, or the upstream no longer knows
    /// the session (rmcp opens a new one).
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
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
        let message = ClientJsonRpcMessage::request(request, RequestId::Number(id));
        let response = self
            .client
            .post_message_with_response_limits(
                Arc::clone(&self.uri),
                message,
                posting.session_id.clone(),
                None,
                posting.headers.clone(),
                posting.limits,
            )
            .await;
        match response {
            Ok(StreamableHttpPostResponse::Json(message, _)) => Some(match received(message, id) {
                Received::Answer(answer) => answer,
                Received::Other(_) => Err(ServiceError::UnexpectedResponse),
            }),
            Ok(StreamableHttpPostResponse::Sse(events, _)) => {
                Some(self.follow(events, id, posting).await)
            }
            // Accepted (202) and anything rmcp may add: no answer to a request.
            Ok(_) => Some(Err(ServiceError::UnexpectedResponse)),
            Err(StreamableHttpError::SessionExpired) => None,
            Err(error) => Some(Err(transport_error(error))),
        }
    }

    /// Reads call `id`'s event stream to its answer, handing everything else to rmcp's
    /// service, and resumes it from its last event id when it ends first.
    async fn follow(&self, mut events: BoxedSseResponse, id: i64, posting: &Posting) -> Answer {
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
                        tracing::warn!(%error, "dropped a message an upstream sent that cannot be read");
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

/// A request that failed on its way, as rmcp's peer reports one.
fn transport_error(error: StreamableHttpError<reqwest::Error>) -> ServiceError {
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
