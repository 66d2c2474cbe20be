//! The guard pipeline of one `tools/call`, in order: trace -> rate limit -> validate ->
//! execute (timeout, panics caught, cancellation honoured) -> tabular blockade -> line cap ->
//! tag strip -> char cap -> envelope -> audit (and OTLP export, with the `otel` feature).
//! Every outcome is answered, logged under the trace id, counted, and audited, including calls
//! the tool body never saw.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::FutureExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ErrorData, MetaObject};
use rmcp::service::{RequestContext, RoleServer};
use serde::Serialize;
use serde_json::{Value, json};

use crate::audit::{AuditLog, AuditRecord, args_sha256};
use crate::context::CallContext;
use crate::envelope::{ErrorEnvelope, codes};
use crate::error::ToolError;
use crate::guards::rate_limit::{Admission, RateLimiter, SharedStore, StoreError};
use crate::guards::tabular::{self, TabularAction};
use crate::guards::{chars, lines, rewrite_strings, strip};
use crate::ingress::DUPLICATE_KEYS_META;
use crate::panic_capture;
use crate::spec::{GuardSpec, ServerSpec, StoreUnreachable, ToolSpec};
use crate::trace::trace_id_for;
use crate::validate::{ArgErrors, ArgPath, FromArguments, JsonObject, quote_client_text};
use harness_contract::HarnessOutcome;
use tokio_util::sync::CancellationToken;

/// Calls, errors and rate-limited calls of one tool since start.
#[derive(Debug, Default)]
pub struct Counters {
    calls: AtomicU64,
    errors: AtomicU64,
    rate_limited: AtomicU64,
}

impl Counters {
    /// The counters as JSON.
    pub fn snapshot(&self) -> Value {
        json!({
            "calls": self.calls.load(Ordering::Relaxed),
            "errors": self.errors.load(Ordering::Relaxed),
            "rate_limited": self.rate_limited.load(Ordering::Relaxed),
        })
    }
}

/// Calls currently running, so a shutdown can wait for them (and only them).
#[derive(Debug, Default)]
pub struct InFlight {
    count: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
}

impl InFlight {
    fn enter(self: &std::sync::Arc<Self>) -> InFlightGuard {
        self.count.fetch_add(1, Ordering::SeqCst);
        InFlightGuard(std::sync::Arc::clone(self))
    }

