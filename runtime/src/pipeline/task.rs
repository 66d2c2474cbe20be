//! A `tools/call` that becomes a task (the tasks extension): the same pipeline as an inline
//! call, cut in two. Before the client gets its task: the in-flight bound, the rate limit
//! (counted once, at creation), strict validation, the idempotency key (a repeated key while
//! its task is alive returns that task), the forms the manifest asks first (`ask_first`, as
//! input-required rounds of the call itself) and the tool's `max_alive`. After: the
//! confirmation, the concurrency bound, the body under its timeout, cancellation (by
//! `tasks/cancel`) and panic capture, and every output guard, all before `tasks/get` shows the
//! result; a body still running at the task's time to live is stopped. The audit has one
//! record at creation (`task_created`) and one for the end, linked by `task_id`.
//!
//! A tool error, the envelope of a caught panic included, ends the task `completed` with
//! `isError`; only a JSON-RPC error (an uncaught panic where `catch_unhandled = false`, an
//! expiry) ends it `failed`, as the extension says.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use harness_contract::{HarnessOutcome, TaskSupport};
use rmcp::model::{CallToolResponse, CreateTaskResult, ErrorData, Task, TaskPayload};
use serde::Serialize;
use serde_json::json;
use tokio::sync::oneshot;

use crate::audit::args_sha256;
use crate::context::CallContext;
use crate::error::ToolError;
use crate::input::session::input_required;
use crate::pipeline::call::{Call, CallTrace};
use crate::pipeline::outcome::Outcome;
use crate::pipeline::refusal::Refusal;
use crate::pipeline::{Cleared, Pipeline, ToolState, declared, panic_capture};
use crate::spec::TaskSpec;
use crate::tasks::Tasks;
use crate::tasks::store::TaskHandle;
use crate::tasks::terms::{AtLimit, Created, NewTask, Unavailable, as_object};
use crate::trace::trace_id_for;
use crate::validate::FromArguments;

/// What a task call's creator is told: the task, or how the call ended without one.
type CreationReply = oneshot::Sender<Result<CallToolResponse, ErrorData>>;

