//! The guard pipeline of one `tools/call`, in order: trace -> in-flight bound (`[server]
//! max_in_flight`) -> rate limit -> validate -> idempotency key -> confirm (`confirm = true`
//! tools) -> concurrency bound (`max_concurrent`) -> execute (timeout, panics caught,
//! cancellation honoured) -> tabular blockade -> line cap -> tag strip -> secret redaction -> char cap -> envelope ->
//! audit (and OTLP export, with the `otel` feature).
//! Every outcome is answered, logged under the trace id, counted, and audited, including calls
//! the tool body never saw. The checks before the body are `admit.rs`; a call of a
//! `[tools.task]` tool that becomes a task (`task.rs`) runs the same order, cut after them.

mod admit;
pub(crate) mod bounded;
pub(crate) mod call;
mod confirm;
mod declared;
pub(crate) mod envelope;
mod execute;
mod idempotent;
mod input;
pub(crate) mod outcome;
pub(crate) mod panic_capture;
pub(crate) mod refusal;
mod refusal_table;
pub(crate) mod result;
mod task;

use std::future::Future;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResponse, CallToolResult, ErrorData};
use serde::Serialize;
use serde_json::{Value, json};

use crate::audit::{AuditLog, AuditRecord, args_sha256};
use crate::context::CallContext;
use crate::error::ToolError;
use crate::guards::concurrency::Slots;
use crate::guards::idempotency::IdempotencyStore;
use crate::guards::rate_limit::{RateLimiter, SharedStore, StoreError};
use crate::guards::request_limits::RequestLimits;
use crate::spec::{ServerSpec, ToolSpec};
use crate::trace::trace_id_for;
use crate::validate::FromArguments;
use harness_contract::HarnessOutcome;

pub use self::call::{Call, DUPLICATE_KEYS_META};
use self::call::{CallTrace, audited_tool_name};
use self::declared::Declared;
pub use self::envelope::codes;
use self::outcome::Outcome;
use self::refusal::Refusal;
pub use self::refusal_table::{RefusalRow, refusal_table};

/// Calls, errors and rate-limited calls of one tool since start.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    calls: AtomicU64,
    errors: AtomicU64,
    rate_limited: AtomicU64,
}

impl Counters {
    /// The counters as JSON.
    pub(crate) fn snapshot(&self) -> Value {
        json!({
            "calls": self.calls.load(Ordering::Relaxed),
            "errors": self.errors.load(Ordering::Relaxed),
            "rate_limited": self.rate_limited.load(Ordering::Relaxed),
        })
    }
}

/// A tool's guards, counters and declared result.
#[derive(Debug)]
struct ToolState {
    spec: &'static ToolSpec,
    limiter: Option<RateLimiter>,
    counters: Counters,
    declared: Option<Declared>,
    idempotency: Option<IdempotencyStore>,
    /// Places for the body, with `max_concurrent`.
    running: Option<Slots>,
}

/// A call admitted by the checks before the body (in-flight bound, rate limit, validation,
/// idempotency key), on its way to the body.
struct Admitted<'c, A> {
    /// The tool called, with its declared result and its places for the body.
    tool: &'c ToolState,
    /// The call as it arrived.
    call: &'c Call,
    /// The call's trace id.
    trace_id: &'c str,
    /// The validated arguments, for the body.
    args: A,
    /// The same arguments as JSON, defaults applied, for the audit.
    args_json: Value,
}

/// What the checks before the body leave a call with: its place among the calls in flight,
/// its validated arguments and its idempotency key, held until the call ends.
struct Cleared<'p, A> {
    _in_flight: Option<tokio::sync::SemaphorePermit<'p>>,
    args: A,
    args_json: Value,
    reservation: Option<crate::guards::idempotency::Reservation<'p>>,
}