    /// Resolves once no call is running.
    pub async fn wait_idle(&self) {
        loop {
            let notified = self.idle.notified();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

struct InFlightGuard(std::sync::Arc<InFlight>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// A tool's guards and counters.
#[derive(Debug)]
struct ToolState {
    spec: &'static ToolSpec,
    limiter: Option<RateLimiter>,
    counters: Counters,
}

/// The shared state of every call: per-tool guards and counters, and the audit log.
#[derive(Debug)]
pub struct Pipeline {
    server: &'static ServerSpec,
    tools: Vec<ToolState>,
    audit: OnceLock<AuditLog>,
    started: Instant,
    in_flight: std::sync::Arc<InFlight>,
    /// Spans and metrics over OTLP, when the environment names a collector (or why not).
    #[cfg(feature = "otel")]
    telemetry: Result<Option<crate::telemetry::Telemetry>, String>,
}

/// Why a server cannot start serving: checked by `serve`, `call` and `embed::router` before
/// anything else.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// A rate limit kept in Redis has no usable Redis URL.
    #[error(transparent)]
    RateLimitStore(#[from] StoreError),
    /// OTLP export was asked for (OTEL_EXPORTER_OTLP_*) but cannot be set up.
    #[error("{0}")]
    Telemetry(String),
}

/// A call whose tool name the generated dispatcher is about to match.
pub struct Call {
    arguments: Option<JsonObject>,
    traceparent: Option<String>,
    cancellation: CancellationToken,
    duplicate_keys: Vec<String>,
}

impl Call {
    /// A call with these arguments, W3C `traceparent` (if the client sent one) and
    /// cancellation token.
    pub fn new(
        arguments: Option<JsonObject>,
        traceparent: Option<String>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            arguments,
            traceparent,
            cancellation,
            duplicate_keys: Vec::new(),
        }
    }

    /// The same call, whose raw arguments repeated these keys (paths such as `a.b[0].c`).
    pub fn with_duplicate_keys(mut self, paths: Vec<String>) -> Self {
        self.duplicate_keys = paths;
        self
    }

    /// Splits a request into the tool name (to dispatch on) and the rest of the call.
    pub fn split(
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> (Cow<'static, str>, Call) {
        Self::from_parts(request, Some(&context.meta.0), context.ct)
    }

    /// [`Call::split`] for a request that reached no rmcp service (the stateless fast path),
    /// with the request's `_meta` as rmcp's deserializer put it aside.
    pub fn from_request(
        request: CallToolRequestParams,
        request_meta: &MetaObject,
        cancellation: CancellationToken,
    ) -> (Cow<'static, str>, Call) {
        Self::from_parts(request, Some(request_meta), cancellation)
    }

    fn from_parts(
        request: CallToolRequestParams,
        context_meta: Option<&MetaObject>,
        cancellation: CancellationToken,
    ) -> (Cow<'static, str>, Call) {
        let meta = request.meta.as_deref();
        let traceparent = meta
            .and_then(MetaObject::get_traceparent)
            .or_else(|| context_meta.and_then(|meta| meta.get_traceparent()))
            .map(str::to_owned);
        // Set by the transports' ingress check (`crate::ingress`) on the raw message.
        let duplicate_keys = meta
            .and_then(|meta| meta.0.get(DUPLICATE_KEYS_META))
            .or_else(|| context_meta.and_then(|meta| meta.0.get(DUPLICATE_KEYS_META)))
            .and_then(Value::as_array)
            .map(|paths| {
                paths
                    .iter()
                    .map(|path| path.as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let call = Call::new(request.arguments, traceparent, cancellation)
            .with_duplicate_keys(duplicate_keys);
        (request.name, call)
    }
}

/// How a call ended, before it becomes a reply and an audit record.
struct Outcome {
    result: Result<CallToolResult, ErrorData>,
    outcome: Cow<'static, str>,
    error_code: Option<String>,
    args: Value,
}

impl Outcome {
    /// A failure answered with the error envelope. The message is guarded like any output (a
    /// tool's own error text may quote untrusted data): tags and hidden characters removed,
    /// then held to the tool's line and char caps, the envelope's own fields counted.
    fn envelope(
        guards: &GuardSpec,
        code: &str,
        message: &str,
        trace_id: &str,
        outcome: impl Into<Cow<'static, str>>,
        args: Value,
    ) -> Self {
        let message = envelope_message(guards, code, message, trace_id);
        Self {
            result: Ok(ErrorEnvelope::new(code, &message, trace_id).into_result()),
            outcome: outcome.into(),
            error_code: Some(code.to_owned()),
            args,
        }
    }
}

/// An envelope's message after the output guards: sanitized, line-capped, and cut so that
/// the envelope's JSON text (what the model reads) fits the tool's char cap.
fn envelope_message<'m>(
    guards: &GuardSpec,
    code: &str,
    message: &'m str,
    trace_id: &str,
) -> Cow<'m, str> {
    let mut message = strip::sanitize(message, true);
    if let Some(max_lines) = guards.max_lines
        && let Cow::Owned(capped) = lines::cap_lines(&message, max_lines.max(1))
    {
        message = Cow::Owned(capped);
    }
    let Some(max_chars) = guards.max_chars else {
        return message;
    };
    let frame = serde_json::to_string(&ErrorEnvelope::new(code, "", trace_id))
        .map_or(0, |text| text.chars().count() as u64);
    let budget = max_chars.saturating_sub(frame);
    // What the message costs inside the envelope's JSON text: escapes make it longer.
    let cost = |text: &str| serde_json::to_string(text).map_or(0, |t| t.chars().count() as u64 - 2);
    if cost(&message) <= budget {
        return message;
    }
    let mut keep = budget;
    loop {
        let cut = match chars::cap_text(&message, keep) {
            Some(cut) if cut.chars().count() as u64 <= keep => cut,
            // Too small a budget for the marker: a bare cut with an ellipsis.
            _ => short_cut(&message, keep),
        };
        let over = cost(&cut).saturating_sub(budget);
        if over == 0 || keep == 0 {
            return Cow::Owned(cut);
        }
        keep = keep.saturating_sub(over);
    }
}

/// The first `keep` characters of `text`, the last three of them an ellipsis when they fit.
fn short_cut(text: &str, keep: u64) -> String {
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    if keep < 3 {
        return text.chars().take(keep).collect();
    }
    let mut cut: String = text.chars().take(keep - 3).collect();
    cut.push_str("...");
    cut
}

impl Pipeline {
    /// The pipeline of a generated server (`tools` in dispatch order).
    pub fn new(server: &'static ServerSpec, tools: &'static [ToolSpec]) -> Self {
        panic_capture::install_hook();
        let store = SharedStore::default();
        let tools = tools
            .iter()
            .map(|spec| ToolState {
                spec,
                limiter: spec.guards.rate_limit.map(|limit| {
                    RateLimiter::new(
                        limit,
                        &server.rate_limit_store,
                        &store,
                        server.name,
                        spec.name,
                    )
                }),
                counters: Counters::default(),
            })
            .collect();
        Self {
            server,
            tools,
            audit: OnceLock::new(),
            started: Instant::now(),
            in_flight: std::sync::Arc::default(),
            #[cfg(feature = "otel")]
            telemetry: crate::telemetry::Telemetry::from_env(server.name, server.version)
                .map_err(|error| error.to_string()),
        }
    }

    /// Refuses to start a server whose rate limits cannot work at all (a Redis-backed limit
    /// without its URL, or with a URL that does not parse) or whose asked-for OTLP export
    /// cannot start. Redis being down is not such an error: the manifest's
    /// `when_unreachable` answers each call then.
    pub fn check_setup(&self) -> Result<(), SetupError> {
        if let Some(error) = self
            .tools
            .iter()
            .find_map(|tool| tool.limiter.as_ref()?.setup_error())
        {
            return Err(error.clone().into());
        }
        #[cfg(feature = "otel")]
        if let Err(error) = &self.telemetry {
            return Err(SetupError::Telemetry(error.clone()));
        }
        Ok(())
    }

    /// Whether calls are exported over OTLP.
    pub fn exports_telemetry(&self) -> bool {
        #[cfg(feature = "otel")]
        return matches!(self.telemetry, Ok(Some(_)));
        #[cfg(not(feature = "otel"))]
        false
    }

    /// Sends buffered spans and metrics (at shutdown; nothing when export is off).
    pub fn flush_telemetry(&self) {
        #[cfg(feature = "otel")]
        if let Ok(Some(telemetry)) = &self.telemetry {
            telemetry.shutdown();
        }
    }

    /// Installs the audit log; every later call is recorded. Returns the log back if one
    /// was already installed.
    pub fn install_audit(&self, audit: AuditLog) -> Result<(), AuditLog> {
        self.audit.set(audit)
    }

    /// The calls currently running.
    pub fn in_flight(&self) -> std::sync::Arc<InFlight> {
        std::sync::Arc::clone(&self.in_flight)
    }

    /// The installed audit log.
    pub fn audit(&self) -> Option<&AuditLog> {
        self.audit.get()
    }

    /// Uptime, version, per-tool counters and the manifest digest (the `diagnostics` tool).
    pub fn diagnostics(&self) -> Value {
        let tools: serde_json::Map<String, Value> = self
            .tools
            .iter()
            .map(|tool| (tool.spec.name.to_owned(), tool.counters.snapshot()))
            .collect();
        json!({
            "server": self.server.name,
            "version": self.server.version,
            "uptime_seconds": self.started.elapsed().as_secs(),
            "manifest_sha256": self.server.manifest_sha256,
            "tools": tools,
        })
    }

    /// Runs tool number `index` (its position in the generated `TOOLS`) through every guard.
    pub async fn run<A, O, F, Fut>(
        &self,
        index: usize,
        call: Call,
        body: F,
    ) -> Result<CallToolResult, ErrorData>
    where
        A: FromArguments + Serialize,
        O: Serialize + 'static,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let started = Instant::now();
        let _running = self.in_flight.enter();
        let tool = &self.tools[index];
        let trace_id = trace_id_for(call.traceparent.as_deref());
        let traceparent = if self.exports_telemetry() {
            call.traceparent.clone()
        } else {
            None
        };
        tool.counters.calls.fetch_add(1, Ordering::Relaxed);
        let outcome = self.guarded(tool, call, &trace_id, body).await;
        let duration = started.elapsed();
        if outcome.outcome != HarnessOutcome::Ok.as_str() {
            tool.counters.errors.fetch_add(1, Ordering::Relaxed);
        }
        let trace = CallTrace {
            id: &trace_id,
            parent: traceparent.as_deref(),
        };
        self.record(tool.spec.name, &trace, &outcome, duration);
        outcome.result
    }

    async fn guarded<A, O, F, Fut>(
        &self,
        tool: &ToolState,
        call: Call,
        trace_id: &str,
        body: F,
    ) -> Outcome
    where
        A: FromArguments + Serialize,
        O: Serialize + 'static,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let guards = &tool.spec.guards;
        let raw_args = || Value::Object(call.arguments.clone().unwrap_or_default());
        if let Some(limiter) = &tool.limiter {
            match limiter.acquire().await {
                Admission::Admitted => {}
                Admission::Refused(refused) => {
                    tool.counters.rate_limited.fetch_add(1, Ordering::Relaxed);
                    let message = limiter.message(refused);
                    return Outcome::envelope(
                        guards,
                        codes::RATE_LIMITED,
                        &message,
                        trace_id,
                        HarnessOutcome::RateLimited.as_str(),
                        raw_args(),
                    );
                }
                Admission::StoreUnavailable(reason) => {
                    match self.server.rate_limit_store.when_unreachable {
                        StoreUnreachable::Admit => {
                            tracing::warn!(trace_id, tool = tool.spec.name, %reason, "rate-limit store unreachable; admitting the call unlimited (when_unreachable = \"admit\")");
                        }
                        StoreUnreachable::Refuse => {
                            tracing::warn!(trace_id, tool = tool.spec.name, %reason, "rate-limit store unreachable; refusing the call (when_unreachable = \"refuse\")");
                            return Outcome::envelope(
                                guards,
                                codes::RATE_LIMIT_STORE_UNAVAILABLE,
                                "The rate limit could not be checked, so the call was not run. Retry shortly.",
                                trace_id,
                                HarnessOutcome::RateLimitUnavailable.as_str(),
                                raw_args(),
                            );
                        }
                    }
                }
            }
        }
        let validated = if call.duplicate_keys.is_empty() {
            A::from_call(call.arguments.as_ref())
        } else {
            Err(duplicate_key_errors(&call.duplicate_keys))
        };
        let args = match validated {
            Ok(args) => args,
            Err(errors) => {
                let message = format!("invalid arguments: {errors}");
                return Outcome::envelope(
                    guards,
                    codes::INVALID_ARGUMENTS,
                    &message,
                    trace_id,
                    HarnessOutcome::InvalidArguments.as_str(),
                    raw_args(),
                );
            }
        };
        // The audit hashes the validated arguments, defaults applied.
        let args_json = serde_json::to_value(&args).unwrap_or_else(|_| raw_args());
        let cancellation = call.cancellation.clone();
        let context = CallContext::new(tool.spec.name, trace_id.to_owned(), cancellation.clone());
        // The body is built inside the guarded future so a panic while constructing it is
        // caught too.
        let guarded = AssertUnwindSafe(panic_capture::in_body(
            async move { body(args, context).await },
        ))
        .catch_unwind();
        let timed = async {
            match guards.timeout_ms {
                Some(ms) => tokio::time::timeout(Duration::from_millis(ms), guarded)
                    .await
                    .ok(),
                None => Some(guarded.await),
            }
        };
        let finished = tokio::select! {
            finished = timed => finished,
            () = cancellation.cancelled() => {
                return Outcome::envelope(guards, codes::CANCELLED, "The call was cancelled.", trace_id, HarnessOutcome::Cancelled.as_str(), args_json);
            }
        };
        let name = tool.spec.name;
        match finished {
            None => {
                let ms = guards.timeout_ms.unwrap_or_default();
                let message = format!("Tool call timed out after {ms} ms.");
                Outcome::envelope(
                    guards,
                    codes::TIMEOUT,
                    &message,
                    trace_id,
                    HarnessOutcome::Timeout.as_str(),
                    args_json,
                )
            }
            Some(Err(panic)) => {
                tracing::error!(
                    trace_id,
                    tool = name,
                    panic = panic_message(&panic),
                    at = panic_capture::take_location().as_deref(),
                    "tool body panicked"
                );
                if guards.catch_unhandled {
                    Outcome::envelope(
                        guards,
                        codes::INTERNAL_ERROR,
                        "internal error",
                        trace_id,
                        HarnessOutcome::Panic.as_str(),
                        args_json,
                    )
                } else {
                    Outcome {
                        result: Err(ErrorData::internal_error("internal error", None)),
                        outcome: Cow::Borrowed(HarnessOutcome::Panic.as_str()),
                        error_code: Some(codes::INTERNAL_ERROR.to_owned()),
                        args: args_json,
                    }
                }
            }
            Some(Ok(Err(error))) => {
                if let Some(detail) = error.internal_detail() {
                    tracing::warn!(
                        trace_id,
                        tool = name,
                        code = error.code(),
                        detail,
                        "tool error"
                    );
                }
                let outcome = error.outcome().to_owned();
                Outcome::envelope(
                    guards,
                    error.code(),
                    error.message(),
                    trace_id,
                    outcome,
                    args_json,
                )
            }
            Some(Ok(Ok(output))) => match output_json(output) {
                Ok(value) => self.guard_output(guards, value, trace_id, args_json),
                Err(error) => {
                    tracing::error!(trace_id, tool = name, %error, "tool output does not serialize to JSON");
                    Outcome::envelope(
                        guards,
                        codes::INTERNAL_ERROR,
                        "internal error",
                        trace_id,
                        HarnessOutcome::Error.as_str(),
                        args_json,
                    )
                }
            },
        }
    }

    /// Tabular blockade, line cap, tag strip and char cap, in that order.
    fn guard_output(
        &self,
        guards: &GuardSpec,
        mut value: Value,
        trace_id: &str,
        args: Value,
    ) -> Outcome {
        if let Some(tabular) = guards.tabular
            && tabular::contains_table(&value, tabular.max_rows)
        {
            match tabular.action {
                TabularAction::Block => {
                    return Outcome::envelope(
                        guards,
                        codes::TOKEN_STARVATION,
                        tabular::BLOCK_MESSAGE,
                        trace_id,
                        HarnessOutcome::Blocked.as_str(),
                        args,
                    );
                }
                TabularAction::Summarize => {
                    tabular::summarize_tables(&mut value, tabular.max_rows);
                }
            }
        }
        if let Some(max_lines) = guards.max_lines {
            rewrite_strings(&mut value, &|text| lines::cap_lines(text, max_lines));
        }
        let strip_tags = guards.strip_xml;
        rewrite_strings(&mut value, &|text| strip::sanitize(text, strip_tags));
        let mut result = success(value, guards.max_chars);
        if let Some(cut) = result.1 {
            let mut meta = MetaObject::new();
            meta.0.insert(
                "harness/truncated".to_owned(),
                json!({"original_chars": cut.original_chars, "strings_cut": cut.strings, "array_items_cut": cut.array_items}),
            );
            result.0 = result.0.with_meta(Some(meta));
        }
        Outcome {
            result: Ok(result.0),
            outcome: Cow::Borrowed(HarnessOutcome::Ok.as_str()),
            error_code: None,
            args,
        }
    }

    /// Logs, audits and exports one call's outcome.
    fn record(&self, name: &str, trace: &CallTrace<'_>, outcome: &Outcome, duration: Duration) {
        let trace_id = trace.id;
        let duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        let duration_us = u64::try_from(duration.as_micros()).unwrap_or(u64::MAX);
        // The audit records every call; the log shows failures by default and successes at
        // debug level, since formatting a line per call costs more than every guard together.
        if outcome.outcome == HarnessOutcome::Ok.as_str() {
            tracing::debug!(
                trace_id,
                tool = name,
                outcome = HarnessOutcome::Ok.as_str(),
                duration_us,
                "tools/call"
            );
        } else {
            tracing::info!(
                trace_id,
                tool = name,
                outcome = %outcome.outcome,
                error_code = outcome.error_code.as_deref(),
                duration_us,
                "tools/call"
            );
        }
        let audit = self.audit.get();
        let digest =
            (audit.is_some() || self.exports_telemetry()).then(|| args_sha256(&outcome.args));
        #[cfg(feature = "otel")]
        if let (Ok(Some(telemetry)), Some(digest)) = (&self.telemetry, &digest) {
            telemetry.record(&crate::telemetry::FinishedCall {
                tool: name,
                outcome: &outcome.outcome,
                error_code: outcome.error_code.as_deref(),
                duration,
                args_sha256: digest,
                trace_id,
                traceparent: trace.parent,
            });
        }
        if let (Some(audit), Some(args_sha256)) = (audit, digest) {
            let record = AuditRecord {
                tool: name,
                args_sha256,
                outcome: &outcome.outcome,
                duration_ms,
                trace_id,
                error_code: outcome.error_code.as_deref(),
            };
            if let Err(error) = audit.append(&record) {
                tracing::error!(trace_id, tool = name, %error, "audit record lost");
            }
        }
    }

    /// The JSON-RPC error (-32602) for a tool name the server does not publish; the call is
    /// logged and audited (outcome `unknown_tool`, the name sanitized and cut) like any other.
    pub fn unknown_tool(&self, name: &str, call: Call) -> ErrorData {
        let started = Instant::now();
        let trace_id = trace_id_for(call.traceparent.as_deref());
        let error = unknown_tool(name);
        let outcome = Outcome {
            result: Err(error.clone()),
            outcome: Cow::Borrowed(HarnessOutcome::UnknownTool.as_str()),
            error_code: Some(codes::UNKNOWN_TOOL.to_owned()),
            args: Value::Object(call.arguments.unwrap_or_default()),
        };
        let shown = audited_tool_name(name);
        let trace = CallTrace {
            id: &trace_id,
            parent: call.traceparent.as_deref(),
        };
        self.record(&shown, &trace, &outcome, started.elapsed());
        error
    }
}

/// A call's trace: the audit's trace id and the client's `traceparent`, which an exported span
/// continues.
struct CallTrace<'a> {
    id: &'a str,
    #[cfg_attr(
        not(feature = "otel"),
        expect(dead_code, reason = "only OTLP export reads it")
    )]
    parent: Option<&'a str>,
}

