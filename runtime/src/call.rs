//! One `tools/call`, from raw arguments to tool result: validate strictly, run the body with
//! panics caught and cancellation honoured, and wrap every failure in the error envelope.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Instant;

use futures::FutureExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ErrorData};
use rmcp::service::{RequestContext, RoleServer};
use serde::Serialize;

use crate::context::CallContext;
use crate::envelope::{self, ErrorEnvelope, codes};
use crate::error::ToolError;
use crate::trace::new_trace_id;
use crate::validate::{FromArguments, JsonObject};

/// Longest piece of a client-sent tool name quoted back in an error.
const NAME_QUOTE_LIMIT: usize = 64;

/// A call whose tool name the generated dispatcher is about to match.
pub struct Call {
    arguments: Option<JsonObject>,
    context: RequestContext<RoleServer>,
}

impl Call {
    /// Splits a request into the tool name (to dispatch on) and the rest of the call.
    pub fn split(
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> (Cow<'static, str>, Call) {
        let call = Call {
            arguments: request.arguments,
            context,
        };
        (request.name, call)
    }

    /// Runs `body` for tool `tool` and turns every outcome into a tool result.
    pub async fn run<A, O, F, Fut>(self, tool: &'static str, body: F) -> CallToolResult
    where
        A: FromArguments,
        O: Serialize,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let started = Instant::now();
        let trace_id = new_trace_id();
        let (result, outcome) = self.execute(tool, &trace_id, body).await;
        tracing::info!(
            trace_id = %trace_id,
            tool,
            outcome,
            duration_us = started.elapsed().as_micros() as u64,
            "tools/call"
        );
        result
    }

    async fn execute<A, O, F, Fut>(
        self,
        tool: &'static str,
        trace_id: &str,
        body: F,
    ) -> (CallToolResult, &'static str)
    where
        A: FromArguments,
        O: Serialize,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let args = match A::from_call(self.arguments.as_ref()) {
            Ok(args) => args,
            Err(errors) => {
                let message = format!("invalid arguments: {errors}");
                let result = ErrorEnvelope::new(codes::INVALID_ARGUMENTS, &message, trace_id);
                return (result.into_result(), "invalid_arguments");
            }
        };
        let cancellation = self.context.ct.clone();
        let context = CallContext::new(tool, trace_id.to_owned(), cancellation.clone());
        // The body is built inside the guarded future so a panic while constructing it is
        // caught too.
        let guarded = AssertUnwindSafe(async move { body(args, context).await }).catch_unwind();
        let outcome = tokio::select! {
            outcome = guarded => outcome,
            () = cancellation.cancelled() => {
                let result = ErrorEnvelope::new(codes::CANCELLED, "the call was cancelled", trace_id);
                return (result.into_result(), "cancelled");
            }
        };
        match outcome {
            Ok(Ok(output)) => match serde_json::to_value(output) {
                Ok(value) => (envelope::success(value), "ok"),
                Err(error) => {
                    tracing::error!(trace_id, tool, %error, "tool output does not serialize to JSON");
                    (internal_error(trace_id), "error")
                }
            },
            Ok(Err(error)) => {
                if let Some(detail) = error.internal_detail() {
                    tracing::warn!(trace_id, tool, code = error.code(), detail, "tool error");
                }
                let result = ErrorEnvelope::new(error.code(), error.message(), trace_id);
                (result.into_result(), "error")
            }
            Err(panic) => {
                tracing::error!(
                    trace_id,
                    tool,
                    panic = panic_message(&panic),
                    "tool body panicked"
                );
                (internal_error(trace_id), "panic")
            }
        }
    }
}

fn internal_error(trace_id: &str) -> CallToolResult {
    ErrorEnvelope::new(codes::INTERNAL_ERROR, "internal error", trace_id).into_result()
}

fn panic_message(payload: &Box<dyn Any + Send>) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}

/// The JSON-RPC error (-32602) for a tool name the server does not publish.
pub fn unknown_tool(name: &str) -> ErrorData {
    let shown: String = name.chars().take(NAME_QUOTE_LIMIT).collect();
    ErrorData::invalid_params(format!("unknown tool: {shown:?}"), None)
}