impl Pipeline {
    /// The tasks extension's part: `tasks/get`, `tasks/update` and `tasks/cancel`.
    pub fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// Runs tool number `index`, a tool with `[tools.task]`: as a task when the request
    /// declares the extension (the reply is the task, once `tasks/get` can read it), inline
    /// otherwise, or refused with -32021 when the tool runs only as a task. The body owns what
    /// it borrows, since a task outlives the request that created it.
    pub fn respond_task<A, O, F, Fut>(
        self: &Arc<Self>,
        index: usize,
        call: Call,
        body: F,
    ) -> BoxFuture<'static, Result<CallToolResponse, ErrorData>>
    where
        A: FromArguments + Serialize + Send + 'static,
        O: Serialize + Send + 'static,
        F: FnOnce(A, CallContext) -> Fut + Send + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        let pipeline = Arc::clone(self);
        Box::pin(async move {
            let tool = &pipeline.tools[index];
            let Some(spec) = tool.spec.task else {
                return pipeline.respond(index, call, body).await;
            };
            if !call.input.tasks_declared {
                if spec.support == TaskSupport::Required {
                    return pipeline.refuse_untasked(tool, &call);
                }
                return pipeline.respond(index, call, body).await;
            }
            let (created, creation) = oneshot::channel();
            let running = Arc::clone(&pipeline);
            tokio::spawn(Box::pin(running.run_task(index, call, body, created)));
            creation.await.unwrap_or_else(|_| {
                Err(ErrorData::internal_error(
                    "the task could not be created",
                    None,
                ))
            })
        })
    }

    /// A tool that runs only as a task, called without the extension: -32021, audited.
    fn refuse_untasked(
        &self,
        tool: &ToolState,
        call: &Call,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let trace_id = trace_id_for(call.traceparent.as_deref());
        tool.counters.calls.fetch_add(1, Ordering::Relaxed);
        tool.counters.errors.fetch_add(1, Ordering::Relaxed);
        let outcome = Outcome::refused(
            Refusal::TaskRequired,
            Some(&tool.spec.guards),
            &trace_id,
            call.raw_arguments(),
        );
        let trace = CallTrace {
            id: &trace_id,
            subject: call.caller().map(|caller| caller.subject.as_str()),
            parent: call.traceparent.as_deref(),
            task: None,
        };
        self.record(tool.spec.name, &trace, &outcome, started.elapsed());
        outcome.result
    }

    /// The whole life of a task call, in its own tokio task: the checks (their refusal, or
    /// the task, goes to `created`), then the body and the guards, then the task's end.
    async fn run_task<A, O, F, Fut>(
        self: Arc<Self>,
        index: usize,
        mut call: Call,
        body: F,
        created: CreationReply,
    ) where
        A: FromArguments + Serialize + Send,
        O: Serialize + Send + 'static,
        F: FnOnce(A, CallContext) -> Fut + Send,
        Fut: Future<Output = Result<O, ToolError>> + Send,
    {
        let started = Instant::now();
        let tool = &self.tools[index];
        let Some(spec) = tool.spec.task else {
            return;
        };
        let trace_id = trace_id_for(call.traceparent.as_deref());
        tool.counters.calls.fetch_add(1, Ordering::Relaxed);
        let caller = call.caller.clone();
        let subject = caller.as_deref().map(|caller| caller.subject.as_str());
        let traceparent = call.traceparent.clone();
        let trace = |task| CallTrace {
            id: &trace_id,
            subject,
            parent: traceparent.as_deref(),
            task,
        };
        // Boxed, as `respond` is: polled inline, a debug build's frames for these futures
        // overflow a worker thread's stack.
        let before =
            panic_capture::caught(Box::pin(self.before_task(index, &call, &spec, &trace_id))).await;
        let (cleared, task, handle) = match before {
            Ok(Ok(ready)) => ready,
            Ok(Err(ended)) => {
                let mut ended = *ended;
                self.end_untasked(tool, &trace(None), &mut ended, started);
                let _ = created.send(ended.result);
                return;
            }
            Err(_) => {
                let mut ended = self.pipeline_panic(tool, &call, &trace_id);
                self.end_untasked(tool, &trace(None), &mut ended, started);
                let _ = created.send(ended.result);
                return;
            }
        };
        let args = cleared.args_json.clone();
        let creation = Outcome {
            result: Ok(CallToolResponse::Task(CreateTaskResult::new(task))),
            outcome: Cow::Borrowed(HarnessOutcome::TaskCreated.as_str()),
            error_code: None,
            args,
        };
        self.record(
            tool.spec.name,
            &trace(Some(handle.id())),
            &creation,
            started.elapsed(),
        );
        if created.send(creation.result).is_err() {
            // The request went away before it could be told; the task runs on regardless,
            // as the client may still read it by id from another request.
            tracing::debug!(
                trace_id,
                task = handle.id(),
                "task created for a request that is gone"
            );
        }
        // From here the call is the task's: cancelled by `tasks/cancel`, asking through it, and
        // telling nothing to a connection that may be gone.
        call.cancellation = handle.cancellation().clone();
        call.peer = None;
        call.input.task = Some(handle.clone());
        let ran = panic_capture::caught(Box::pin(
            self.execute_admitted(tool, &call, &trace_id, cleared, body),
        ));
        let expiry = Duration::from_millis(spec.ttl_ms).saturating_sub(started.elapsed());
        let mut outcome = tokio::select! {
            ran = ran => ran.unwrap_or_else(|_| self.pipeline_panic(tool, &call, &trace_id)),
            () = tokio::time::sleep(expiry) => {
                handle.cancellation().cancel();
                Outcome::refused(Refusal::TaskExpired(spec.ttl_ms), Some(&tool.spec.guards), &trace_id, call.raw_arguments())
            }
        };
        if tool.declared.is_some() {
            declared::envelope_as_text(&mut outcome);
        }
        if handle.was_cancelled() && outcome.outcome != HarnessOutcome::Cancelled.as_str() {
            // Cancelled while the body was finishing: the task reads `cancelled` already.
            outcome.outcome = Cow::Borrowed(HarnessOutcome::Cancelled.as_str());
        }
        if !outcome.is_ok() {
            tool.counters.errors.fetch_add(1, Ordering::Relaxed);
        }
        finish(&handle, &outcome).await;
        self.record(
            tool.spec.name,
            &trace(Some(handle.id())),
            &outcome,
            started.elapsed(),
        );
    }

    /// The checks before a task exists, and its creation.
    async fn before_task<'p, A>(
        &'p self,
        index: usize,
        call: &Call,
        spec: &TaskSpec,
        trace_id: &str,
    ) -> Result<(Cleared<'p, A>, Task, TaskHandle), Box<Outcome>>
    where
        A: FromArguments + Serialize,
    {
        let tool = &self.tools[index];
        // A repeated idempotency key while its task is alive gets that task, counted nowhere.
        let idempotency = tool.spec.write.idempotency.and_then(|idempotency| {
            let arguments = call.arguments.as_ref()?;
            let key = arguments.get(idempotency.argument)?.as_str()?;
            Some(format!("{key}\n{}", args_sha256(&call.raw_arguments())))
        });
        let new = NewTask {
            name: tool.spec.name,
            spec,
            owner: call.caller().map(|caller| caller.subject.clone()),
            idempotency,
        };
        let replayed = |task| {
            Box::new(Outcome {
                result: Ok(CallToolResponse::Task(CreateTaskResult::new(task))),
                outcome: Cow::Borrowed(HarnessOutcome::Replayed.as_str()),
                error_code: None,
                args: call.raw_arguments(),
            })
        };
        let unavailable = |error: Unavailable, args: serde_json::Value| {
            tracing::warn!(trace_id, tool = tool.spec.name, %error, "no task was created");
            Outcome::refused(
                Refusal::TaskStoreUnavailable,
                Some(&tool.spec.guards),
                trace_id,
                args,
            )
        };
        match self.tasks.store().by_idempotency(&new).await {
            Ok(Some(task)) => return Err(replayed(task)),
            Ok(None) => {}
            Err(error) => return Err(Box::new(unavailable(error, call.raw_arguments()))),
        }
        let cleared = self.admit::<A>(tool, call, trace_id).await?;
        let ended = |outcome: Outcome, cleared: Cleared<'p, A>| async move {
            if let Some(reservation) = cleared.reservation {
                crate::pipeline::idempotent::finish(reservation, &outcome, false, trace_id).await;
            }
            Err(Box::new(outcome))
        };
        if let Some(asked) = self.ask_first(tool, spec, call, &cleared.args_json, trace_id) {
            return ended(asked, cleared).await;
        }
        let refused = |refusal| {
            Outcome::refused(
                refusal,
                Some(&tool.spec.guards),
                trace_id,
                cleared.args_json.clone(),
            )
        };
        let outcome = match self.tasks.store().create(new).await {
            Ok(Created::New(task, handle)) => return Ok((cleared, task, handle)),
            Ok(Created::Existing(task)) => *replayed(task),
            Ok(Created::AtLimit(AtLimit(max))) => refused(Refusal::TooManyTasks(max)),
            Err(error) => unavailable(error, cleared.args_json.clone()),
        };
        ended(outcome, cleared).await
    }

    /// The forms `[tools.task] ask_first` names that the request has no answer to, asked as an
    /// input-required result (the answers so far sealed for the next round); `None` when every
    /// one is answered, or when the request state does not open (then that refusal).
    fn ask_first(
        &self,
        tool: &ToolState,
        spec: &TaskSpec,
        call: &Call,
        args: &serde_json::Value,
        trace_id: &str,
    ) -> Option<Outcome> {
        if spec.ask_first.is_empty() {
            return None;
        }
        let guards = &tool.spec.guards;
        let input = match self.input_session(tool.spec, call, guards) {
            Ok(input) => input,
            Err(refusal) => {
                return Some(Outcome::refused(
                    refusal,
                    Some(guards),
                    trace_id,
                    args.clone(),
                ));
            }
        };
        let answers = input.answers()?;
        let unanswered: Vec<_> = spec
            .ask_first
            .iter()
            .filter(|form| !answers.contains_key(form.key))
            .collect();
        if unanswered.is_empty() {
            return None;
        }
        for form in unanswered {
            let schema: serde_json::Value = serde_json::from_str(form.schema).unwrap_or_default();
            let params =
                json!({"mode": "form", "message": form.message, "requestedSchema": schema});
            if let Err(error) = input.ask_next_round(form.key, "elicitation/create", params) {
                return Some(Outcome::tool_error(&error, guards, trace_id, args.clone()));
            }
        }
        self.input_outcome(tool.spec, &input, &input_required(), args)
    }

    /// A panic in the pipeline's own code of a task call, answered as the tool's
    /// `catch_unhandled` says.
    fn pipeline_panic(&self, tool: &ToolState, call: &Call, trace_id: &str) -> Outcome {
        tracing::error!(
            trace_id,
            tool = tool.spec.name,
            at = panic_capture::take_location().as_deref(),
            "task call pipeline panicked"
        );
        Outcome::refused(
            Refusal::Panic {
                caught: tool.spec.guards.catch_unhandled,
            },
            Some(&tool.spec.guards),
            trace_id,
            call.raw_arguments(),
        )
    }

    /// A task call that ended before any task was created: counted and audited as an inline
    /// call is.
    fn end_untasked(
        &self,
        tool: &ToolState,
        trace: &CallTrace<'_>,
        outcome: &mut Outcome,
        started: Instant,
    ) {
        if tool.declared.is_some() {
            declared::envelope_as_text(outcome);
        }
        if !outcome.is_ok() && outcome.outcome != HarnessOutcome::Replayed.as_str() {
            tool.counters.errors.fetch_add(1, Ordering::Relaxed);
        }
        self.record(tool.spec.name, trace, outcome, started.elapsed());
    }
}

/// The task's end as `tasks/get` shows it: a result (an error envelope included) is
/// `completed`, a JSON-RPC error `failed`.
async fn finish(handle: &TaskHandle, outcome: &Outcome) {
    let (payload, message) = match &outcome.result {
        Ok(CallToolResponse::Complete(result)) => (
            TaskPayload::Completed {
                result: as_object(result),
            },
            None,
        ),
        Err(error) => (
            TaskPayload::Failed {
                error: as_object(error),
            },
            Some(error.message.to_string()),
        ),
        Ok(_) => {
            let error = ErrorData::internal_error("the task ended without a result", None);
            let message = Some(error.message.to_string());
            (
                TaskPayload::Failed {
                    error: as_object(&error),
                },
                message,
            )
        }
    };
    handle.finish(payload, message).await;
}
