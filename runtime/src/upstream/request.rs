//! One `tools/call` to an upstream: sent through rmcp's peer, carrying the log level the
//! client asked for; its progress token (rmcp puts its own on every request) routes the
//! upstream's progress and logs back to the call that asked, and dropping the call (the
//! tool's timeout, the client's cancellation) before its answer sends
//! `notifications/cancelled` upstream.

use std::sync::Arc;

use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};

use crate::context::CallContext;
use crate::upstream::handler::Routes;

/// Sends `params` and waits for the result; progress goes to `context` while it runs.
pub(crate) async fn call_tool(
    peer: &Peer<RoleClient>,
    routes: &Arc<Routes>,
    mut params: CallToolRequestParams,
    context: &CallContext,
) -> Result<CallToolResult, ServiceError> {
    if let Some(level) = context.log_level() {
        params
            .meta
            .get_or_insert_with(Default::default)
            .set_log_level(level.to_rmcp());
    }
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let _in_flight = routes.enter(context);
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    // What the upstream sends before this line (it would have to answer within
    // microseconds) is dropped, as for a call that asked for none.
    let _route = (context.wants_progress() || context.log_level().is_some())
        .then(|| routes.register(handle.progress_token.clone(), context.clone()));
    let mut abandoned = CancelOnDrop {
        peer: peer.clone(),
        id: Some(handle.id.clone()),
    };
    let answer = handle.await_response().await;
    abandoned.id = None;
    match answer? {
        ServerResult::CallToolResult(result) => Ok(result),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Cancels the request upstream when dropped while armed.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let peer = self.peer.clone();
        // Drop cannot await; the notification goes out on the runtime, as rmcp's own
        // abandoned requests do.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let cancelled = CancelledNotificationParam::new(
                    Some(id),
                    Some("the gateway's caller cancelled or timed out".to_owned()),
                );
                if let Err(error) = peer.notify_cancelled(cancelled).await {
                    tracing::debug!(%error, "could not send notifications/cancelled upstream");
                }
            });
        }
    }
}
