//! A streamable HTTP upstream's transport: rmcp's client, sending through a client that records
//! the session id and headers of each message it sends (a lane call sends the same), and
//! receiving, besides what rmcp's worker reads, the messages the lane's calls find on their
//! event streams (crate::upstream::lane).

use std::collections::HashMap;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
    StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};

use crate::upstream::lane::{Inbound, LastSent, PostLane, Posting};

/// rmcp's client transport over a [`RecordingClient`].
type RmcpTransport = StreamableHttpClientTransport<RecordingClient>;

/// reqwest's client for rmcp, recording what each message after `initialize` was sent with.
#[derive(Clone)]
pub(crate) struct RecordingClient {
    client: reqwest::Client,
    last_sent: Arc<LastSent>,
}

/// The connection's transport, for rmcp's service.
pub(crate) struct RemoteTransport {
    rmcp: RmcpTransport,
    inbound: Inbound,
    lane: Arc<PostLane>,
}

/// The transport to `config`'s URL through `client`, and its direct lane.
pub(crate) fn open(
    client: reqwest::Client,
    config: StreamableHttpClientTransportConfig,
) -> RemoteTransport {
    let last_sent = Arc::new(LastSent::default());
    let (lane, inbound) = PostLane::new(
        client.clone(),
        Arc::clone(&config.uri),
        Arc::clone(&last_sent),
    );
    let recording = RecordingClient { client, last_sent };
    RemoteTransport {
        rmcp: StreamableHttpClientTransport::with_client(recording, config),
        inbound,
        lane: Arc::new(lane),
    }
}

impl RemoteTransport {
    /// The connection's direct lane.
    pub(crate) fn lane(&self) -> Arc<PostLane> {
        Arc::clone(&self.lane)
    }
}

impl Transport<RoleClient> for RemoteTransport {
    type Error = <RmcpTransport as Transport<RoleClient>>::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.rmcp.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        // Both receivers are channels, so the one not chosen loses nothing.
        tokio::select! {
            Some(message) = self.inbound.recv() => Some(message),
            message = self.rmcp.receive() => message,
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.rmcp.close()
    }
}

impl Drop for RemoteTransport {
    fn drop(&mut self) {
        self.lane.close();
    }
}

impl RecordingClient {
    fn record(
        &self,
        message: &ClientJsonRpcMessage,
        session_id: Option<&Arc<str>>,
        headers: &HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) {
        let initialize = matches!(message, ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::InitializeRequest(_)));
        if !initialize {
            self.last_sent
                .record(Posting::new(session_id.cloned(), headers.clone(), limits));
        }
    }
}

/// rmcp's worker sends every message through `post_message_with_response_limits`, the one
/// method that records; the others pass straight through.
impl StreamableHttpClient for RecordingClient {
    type Error = reqwest::Error;

    fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>>>
    + Send
    + '_ {
        self.client
            .post_message(uri, message, session_id, auth_header, custom_headers)
    }

    fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> impl Future<Output = Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>>>
    + Send
    + '_ {
        self.client.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        )
    }

    fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> impl Future<Output = Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>>>
    + Send
    + '_ {
        self.record(&message, session_id.as_ref(), &custom_headers, limits);
        self.client.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
    }

    fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = Result<(), StreamableHttpError<Self::Error>>> + Send + '_ {
        self.client
            .delete_session(uri, session_id, auth_header, custom_headers)
    }

    fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = Result<BoxedSseResponse, StreamableHttpError<Self::Error>>> + Send + '_
    {
        self.client
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
    }

    fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> impl Future<Output = Result<BoxedSseResponse, StreamableHttpError<Self::Error>>> + Send + '_
    {
        self.client.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        )
    }
}
