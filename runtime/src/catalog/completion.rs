//! `completion/complete` for prompt arguments and template variables: the members of an enum
//! that start with what the client typed, at most 100 (the specification's cap); audited.

use std::time::Instant;

use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, ErrorData, Reference};
use serde_json::json;

use crate::catalog::record::{Finished, refusal_error};
use crate::pipeline::Pipeline;
use crate::pipeline::refusal::Refusal;
use crate::trace::trace_id_for;

const COMPLETE: &str = "completion/complete";

/// The most values one completion returns.
const MAX_VALUES: usize = 100;

impl Pipeline {
    /// `completion/complete`: an unknown prompt or template is refused with -32602.
    pub fn complete(&self, request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
        let started = Instant::now();
        let trace_id = trace_id_for(None);
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
        let args = json!({"ref": target, "argument": request.argument.name, "value": request.argument.value});
        let Some(completions) = completions else {
            let (error, outcome, code) =
                refusal_error(Refusal::UnknownPrompt(target.clone()), &trace_id, None);
            self.audit_request(
                COMPLETE,
                &target,
                &args,
                &trace_id,
                started,
                &Finished {
                    outcome,
                    error_code: Some(code),
                },
            );
            return Err(error);
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
        let total = matching.len();
        let values: Vec<String> = matching.into_iter().take(MAX_VALUES).collect();
        let mut info = CompletionInfo::new(values).unwrap_or_default();
        info.total = u32::try_from(total).ok();
        info.has_more = Some(total > MAX_VALUES);
        self.audit_request(COMPLETE, &target, &args, &trace_id, started, &Finished::OK);
        Ok(CompleteResult::new(info))
    }
}
