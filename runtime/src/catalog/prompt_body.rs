//! `prompts/get` of a prompt whose messages a body computes (`body = true` in `[[prompts]]`):
//! arguments validated strictly into the generated type, the body run like a tool's (timeout,
//! panic capture, cancellation) with a context that can ask the client for input (a
//! 2025-11-25 session request, or on 2026-07-28 an input-required result whose state is
//! sealed for `prompts/get` of this prompt and these arguments), its messages through the
//! output guards, every get audited.

use crate::catalog::part::Catalog;
use rmcp::model::{ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::audit::args_sha256;
use crate::auth::Caller;
use crate::catalog::prompts::{GET, guarded_messages};
use crate::catalog::record::{Began, Finished};
use crate::content::{Block, Content};
use crate::context::CallContext;
use crate::error::ToolError;
use crate::input::state::Target;
use crate::pipeline::bounded::{AskedFor, BodyRun, body_error, run_bounded};
use crate::pipeline::call::CallInput;
use crate::pipeline::envelope::codes;
use crate::pipeline::refusal::Refusal;
use crate::spec::catalog::RoleSpec;
use crate::validate::FromArguments;

/// What a prompt body returns: messages in order, each one content block spoken by the user
/// or the assistant, and optionally a description of this rendering.
#[derive(Debug, Clone, Default)]
pub struct PromptMessages {
    messages: Vec<(RoleSpec, Block)>,
    description: Option<String>,
}

impl PromptMessages {
    /// No messages yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// One user message per block of `content`, in order.
    pub fn user(self, content: Content) -> Self {
        self.spoken(RoleSpec::User, content)
    }

    /// One assistant message per block of `content`, in order.
    pub fn assistant(self, content: Content) -> Self {
        self.spoken(RoleSpec::Assistant, content)
    }

    /// The result's description (the manifest's description by default).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    fn spoken(mut self, speaker: RoleSpec, content: Content) -> Self {
        self.messages.extend(
            content
                .blocks()
                .iter()
                .cloned()
                .map(|block| (speaker, block)),
        );
        self
    }
}

impl Catalog<'_> {
    /// `prompts/get` of a prompt with a body: the generated dispatcher hands `body` (the
    /// prompt's body trait method). An unknown name or arguments that fail validation are
    /// refused with -32602 before the body runs; a body that asked the client ends with the
    /// input-required result on 2026-07-28; a body's own error is a JSON-RPC error with the
    /// envelope's fields in `error.data`.
    pub async fn get_computed_prompt<A, F, Fut>(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
        body: F,
    ) -> Result<GetPromptResponse, rmcp::model::ErrorData>
    where
        A: FromArguments,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<PromptMessages, ToolError>>,
    {
        let traceparent = request
            .meta
            .as_ref()
            .and_then(|meta| meta.get_traceparent());
        let began = Began::now(traceparent, Caller::of_context(&context));
        let trace_id = began.trace_id.as_str();
        let name = request.name.as_str();
        // Audited, and bound into a sealed state, as the client sends them: the same in
        // every round.
        let raw = Value::Object(request.arguments.clone().unwrap_or_default());
        let audit = |finished: &Finished<'_>| {
            self.audit_request(GET, name, &raw, &began, finished);
        };
        let refuse = |refusal| Err(self.refuse(refusal, GET, name, Some("name"), &raw, &began));
        let catalog = &self.server().catalog;
        let Some(spec) = catalog.prompts.iter().find(|spec| spec.name == name) else {
            return refuse(Refusal::UnknownPrompt(name.to_owned()));
        };
        // Counted before the arguments are checked, as a tool call is.
        if let Err(refusal) = self.limit(GET, &began).await {
            return refuse(refusal);
        }
        let arguments = match A::from_call(request.arguments.as_ref()) {
            Ok(arguments) => arguments,
            Err(errors) => return refuse(Refusal::InvalidArguments(errors)),
        };
        let target = Target::prompt(spec.name);
        let input = CallInput {
            stateless: context.meta.protocol_version().is_some(),
            responses: request.input_responses.clone(),
            request_state: request.request_state.clone(),
            capabilities: context.client_capabilities(),
            ..CallInput::default()
        };
        let guards = &catalog.guards;
        let session = match self.pipeline.open_input(
            target,
            || args_sha256(&raw),
            &input,
            Some(&context.peer),
            guards,
            false,
        ) {
            Ok(session) => session,
            Err(refusal) => return refuse(refusal),
        };
        let ctx = CallContext::new(spec.name, trace_id.to_owned(), context.ct.clone())
            .with_input(Some(session.clone()));
        let ended = run_bounded(
            async move { body(arguments, ctx).await },
            BodyRun {
                kind: "prompt",
                name: spec.name,
                guards,
                cancellation: &context.ct,
                trace_id,
            },
        )
        .await;
        let rendered = match ended {
            Err(refusal) => return refuse(refusal),
            Ok(Ok(rendered)) => rendered,
            Ok(Err(error)) => {
                return match self.pipeline.input_reply(target, &session, &error) {
                    Some(Ok(input_required)) => {
                        audit(&Finished {
                            outcome: harness_contract::HarnessOutcome::InputRequired.as_str(),
                            error_code: None,
                        });
                        Ok(GetPromptResponse::InputRequired(input_required))
                    }
                    Some(Err(missing)) => {
                        audit(&Finished {
                            outcome: harness_contract::HarnessOutcome::Error.as_str(),
                            error_code: Some(codes::MISSING_CLIENT_CAPABILITY),
                        });
                        Err(missing)
                    }
                    None => {
                        audit(&Finished::failed(&error));
                        Err(body_error(
                            &error,
                            guards,
                            trace_id,
                            AskedFor {
                                field: "name",
                                value: name,
                            },
                            ErrorCode::INVALID_PARAMS,
                        ))
                    }
                };
            }
        };
        let messages = match guarded_messages(rendered.messages, guards) {
            Ok(messages) => messages,
            Err(refusal) => return refuse(Refusal::Content(refusal)),
        };
        audit(&Finished::OK);
        let mut result = GetPromptResult::new(messages);
        result.description = Some(
            rendered
                .description
                .map(|description| {
                    let stripped = crate::guards::strip::sanitize(&description, true);
                    crate::guards::redact::redact(&stripped).into_owned()
                })
                .unwrap_or_else(|| spec.description.to_owned()),
        );
        Ok(GetPromptResponse::Complete(result))
    }
}
