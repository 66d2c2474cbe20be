//! The gateway's side of each upstream connection (rmcp's `ClientHandler`): requests the
//! upstream starts (sampling, elicitation, roots) are refused unless its `forward` list names
//! them (then crate::upstream::forward passes them on), progress is forwarded to the
//! call that asked for it, log messages go through the strip to the calls in flight (each
//! call's notifier bounds them) and to the server log (at most a few lines a second), and a
//! `list_changed` notification (tools, prompts, resources) tells the link to compare the live
//! definitions with the pins again; a resource update is passed on where the pins allow.

// 2025-11-25 upstreams still send these; rmcp marks them deprecated (SEP-2577).
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ErrorData, ListRootsResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ResourceUpdatedNotificationParam, TASKS_EXTENSION_ID,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde_json::{Map, Value, json};

use crate::context::CallContext;
use crate::guards::strip;
use crate::notify::LogLevel;
use crate::spec::{ForwardedRequest, PinSpec};
use crate::sync::lock;
use crate::upstream::forward;
use crate::upstream::updates::Updates;

/// Upstream log lines written to the server log per second, at most.
const SERVER_LOG_LINES_PER_SECOND: u64 = 20;

/// The handler of one connection.
#[derive(Clone)]
pub(crate) struct UpstreamHandler {
    upstream: &'static str,
    forward: &'static [ForwardedRequest],
    routes: Arc<Routes>,
    list_changed: Arc<tokio::sync::Notify>,
    /// Where its resource updates go, with the pins that say which pass.
    updates: Option<(&'static [PinSpec], Updates)>,
}

/// The calls in flight on a connection: those that asked for progress or logs by the
/// progress token of their upstream request, and (where the upstream's requests are
/// forwarded) every call, from before its request is sent.
#[derive(Default)]
pub(crate) struct Routes {
    forwards: bool,
    calls: Mutex<HashMap<ProgressToken, CallContext>>,
    in_flight: Mutex<HashMap<u64, CallContext>>,
    next_call: AtomicU64,
    logged_second: AtomicU64,
    logged_in_second: AtomicU64,
}

impl Routes {
    /// Routes for an upstream that forwards `forward`.
    pub(crate) fn new(forward: &[ForwardedRequest]) -> Self {
        Self {
            forwards: !forward.is_empty(),
            ..Self::default()
        }
    }

    /// Holds `context` among the calls in flight until the guard drops, where the upstream's
    /// requests are forwarded: done before the call is sent, so a request the upstream makes
    /// at once finds it.
    pub(crate) fn enter(self: &Arc<Self>, context: &CallContext) -> Option<InFlight> {
        if !self.forwards {
            return None;
        }
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        lock(&self.in_flight).insert(id, context.clone());
        Some(InFlight {
            routes: Arc::clone(self),
            id,
        })
    }

    /// The calls that asked for progress or logs.
    fn routed(&self) -> Vec<CallContext> {
        lock(&self.calls).values().cloned().collect()
    }

    /// Every call in flight (where requests are forwarded).
    fn in_flight(&self) -> Vec<CallContext> {
        lock(&self.in_flight).values().cloned().collect()
    }

    /// Routes the progress of the upstream request carrying `token` to `context` until the
    /// guard drops.
    pub(crate) fn register(
        self: &Arc<Self>,
        token: ProgressToken,
        context: CallContext,
    ) -> RouteGuard {
        lock(&self.calls).insert(token.clone(), context);
        RouteGuard {
            routes: Arc::clone(self),
            token,
        }
    }

    /// Whether this second still has room for an upstream line in the server log.
    fn may_log(&self) -> bool {
        let second = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |now| now.as_secs());
        if self.logged_second.swap(second, Ordering::Relaxed) != second {
            self.logged_in_second.store(0, Ordering::Relaxed);
        }
        self.logged_in_second.fetch_add(1, Ordering::Relaxed) < SERVER_LOG_LINES_PER_SECOND
    }
}