/// A client-sent tool name as the audit records it: sanitized, at most 40 characters.
fn audited_tool_name(name: &str) -> String {
    let clean = strip::sanitize(name, true);
    match clean.char_indices().nth(crate::validate::QUOTE_LIMIT) {
        None => clean.into_owned(),
        Some((cut, _)) => format!("{}...", &clean[..cut]),
    }
}

/// The validation errors of arguments whose raw JSON repeated keys.
fn duplicate_key_errors(paths: &[String]) -> ArgErrors {
    let mut errors = ArgErrors::default();
    for path in paths {
        errors.push(
            ArgPath::Root.field(path),
            "duplicate key; each argument may appear once",
        );
    }
    errors
}

/// The reply for a successful call, with the char cap applied: a JSON object becomes
/// structuredContent (and the same JSON as text); a string becomes plain text; anything
/// else becomes JSON text.
fn success(value: Value, max_chars: Option<u64>) -> (CallToolResult, Option<chars::Cut>) {
    match value {
        Value::String(text) => {
            let capped = max_chars.and_then(|max| chars::cap_text(&text, max));
            let cut = capped.as_ref().map(|_| chars::Cut {
                strings: 1,
                array_items: 0,
                original_chars: text.chars().count() as u64,
            });
            (
                CallToolResult::success(vec![ContentBlock::text(capped.unwrap_or(text))]),
                cut,
            )
        }
        mut value => {
            // Serialized once: the text block is also what the cap measures, so a result
            // within the cap (the usual case) is neither counted nor serialized again.
            let text = value.to_string();
            let within = max_chars
                .is_none_or(|max| text.len() as u64 <= max || text.chars().count() as u64 <= max);
            if within {
                return (json_result(value, text), None);
            }
            let cut = max_chars
                .map(|max| chars::cap_value(&mut value, max))
                .filter(|cut| !cut.is_empty());
            let text = value.to_string();
            (json_result(value, text), cut)
        }
    }
}