/// A server's shared state (the manifest, per-tool guards and counters, the audit log, the
/// subscriptions' updates) and the order of one `tools/call` ([`Pipeline::run`],
/// [`Pipeline::respond`]). The catalog and the subscriptions are parts of their own, borrowed
/// with `catalog()` and `subscriptions()`.
#[derive(Debug)]
pub struct Pipeline {
    server: &'static ServerSpec,
    tools: Vec<ToolState>,
    /// Places for calls in flight, with `[server] max_in_flight`.
    in_flight: Option<Slots>,
    audit: OnceLock<AuditLog>,
    started: Instant,
    /// The key sealing input-required request state, when the manifest names one.
    state_key: Option<Result<crate::input::state::StateKey, crate::input::state::StateKeyError>>,
    /// Spans and metrics over OTLP, when the environment names a collector (or why not).
    #[cfg(feature = "otel")]
    telemetry: Result<Option<crate::telemetry::Telemetry>, String>,
    /// Updates of subscribable resources, to the open `subscriptions/listen` streams.
    updates: crate::subscriptions::updates::Updates,
    /// The calls that became tasks.
    tasks: crate::tasks::Tasks,
    /// The windows of the catalog's requests that reach a body or an upstream.
    request_limits: RequestLimits,
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
    /// The manifest names a request-state key that is missing or too short.
    #[error(transparent)]
    RequestStateKey(#[from] crate::input::state::StateKeyError),
    /// An upstream tool's pinned JSON Schema does not compile.
    #[cfg(feature = "gateway")]
    #[error(transparent)]
    PinnedSchema(#[from] crate::upstream::SchemaError),
}

impl Pipeline {
    /// The pipeline of a generated server (`tools` in dispatch order).
    pub fn new(server: &'static ServerSpec, tools: &'static [ToolSpec]) -> Self {
        panic_capture::install_hook();
        let store = SharedStore::default();
        let request_limits = RequestLimits::new(server, &store);
        let tasks = crate::tasks::Tasks::new(server, tools, &store);
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
                declared: spec.output.as_ref().map(Declared::of),
                idempotency: spec.write.idempotency.map(|idempotency| {
                    IdempotencyStore::new(
                        &idempotency,
                        spec.guards.timeout_ms,
                        &server.rate_limit_store,
                        &store,
                        server.name,
                        spec.name,
                    )
                }),
                running: spec.guards.max_concurrent.map(Slots::new),
            })
            .collect();
        Self {
            server,
            tools,
            in_flight: server.max_in_flight.map(Slots::new),
            audit: OnceLock::new(),
            started: Instant::now(),
            state_key: server
                .request_state_key_env
                .map(crate::input::state::StateKey::from_env),
            #[cfg(feature = "otel")]
            telemetry: crate::telemetry::Telemetry::from_env(server.name, server.version)
                .map_err(|error| error.to_string()),
            updates: crate::subscriptions::updates::Updates::default(),
            tasks,
            request_limits,
        }
    }

