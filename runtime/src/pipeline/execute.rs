//! The part of a call that reaches the body: the input channel set up, the confirmation of a
//! `confirm = true` tool, the body run (timeout, panics caught, cancellation honoured), and
//! its output through the guards: tabular blockade, line cap, tag strip, secret redaction and
//! char cap.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::CallToolResult;
use serde::Serialize;
use serde_json::{Value, json};

use crate::content::Block;
use crate::content::guard::{ContentRefusal, guard_blocks};
use crate::context::CallContext;
use crate::error::ToolError;
use crate::guards::redact::{self, Redactions};
use crate::guards::tabular::{self, TabularAction};
use crate::guards::{lines, rewrite_strings, strip};
use crate::input::session::InputSession;
use crate::notify::Notifier;
use crate::pipeline::bounded::{BodyRun, run_bounded};
use crate::pipeline::declared::Declared;
use crate::pipeline::outcome::Outcome;
use crate::pipeline::refusal::Refusal;
use crate::pipeline::result::{self, Output, with_meta};
use crate::pipeline::{Admitted, Pipeline};
use crate::spec::{GuardSpec, ToolSpec};

impl Pipeline {
    /// Runs an admitted call: how it ended, and whether the body ran (a call refused before
    /// it never did).
    pub(super) async fn execute<A, O, F, Fut>(
        &self,
        admitted: Admitted<'_, A>,
        body: F,
    ) -> (Outcome, bool)
    where
        O: Serialize + 'static,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        // The fields are borrowed here and the whole call handed on; a refusal takes the
        // arguments' JSON for its audit record and ends the call.
        let (tool, call, trace_id) = (admitted.tool, admitted.call, admitted.trace_id);
        let spec = tool.spec;
        let guards = &spec.guards;
        let refused = |refusal, args| Outcome::refused(refusal, Some(guards), trace_id, args);
        let input = match self.input_session(spec, call, guards) {
            Ok(input) => input,
            Err(refusal) => return (refused(refusal, admitted.args_json), false),
        };
        if spec.write.confirm {
            // Boxed: a question to the user holds kilobytes of state, which every call's
            // future would otherwise carry whether its tool asks or not.
            let confirmation =
                Box::pin(self.unconfirmed(spec, &input, &admitted.args_json, trace_id));
            let unconfirmed = tokio::select! {
                unconfirmed = confirmation => unconfirmed,
                () = call.cancellation.cancelled() => {
                    return (refused(Refusal::Cancelled, admitted.args_json), false);
                }
            };
            if let Some(outcome) = unconfirmed {
                return (outcome, false);
            }
        }
        // Taken once confirmed, so a question waiting on the user holds no place; given back
        // when this future ends or drops, however the body ended.
        let _running = match tool
            .running
            .as_ref()
            .map(|slots| (slots, slots.try_enter()))
        {
            Some((slots, None)) => {
                return (
                    refused(Refusal::ToolBusy(slots.max()), admitted.args_json),
                    false,
                );
            }
            Some((_, place)) => place,
            None => None,
        };
        (self.run_body(admitted, &input, body).await, true)
    }

    /// The body and the guards over its output.
    async fn run_body<A, O, F, Fut>(
        &self,
        admitted: Admitted<'_, A>,
        input: &Arc<InputSession>,
        body: F,
    ) -> Outcome
    where
        O: Serialize + 'static,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let Admitted {
            tool,
            call,
            trace_id,
            args,
            args_json,
        } = admitted;
        let (spec, declared) = (tool.spec, tool.declared.as_ref());
        let guards = &spec.guards;
        let refused = |refusal, args| Outcome::refused(refusal, Some(guards), trace_id, args);
        let cancellation = call.cancellation.clone();
        let notifier = call.peer.clone().and_then(|peer| {
            Notifier::for_call(peer, call.requested.clone(), cancellation.clone(), guards)
        });
        let context = CallContext::new(spec.name, trace_id.to_owned(), cancellation.clone())
            .with_notifier(notifier)
            .with_input(Some(Arc::clone(input)));
        let finished = run_bounded(
            async move { body(args, context).await },
            BodyRun {
                kind: "tool",
                name: spec.name,
                guards,
                cancellation: &cancellation,
                trace_id,
            },
        )
        .await;
        let name = spec.name;
        match finished {
            Err(refusal) => refused(refusal, args_json),
            Ok(Err(error)) => {
                if let Some(outcome) = self.input_outcome(spec, input, &error, &args_json) {
                    return outcome;
                }
                if let Some(detail) = error.internal_detail() {
                    tracing::warn!(
                        trace_id,
                        tool = name,
                        code = error.code(),
                        detail,
                        "tool error"
                    );
                }
                Outcome::tool_error(&error, guards, trace_id, args_json)
            }
            Ok(Ok(output)) => match result::output_of(output) {
                Ok(Output::Json(value)) => guard_output(spec, value, declared, trace_id, args_json),
                Ok(Output::Blocks(blocks)) => guard_content(guards, blocks, trace_id, args_json),
                Err(error) => {
                    tracing::error!(trace_id, tool = name, %error, "tool output does not serialize to JSON");
                    refused(Refusal::OutputNotJson, args_json)
                }
            },
        }
    }
}