/// A JSON result whose serialization is `text`: an object is structuredContent (with the
/// same JSON as text, as `CallToolResult::structured` makes it); anything else is text.
fn json_result(value: Value, text: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if value.is_object() {
        result.structured_content = Some(value);
    }
    result
}

/// The output as JSON. A body that already returns a `serde_json::Value` hands it over
/// as is: `serde_json::to_value` would rebuild it node by node, which for a 1,000-row table
/// cost more than every guard together.
fn output_json<O: Serialize + 'static>(output: O) -> Result<Value, serde_json::Error> {
    let mut slot = Some(output);
    if let Some(value) = (&mut slot as &mut dyn Any).downcast_mut::<Option<Value>>() {
        return Ok(value.take().expect("the slot was just filled"));
    }
    serde_json::to_value(slot.take().expect("the slot was just filled"))
}

fn panic_message(payload: &Box<dyn Any + Send>) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}

/// The JSON-RPC error (-32602) for a tool name the server does not publish: the name is
/// sanitized and quoted at most 40 characters, like every client string in a message.
pub fn unknown_tool(name: &str) -> ErrorData {
    let shown = quote_client_text(name);
    ErrorData::invalid_params(format!("unknown tool: {shown}"), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        id: u32,
        region: &'static str,
    }

    #[test]
    fn output_json_takes_a_value_as_is_and_serializes_anything_else() {
        let table = json!([{"id": 1, "region": "eu"}, {"id": 2, "region": "us"}]);
        assert_eq!(output_json(table.clone()).unwrap(), table);
        let rows = vec![
            Row {
                id: 1,
                region: "eu",
            },
            Row {
                id: 2,
                region: "us",
            },
        ];
        assert_eq!(output_json(rows).unwrap(), table);
        assert_eq!(output_json("text").unwrap(), json!("text"));
    }

    #[test]
    fn a_result_within_the_cap_is_what_rmcp_would_build() {
        let object = json!({"message": "hello", "n": [1, 2]});
        let (result, cut) = success(object.clone(), Some(4000));
        assert!(cut.is_none());
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            serde_json::to_value(CallToolResult::structured(object)).unwrap()
        );
        let (result, _) = success(json!([1, 2]), None);
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            serde_json::to_value(CallToolResult::success(vec![ContentBlock::text("[1,2]")]))
                .unwrap()
        );
    }

    #[test]
    fn a_result_over_the_cap_is_cut_and_its_text_matches_the_cut_value() {
        let object = json!({"log": "x".repeat(500)});
        let (result, cut) = success(object, Some(100));
        let cut = cut.expect("over the cap");
        assert_eq!(cut.strings, 1);
        let structured = result
            .structured_content
            .as_ref()
            .expect("still structured");
        let text = &result.content[0].as_text().expect("text").text;
        assert_eq!(text, &structured.to_string());
        assert!(text.chars().count() <= 100, "{text}");
    }
}