/// A call's place among the calls in flight, removed on drop.
pub(crate) struct InFlight {
    routes: Arc<Routes>,
    id: u64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        lock(&self.routes.in_flight).remove(&self.id);
    }
}

/// A call's place in [`Routes`], removed on drop.
pub(crate) struct RouteGuard {
    routes: Arc<Routes>,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        lock(&self.routes.calls).remove(&self.token);
    }
}

impl UpstreamHandler {
    /// The handler of a connection to `upstream`, which forwards `forward`; `list_changed`
    /// is notified on every `list_changed` notification of tools, prompts or resources.
    pub(crate) fn new(
        upstream: &'static str,
        forward: &'static [ForwardedRequest],
        routes: Arc<Routes>,
        list_changed: Arc<tokio::sync::Notify>,
    ) -> Self {
        Self {
            upstream,
            forward,
            routes,
            list_changed,
            updates: None,
        }
    }

    /// This handler, passing on to `updates` the resource updates of the resources `pins`
    /// lets clients subscribe to.
    pub(crate) fn with_updates(mut self, pins: &'static [PinSpec], updates: Updates) -> Self {
        self.updates = Some((pins, updates));
        self
    }

    /// The call `request` is to be passed on to, or the error the upstream gets.
    fn target(&self, request: ForwardedRequest) -> Result<CallContext, ErrorData> {
        let what = request.as_str();
        let target = if self.forward.contains(&request) {
            forward::target(self.routes.in_flight(), what)
        } else {
            Err(ErrorData::invalid_request(
                format!("this gateway does not forward {what} requests from this upstream"),
                None,
            ))
        };
        match &target {
            Ok(call) => tracing::info!(
                upstream = self.upstream,
                request = what,
                trace_id = call.trace_id(),
                "passing on a request the upstream sent"
            ),
            Err(error) => tracing::warn!(
                upstream = self.upstream,
                request = what,
                reason = %error.message,
                "refused a request the upstream sent"
            ),
        }
        target
    }
}

impl ClientHandler for UpstreamHandler {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let call = self.target(ForwardedRequest::Sampling)?;
        forward::sampling(&call, params).await
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let call = self.target(ForwardedRequest::Elicitation)?;
        forward::elicitation(&call, request).await
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let call = self.target(ForwardedRequest::Roots)?;
        forward::roots(&call).await
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(call) = lock(&self.routes.calls)
            .get(&params.progress_token)
            .cloned()
        else {
            return;
        };
        // The call's notifier strips the message, keeps progress increasing and bounds the
        // rate; a stray or backwards value is dropped there.
        call.progress(params.progress, params.total, params.message.as_deref())
            .await;
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let text = match &params.data {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let text = strip::sanitize(&text, true).into_owned();
        if self.routes.may_log() {
            let text: String = text.chars().take(500).collect();
            tracing::info!(upstream = self.upstream, level = ?params.level, message = %text, "upstream log");
        }
        let calls = self.routes.routed();
        let level = LogLevel::from_rmcp(params.level);
        for call in calls {
            call.log(level, &text).await;
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        // The link's supervisor lists again: the check sends a request on this connection,
        // whose answer this handler's caller must stay free to read.
        self.list_changed.notify_one();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some((pins, updates)) = &self.updates {
            updates.relay(self.upstream, pins, &params.uri);
        }
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        // The upstream asks only for what the gateway declares it can answer.
        let declared: Map<String, Value> = self
            .forward
            .iter()
            .map(|request| (request.as_str().to_owned(), json!({})))
            .collect();
        info.capabilities = serde_json::from_value(Value::Object(declared)).unwrap_or_default();
        // The gateway follows an upstream's task to its end (tasks.rs), and `tasks/get` must
        // carry the extension too.
        info.capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
        info.client_info.name = format!("harness-gateway/{}", self.upstream);
        info.client_info.version = env!("CARGO_PKG_VERSION").to_owned();
        info
    }
}