/// Tabular blockade, line cap, tag strip, secret redaction and char cap, in that order; a
/// declared result is capped within its schema and checked against it.
fn guard_output(
    spec: &ToolSpec,
    mut value: Value,
    declared: Option<&Declared>,
    trace_id: &str,
    args: Value,
) -> Outcome {
    let guards = &spec.guards;
    if let Some(tabular) = guards.tabular
        && tabular::contains_table(&value, tabular.max_rows)
    {
        match tabular.action {
            TabularAction::Block => {
                return Outcome::refused(Refusal::TokenStarvation, Some(guards), trace_id, args);
            }
            TabularAction::Summarize => {
                tabular::summarize_tables(&mut value, tabular.max_rows);
            }
        }
    }
    if let Some(max_lines) = guards.max_lines {
        rewrite_strings(&mut value, &|text| lines::cap_lines(text, max_lines));
    }
    let (strip_tags, policy) = (guards.strip_xml, redact::policy(guards));
    let redacted = std::cell::RefCell::new(Redactions::default());
    rewrite_strings(&mut value, &|text| {
        let stripped = strip::sanitize(text, strip_tags);
        match redact::apply(&stripped, policy, &mut redacted.borrow_mut()) {
            Cow::Borrowed(_) => stripped,
            Cow::Owned(clean) => Cow::Owned(clean),
        }
    });
    let redacted = redacted.into_inner();
    if let Some(declared) = declared {
        return declared.finish(spec, value, &redacted, trace_id, args);
    }
    let (reply, cut) = result::success(value, guards.max_chars);
    let truncated = cut.map(|cut| {
        json!({"original_chars": cut.original_chars, "strings_cut": cut.strings, "array_items_cut": cut.array_items})
    });
    Outcome::ok(with_meta(reply, truncated, &redacted), args)
}

/// Content blocks through their guards ([`crate::content::guard`]).
fn guard_content(guards: &GuardSpec, blocks: Vec<Block>, trace_id: &str, args: Value) -> Outcome {
    match guard_blocks(blocks, guards) {
        Ok((blocks, report)) => {
            let truncated = report.cut.map(|cut| {
                json!({"original_chars": cut.original_chars, "blocks_cut": cut.blocks_cut, "blocks_dropped": cut.blocks_dropped})
            });
            let reply = with_meta(CallToolResult::success(blocks), truncated, &report.redacted);
            Outcome::ok(reply, args)
        }
        Err(refusal) => {
            if let ContentRefusal::InvalidBase64(reason) = &refusal {
                tracing::error!(trace_id, %reason, "tool output carries base64 that does not decode");
            }
            Outcome::refused(Refusal::Content(refusal), Some(guards), trace_id, args)
        }
    }
}
