//! One `tools/call` to an upstream: written on the connection's direct lane where it has one
//! (crate::upstream::lane), otherwise sent through rmcp's peer, carrying the log level the
//! client asked for (set by the caller). A progress token routes the upstream's progress and
//! logs back to the call that asked (rmcp puts its own on every request; the lane one only on
//! a call that wants them, registered before the request is written), and dropping the call
//! (the tool's timeout, the client's cancellation) before its answer sends
//! `notifications/cancelled` upstream.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::model::{ClientCapabilities, RequestMetaObject, TASKS_EXTENSION_ID};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};
use serde_json::Value;

use crate::context::CallContext;
use crate::error::ToolError;
use crate::input::session::InputSession;
use crate::pipeline::refusal::{Refusal, UpstreamFailure};
use crate::spec::{UpstreamProtocol, UpstreamSpec};
use crate::upstream::connect::Handle;
use crate::upstream::handler::Routes;
use crate::upstream::lane::{self, Lane};

/// Sends `params` and waits for the result (or, from a 2026-07-28 upstream, an
/// input-required result); progress goes to `context` while it runs.
pub(crate) async fn call_tool(
    handle: &Handle,
    routes: &Arc<Routes>,
    params: &CallToolRequestParams,
    context: &CallContext,
    spec: &UpstreamSpec,
) -> Result<CallToolResponse, ServiceError> {
    let _in_flight = routes.enter(context);
    let routed = context.wants_progress() || context.log_level().is_some();
    if let Some(lane) = &handle.lane
        && let Some(answer) = on_lane(lane, &handle.peer, routes, params, context, routed).await
    {
        return answer;
    }
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
    let mut options = PeerRequestOptions::no_options();
    if spec.protocol == UpstreamProtocol::V2026_07_28 {
        options = options.with_meta(client_meta(spec, context.input_session()));
    }
    let peer = &handle.peer;
    let sent = peer.send_request_with_option(request, options).await?;
    // What the upstream sends before this line (it would have to answer within
    // microseconds) is dropped, as for a call that asked for none.
    let _route = routed.then(|| routes.register(sent.progress_token.clone(), context.clone()));
    let mut abandoned = cancel_when_abandoned(peer, sent.id.clone());
    let answer = sent.await_response().await;
    abandoned.disarm();
    response_of(answer?)
}

/// The call on the connection's direct lane; `None` when it must go through rmcp instead
/// (crate::upstream::lane::PostLane::call).
async fn on_lane(
    lane: &Lane,
    peer: &Peer<RoleClient>,
    routes: &Arc<Routes>,
    params: &CallToolRequestParams,
    context: &CallContext,
    routed: bool,
) -> Option<Result<CallToolResponse, ServiceError>> {
    let id = lane.next_id();
    let mut params = Cow::Borrowed(params);
    let _route = routed.then(|| {
        let token = lane::progress_token(id);
        params
            .to_mut()
            .meta
            .get_or_insert_with(Default::default)
            .set_progress_token(token.clone());
        routes.register(token, context.clone())
    });
    let answer = match lane {
        Lane::Pipe(lane) => {
            // Not armed before the line is written: a call that could not be written was not
            // sent.
            let mut pending = match lane.call(id, &params) {
                Ok(pending) => pending,
                Err(error) => return Some(Err(error)),
            };
            let mut abandoned = cancel_when_abandoned(peer, pending.id());
            let answer = pending.answered().await;
            abandoned.disarm();
            answer
        }
        Lane::Post(lane) => {
            // Armed before the POST: the upstream may be running the call before the response
            // begins.
            let mut abandoned = cancel_when_abandoned(peer, RequestId::Number(id));
            let answer = lane.call(id, &params).await;
            abandoned.disarm();
            answer?
        }
    };
    Some(answer.and_then(response_of))
}

/// A call's answer as the response it is.
fn response_of(result: ServerResult) -> Result<CallToolResponse, ServiceError> {
    match result {
        ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
        ServerResult::InputRequiredResult(result) => Ok(CallToolResponse::InputRequired(result)),
        ServerResult::CreateTaskResult(result) => Ok(CallToolResponse::Task(result)),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Sends `notifications/cancelled` for request `id` if dropped armed, as rmcp's own abandoned
/// requests do.
fn cancel_when_abandoned(peer: &Peer<RoleClient>, id: RequestId) -> OnAbandon {
    let peer = peer.clone();
    OnAbandon::new(move || async move {
        let cancelled = CancelledNotificationParam::new(
            Some(id),
            Some("the gateway's caller cancelled or timed out".to_owned()),
        );
        if let Err(error) = peer.notify_cancelled(cancelled).await {
            tracing::debug!(%error, "could not send notifications/cancelled upstream");
        }
    })
}

/// What a 2026-07-28 upstream reads as the client's capabilities: those the calling client
/// declared and the manifest forwards from this upstream, so that it asks only for input that
/// can reach someone (rmcp's default would declare the gateway's whole `forward` list), and
/// the tasks extension, which the gateway itself handles.
fn client_meta(spec: &UpstreamSpec, input: Option<&InputSession>) -> RequestMetaObject {
    let client = input
        .and_then(InputSession::declared)
        .and_then(|declared| serde_json::to_value(declared).ok())
        .unwrap_or_default();
    // Each forwarded capability as the client declared it (its sub-capabilities too).
    let declared: serde_json::Map<String, Value> = spec
        .forward
        .iter()
        .filter_map(|request| {
            let name = request.as_str();
            client
                .get(name)
                .map(|value| (name.to_owned(), value.clone()))
        })
        .collect();
    let mut capabilities: ClientCapabilities =
        serde_json::from_value(Value::Object(declared)).unwrap_or_default();
    // The gateway follows a task to its end (tasks.rs): an upstream tool that runs only as a
    // task is served too.
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
    let mut meta = RequestMetaObject::new();
    meta.set_client_capabilities(capabilities);
    meta
}

/// A request to send upstream, made only when it is sent.
type Sending = Box<dyn FnOnce() -> futures::future::BoxFuture<'static, ()> + Send>;

/// What to send upstream if the call is abandoned (dropped before its answer): spawned on the
/// runtime when dropped while armed, since drop cannot await. It keeps only what makes the
/// request (a peer and an id): the request's future, kilobytes, is built when it is sent, not
/// on every call that ends normally.
pub(crate) struct OnAbandon(Option<Sending>);

impl OnAbandon {
    /// Armed with `send`, which makes the request to send.
    pub(crate) fn new<Fut>(send: impl FnOnce() -> Fut + Send + 'static) -> Self
    where
        Fut: Future<Output = ()> + Send + 'static,
    {
        Self(Some(Box::new(move || Box::pin(send()))))
    }

    /// The call ended: nothing to send.
    pub(crate) fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for OnAbandon {
    fn drop(&mut self) {
        if let Some(send) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(send());
        }
    }
}

/// `request` (any request to an upstream), bounded by the upstream's `timeout_ms`; the tool's
/// or the catalog's own timeout bounds the whole body too. A plain function returning the
/// timed future, not an `async fn`, which would hold `request` twice in its state.
pub(crate) fn within<T>(
    timeout_ms: u64,
    request: impl Future<Output = T>,
) -> impl Future<Output = Result<T, ToolError>> {
    tokio::time::timeout(Duration::from_millis(timeout_ms), request).map(move |answered| {
        answered.map_err(|_| {
            Refusal::Upstream(UpstreamFailure::NoAnswer(Some(timeout_ms))).into_tool_error()
        })
    })
}
