//! The gateway's side of each upstream connection (rmcp's `ClientHandler`): requests the
//! upstream starts (sampling, elicitation, roots) are refused, progress is forwarded to the
//! call that asked for it, log messages go through the strip to the calls in flight (each
//! call's notifier bounds them) and to the server log (at most a few lines a second), and
//! `notifications/tools/list_changed` tells the link to compare the live definitions with the
//! pins again.

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
    ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};

use crate::context::CallContext;
use crate::guards::strip;
use crate::notify::LogLevel;

/// Upstream log lines written to the server log per second, at most.
const SERVER_LOG_LINES_PER_SECOND: u64 = 20;

/// The handler of one connection.
#[derive(Clone)]
pub(crate) struct UpstreamHandler {
    upstream: &'static str,
    routes: Arc<Routes>,
    list_changed: Arc<tokio::sync::Notify>,
}

/// The calls in flight on a connection that asked for progress or logs, by the progress
/// token of their upstream request.
#[derive(Default)]
pub(crate) struct Routes {
    calls: Mutex<HashMap<ProgressToken, CallContext>>,
    logged_second: AtomicU64,
    logged_in_second: AtomicU64,
}

impl Routes {
    /// Routes the progress of the upstream request carrying `token` to `context` until the
    /// guard drops.
    pub(crate) fn register(
        self: &Arc<Self>,
        token: ProgressToken,
        context: CallContext,
    ) -> RouteGuard {
        self.lock().insert(token.clone(), context);
        RouteGuard {
            routes: Arc::clone(self),
            token,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, CallContext>> {
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

/// A call's place in [`Routes`], removed on drop.
pub(crate) struct RouteGuard {
    routes: Arc<Routes>,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}

impl UpstreamHandler {
    /// The handler of a connection to `upstream`; `list_changed` is notified on every
    /// `notifications/tools/list_changed`.
    pub(crate) fn new(
        upstream: &'static str,
        routes: Arc<Routes>,
        list_changed: Arc<tokio::sync::Notify>,
    ) -> Self {
        Self {
            upstream,
            routes,
            list_changed,
        }
    }

    fn refuse(&self, what: &str) -> ErrorData {
        tracing::warn!(
            upstream = self.upstream,
            request = what,
            "refused a request the upstream sent (the manifest does not forward it)"
        );
        ErrorData::invalid_request(
            format!("this gateway does not forward {what} requests from its upstreams"),
            None,
        )
    }
}

impl ClientHandler for UpstreamHandler {
    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        Err(self.refuse("sampling"))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Err(self.refuse("elicitation"))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Err(self.refuse("roots"))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(call) = self.routes.lock().get(&params.progress_token).cloned() else {
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
        let calls: Vec<CallContext> = self.routes.lock().values().cloned().collect();
        let level = LogLevel::from_rmcp(params.level);
        for call in calls {
            call.log(level, &text).await;
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        // The link's supervisor lists the tools again: the check sends a request on this
        // connection, whose answer this handler's caller must stay free to read.
        self.list_changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info.name = format!("harness-gateway/{}", self.upstream);
        info.client_info.version = env!("CARGO_PKG_VERSION").to_owned();
        info
    }
}