    /// Refuses to start a server whose rate limits cannot work at all (a Redis-backed limit
    /// without its URL, or with a URL that does not parse) or whose asked-for OTLP export
    /// cannot start. Redis being down is not such an error: the manifest's
    /// `when_unreachable` answers each call then.
    pub fn check_setup(&self) -> Result<(), SetupError> {
        let tools = self.tools.iter().find_map(|tool| {
            let limiter = tool.limiter.as_ref().and_then(RateLimiter::setup_error);
            limiter.or_else(|| tool.idempotency.as_ref()?.setup_error())
        });
        let tasks = || self.tasks.store().setup_error();
        if let Some(error) = tools
            .or_else(|| self.request_limits.setup_error())
            .or_else(tasks)
        {
            return Err(error.clone().into());
        }
        #[cfg(feature = "otel")]
        if let Err(error) = &self.telemetry {
            return Err(SetupError::Telemetry(error.clone()));
        }
        if let Some(Err(error)) = &self.state_key {
            return Err(error.clone().into());
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

    /// The server's static description.
    pub(crate) fn server(&self) -> &'static ServerSpec {
        self.server
    }

    /// Updates of subscribable resources and the listen streams they go to.
    pub(crate) fn updates(&self) -> &crate::subscriptions::updates::Updates {
        &self.updates
    }

    /// The rate limits of the catalog's requests that reach a body or an upstream.
    pub(crate) fn request_limits(&self) -> &RequestLimits {
        &self.request_limits
    }

    /// Installs the audit log; every later call is recorded. Returns the log back if one
    /// was already installed.
    pub fn install_audit(&self, audit: AuditLog) -> Result<(), AuditLog> {
        self.audit.set(audit)
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

    /// [`Pipeline::respond`] for a caller that cannot carry an input-required result (a body
    /// that asks the client for input on a 2026-07-28 request gets an internal error here).
    pub async fn run<A, O, F, Fut>(
        &self,
        index: usize,
        call: Call,
        body: F,
    ) -> Result<CallToolResult, ErrorData>
    where
        A: FromArguments + Serialize + Send,
        O: Serialize + Send + 'static,
        F: FnOnce(A, CallContext) -> Fut + Send,
        Fut: Future<Output = Result<O, ToolError>> + Send,
    {
        match self.respond(index, call, body).await? {
            CallToolResponse::Complete(result) => Ok(result),
            _ => Err(ErrorData::internal_error(
                "the call needs input from the client, which this caller cannot ask for",
                None,
            )),
        }
    }

    /// Runs tool number `index` (its position in the generated `TOOLS`) through every guard:
    /// a result, an input-required result (2026-07-28), or a JSON-RPC error.
    ///
    /// The future is boxed: a generated dispatcher awaits one per tool in a `match`, and in a
    /// debug build the poll of that match reserves stack for every arm's inline future at
    /// once, which overflowed a worker thread with a gateway's nineteen tools.
    pub fn respond<'a, A, O, F, Fut>(
        &'a self,
        index: usize,
        call: Call,
        body: F,
    ) -> futures::future::BoxFuture<'a, Result<CallToolResponse, ErrorData>>
    where
        A: FromArguments + Serialize + Send + 'a,
        O: Serialize + Send + 'static,
        F: FnOnce(A, CallContext) -> Fut + Send + 'a,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'a,
    {
        Box::pin(self.respond_inline(index, call, body))
    }

    async fn respond_inline<A, O, F, Fut>(
        &self,
        index: usize,
        call: Call,
        body: F,
    ) -> Result<CallToolResponse, ErrorData>
    where
        A: FromArguments + Serialize + Send,
        O: Serialize + Send + 'static,
        F: FnOnce(A, CallContext) -> Fut + Send,
        Fut: Future<Output = Result<O, ToolError>> + Send,
    {
        let started = Instant::now();
        let tool = &self.tools[index];
        let trace_id = trace_id_for(call.traceparent.as_deref());
        let traceparent = if self.exports_telemetry() {
            call.traceparent.clone()
        } else {
            None
        };
        tool.counters.calls.fetch_add(1, Ordering::Relaxed);
        let caller = call.caller.clone();
        // A panic anywhere past this point (an output guard, a validator, the pipeline's own
        // code) is answered and audited like a body's; the body has its own capture inside.
        let admitted = panic_capture::caught(self.admit_and_execute(tool, &call, &trace_id, body));
        let mut outcome = match admitted.await {
            Ok(outcome) => outcome,
            Err(panic) => {
                tracing::error!(
                    trace_id,
                    tool = tool.spec.name,
                    panic = panic_capture::panic_message(&panic),
                    at = panic_capture::take_location().as_deref(),
                    "call pipeline panicked"
                );
                let caught = tool.spec.guards.catch_unhandled;
                let guards = Some(&tool.spec.guards);
                Outcome::refused(
                    Refusal::Panic { caught },
                    guards,
                    &trace_id,
                    call.raw_arguments(),
                )
            }
        };
        if tool.declared.is_some() {
            declared::envelope_as_text(&mut outcome);
        }
        let duration = started.elapsed();
        if !outcome.is_ok() {
            tool.counters.errors.fetch_add(1, Ordering::Relaxed);
        }
        let trace = CallTrace {
            id: &trace_id,
            subject: caller.as_deref().map(|caller| caller.subject.as_str()),
            parent: traceparent.as_deref(),
            task: None,
        };
        self.record_grouped(tool.spec.name, &trace, &outcome, duration)
            .await;
        outcome.result
    }

    async fn admit_and_execute<A, O, F, Fut>(
        &self,
        tool: &ToolState,
        call: &Call,
        trace_id: &str,
        body: F,
    ) -> Outcome
    where
        A: FromArguments + Serialize,
        O: Serialize + 'static,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let cleared = match self.admit(tool, call, trace_id).await {
            Ok(cleared) => cleared,
            Err(refused) => return *refused,
        };
        self.execute_admitted(tool, call, trace_id, cleared, body)
            .await
    }

    /// Logs, audits and exports one call's outcome.
    fn record(&self, name: &str, trace: &CallTrace<'_>, outcome: &Outcome, duration: Duration) {
        if let Some((audit, record)) = self.reported(name, trace, outcome, duration)
            && let Err(error) = audit.append(&record)
        {
            tracing::error!(trace_id = trace.id, tool = name, %error, "audit record lost");
        }
    }

    /// [`Self::record`], its audit record written with those of the calls that finish with it
    /// (crate::audit's group commit): an inline call's reply waits for it.
    async fn record_grouped(
        &self,
        name: &str,
        trace: &CallTrace<'_>,
        outcome: &Outcome,
        duration: Duration,
    ) {
        if let Some((audit, record)) = self.reported(name, trace, outcome, duration)
            && let Err(error) = audit.append_grouped(&record).await
        {
            tracing::error!(trace_id = trace.id, tool = name, %error, "audit record lost");
        }
    }

    /// Logs and exports one call's outcome, and returns its audit record when the server
    /// keeps an audit log.
    fn reported<'a>(
        &'a self,
        name: &'a str,
        trace: &CallTrace<'a>,
        outcome: &'a Outcome,
        duration: Duration,
    ) -> Option<(&'a AuditLog, AuditRecord<'a>)> {
        let (trace_id, subject) = (trace.id, trace.subject);
        let duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        let duration_us = u64::try_from(duration.as_micros()).unwrap_or(u64::MAX);
        // The audit records every call; the log shows failures by default and successes at
        // debug level, since formatting a line per call costs more than every guard together.
        if outcome.is_ok() {
            tracing::debug!(
                trace_id,
                tool = name,
                subject,
                outcome = HarnessOutcome::Ok.as_str(),
                duration_us,
                "tools/call"
            );
        } else {
            tracing::info!(
                trace_id,
                tool = name,
                subject,
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
                subject,
            });
        }
        let (audit, args_sha256) = (audit?, digest?);
        Some((
            audit,
            AuditRecord {
                method: None,
                tool: name,
                args_sha256,
                outcome: &outcome.outcome,
                duration_ms,
                trace_id,
                error_code: outcome.error_code.as_deref(),
                subject,
                task_id: trace.task,
            },
        ))
    }

    /// The JSON-RPC error (-32602) for a tool name the server does not publish; the call is
    /// logged and audited (outcome `unknown_tool`, the name sanitized and cut) like any other.
    pub fn unknown_tool(&self, name: &str, call: Call) -> ErrorData {
        let started = Instant::now();
        let trace_id = trace_id_for(call.traceparent.as_deref());
        let outcome = Outcome::refused(
            Refusal::UnknownTool(name.to_owned()),
            None,
            &trace_id,
            call.raw_arguments(),
        );
        let trace = CallTrace {
            id: &trace_id,
            subject: call.caller().map(|caller| caller.subject.as_str()),
            parent: call.traceparent.as_deref(),
            task: None,
        };
        self.record(
            &audited_tool_name(name),
            &trace,
            &outcome,
            started.elapsed(),
        );
        outcome
            .result
            .expect_err("an unknown tool is answered with a JSON-RPC error")
    }
}
