//! `completion/complete` for prompt arguments and template variables: the members of an enum
//! that start with what the client typed, or what a completion body suggests for the
//! arguments the manifest lists under `complete`; at most 100 (the specification's cap),
//! each through the tag strip and redaction; audited.

use crate::catalog::part::Catalog;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, ErrorData, Reference};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;

use crate::auth::Caller;
use crate::catalog::record::{Began, Finished};
use crate::context::CallContext;
use crate::error::ToolError;
use crate::guards::{redact, strip};
use crate::pipeline::bounded::{AskedFor, BodyRun, body_error, run_bounded};
use crate::pipeline::refusal::Refusal;

const COMPLETE: &str = "completion/complete";

/// The most values one completion returns.
const MAX_VALUES: usize = 100;

/// The longest value a completion body may suggest, in characters; longer ones are left out.
const MAX_VALUE_CHARS: usize = 500;

/// The longest text a client may ask to complete, in characters.
const MAX_TYPED_CHARS: usize = 1000;

fn began(request: &CompleteRequestParams, context: &RequestContext<RoleServer>) -> Began {
    let traceparent = request
        .meta
        .as_ref()
        .and_then(|meta| meta.get_traceparent());
    Began::now(traceparent, Caller::of_context(context))
}

fn args_of(target: &str, request: &CompleteRequestParams) -> serde_json::Value {
    json!({"ref": target, "argument": request.argument.name, "value": request.argument.value})
}

fn result_of(matching: Vec<String>) -> CompleteResult {
    let total = matching.len();
    let values: Vec<String> = matching.into_iter().take(MAX_VALUES).collect();
    let mut info = CompletionInfo::new(values).unwrap_or_default();
    info.total = u32::try_from(total).ok();
    info.has_more = Some(total > MAX_VALUES);
    CompleteResult::new(info)
}

impl Catalog<'_> {
    /// `completion/complete` (`context`: the request's, for its caller): an unknown prompt or
    /// template is refused with -32602.
    pub fn complete(
        &self,
        request: &CompleteRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let began = began(request, context);
        let catalog = &self.server().catalog;
        let (target, completions) = match &request.r#ref {
            Reference::Prompt(prompt) => (
                prompt.name.clone(),
                catalog
                    .prompts
                    .iter()
                    .find(|spec| spec.name == prompt.name)
                    .map(|spec| spec.completions),
            ),
            Reference::Resource(resource) => (
                resource.uri.clone(),
                catalog
                    .templates
                    .iter()
                    .find(|spec| spec.uri_template == resource.uri)
                    .map(|spec| spec.completions),
            ),
            _ => (String::new(), None),
        };
        let args = args_of(&target, request);
        let Some(completions) = completions else {
            let refusal = Refusal::UnknownPrompt(target.clone());
            return Err(self.refuse(refusal, COMPLETE, &target, None, &args, &began));
        };
        let typed = request.argument.value.as_str();
        let matching: Vec<String> = completions
            .iter()
            .find(|(name, _)| *name == request.argument.name)
            .map(|(_, values)| {
                values
                    .iter()
                    .filter(|value| value.starts_with(typed))
                    .map(|value| (*value).to_owned())
                    .collect()
            })
            .unwrap_or_default();
        self.audit_request(COMPLETE, &target, &args, &began, &Finished::OK);
        Ok(result_of(matching))
    }

    /// `completion/complete` of an argument a body completes (the generated dispatcher
    /// matched the reference and the argument, and hands the body): the body gets the
    /// argument's name and what the client typed, under the catalog's timeout with panics
    /// caught; every value it suggests passes the tag strip and redaction and is trimmed, empty
    /// or overlong ones are left out, at most 100 go back.
    pub async fn complete_with<F, Fut>(
        &self,
        request: &CompleteRequestParams,
        context: &RequestContext<RoleServer>,
        body: F,
    ) -> Result<CompleteResult, ErrorData>
    where
        F: FnOnce(String, String, CallContext) -> Fut,
        Fut: Future<Output = Result<Vec<String>, ToolError>>,
    {
        let began = began(request, context);
        let trace_id = began.trace_id.as_str();
        let cancellation = &context.ct;
        let target = match &request.r#ref {
            Reference::Prompt(prompt) => prompt.name.as_str(),
            Reference::Resource(resource) => resource.uri.as_str(),
            _ => "",
        };
        let args = args_of(target, request);
        let audit = |finished: &Finished<'_>| {
            self.audit_request(COMPLETE, target, &args, &began, finished);
        };
        let refuse = |refusal| Err(self.refuse(refusal, COMPLETE, target, None, &args, &began));
        if let Err(refusal) = self.limit(COMPLETE, &began).await {
            return refuse(refusal);
        }
        let typed = &request.argument.value;
        if typed.chars().count() > MAX_TYPED_CHARS {
            let mut errors = crate::validate::ArgErrors::default();
            errors.push_at(
                "argument.value".to_owned(),
                format!("at most {MAX_TYPED_CHARS} characters can be completed"),
            );
            return refuse(Refusal::InvalidArguments(errors));
        }
        let guards = &self.server().catalog.guards;
        let name: &'static str = "completion/complete";
        let ctx = CallContext::new(name, trace_id.to_owned(), cancellation.clone());
        let (argument, value) = (request.argument.name.clone(), typed.clone());
        let ended = run_bounded(
            async move { body(argument, value, ctx).await },
            BodyRun {
                kind: "completion",
                name: target,
                guards,
                cancellation,
                trace_id,
            },
        )
        .await;
        let suggested = match ended {
            Err(refusal) => return refuse(refusal),
            Ok(Err(error)) => {
                audit(&Finished::failed(&error));
                return Err(body_error(
                    &error,
                    guards,
                    trace_id,
                    AskedFor {
                        field: "ref",
                        value: target,
                    },
                    rmcp::model::ErrorCode::INVALID_PARAMS,
                ));
            }
            Ok(Ok(suggested)) => suggested,
        };
        let policy = redact::policy(guards);
        let cleaned = suggested
            .iter()
            .map(|value| {
                let stripped = strip::sanitize(value, guards.strip_xml);
                // What the strip leaves around a removed tag is not part of the value.
                redact::apply(&stripped, policy, &mut redact::Redactions::default())
                    .trim()
                    .to_owned()
            })
            .filter(|value| !value.is_empty() && value.chars().count() <= MAX_VALUE_CHARS)
            .collect();
        audit(&Finished::OK);
        Ok(result_of(cleaned))
    }
}
