//! `prompts/list` and `prompts/get`: arguments validated strictly by the generated validator,
//! `{argument}` placeholders filled with the validated values, every message through the
//! output guards (one char budget across the prompt), every get audited.

use crate::catalog::part::Catalog;
use rmcp::model::{
    ErrorData, GetPromptRequestParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument,
    PromptMessage, Role,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::auth::Caller;
use crate::catalog::record::{Began, Finished};
use crate::content::guard::{ContentRefusal, guard_each};
use crate::content::{Binary, Block};
use crate::pipeline::refusal::Refusal;
use crate::spec::GuardSpec;
use crate::spec::catalog::{MessageSpec, RoleSpec};
use crate::validate::JsonObject;

pub(crate) const GET: &str = "prompts/get";

/// `text` with every `{name}` of a validated argument replaced by its value (strings as they
/// are, anything else as JSON); other braces are kept.
pub(crate) fn fill(text: &str, arguments: &JsonObject) -> String {
    let mut filled = text.to_owned();
    for (name, value) in arguments {
        let value = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        filled = filled.replace(&format!("{{{name}}}"), &value);
    }
    filled
}

/// Prompt messages through the output guards (one char budget across them); a text the
/// budget had no room for is left out, the rest keep their roles.
pub(crate) fn guarded_messages(
    messages: Vec<(RoleSpec, Block)>,
    guards: &GuardSpec,
) -> Result<Vec<PromptMessage>, ContentRefusal> {
    let (speakers, blocks): (Vec<RoleSpec>, Vec<Block>) = messages.into_iter().unzip();
    let (guarded, _) = guard_each(blocks, guards)?;
    Ok(speakers
        .into_iter()
        .zip(guarded)
        .filter_map(|(speaker, content)| {
            content.map(|content| PromptMessage::new(role(speaker), content))
        })
        .collect())
}

fn role(role: RoleSpec) -> Role {
    match role {
        RoleSpec::User => Role::User,
        RoleSpec::Assistant => Role::Assistant,
    }
}

impl Catalog<'_> {
    /// `prompts/list`.
    pub fn list_prompts(&self) -> ListPromptsResult {
        let catalog = &self.server().catalog;
        let prompts = catalog
            .prompts
            .iter()
            .map(|spec| {
                let arguments = spec
                    .arguments
                    .iter()
                    .map(|(name, description, required)| {
                        let mut argument = PromptArgument::new(*name).with_required(*required);
                        if let Some(description) = description {
                            argument = argument.with_description(*description);
                        }
                        argument
                    })
                    .collect::<Vec<_>>();
                let mut prompt = Prompt::new(spec.name, Some(spec.description), Some(arguments));
                prompt.title = spec.title.map(str::to_owned);
                prompt
            })
            .collect();
        ListPromptsResult::with_all_items(prompts)
            .with_ttl_ms(catalog.cache.ttl_ms)
            .with_cache_scope(catalog.cache.scope())
    }

    /// `prompts/get` of a prompt with static messages (`context`: the request's, for its
    /// caller): an unknown name or arguments that fail validation are refused with -32602
    /// and the envelope's fields in `error.data`.
    pub fn get_prompt(
        &self,
        request: &GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, ErrorData> {
        let traceparent = request
            .meta
            .as_ref()
            .and_then(|meta| meta.get_traceparent());
        let began = Began::now(traceparent, Caller::of_context(context));
        let trace_id = began.trace_id.as_str();
        let name = request.name.as_str();
        let raw = Value::Object(request.arguments.clone().unwrap_or_default());
        let refuse = |refusal, args: &Value| {
            Err(self.refuse(refusal, GET, name, Some("name"), args, &began))
        };
        let catalog = &self.server().catalog;
        let Some(spec) = catalog.prompts.iter().find(|spec| spec.name == name) else {
            return refuse(Refusal::UnknownPrompt(name.to_owned()), &raw);
        };
        if spec.computed {
            // The generated dispatcher sends a computed prompt to get_computed_prompt.
            tracing::error!(
                trace_id,
                prompt = name,
                "a computed prompt reached the static path"
            );
            return refuse(Refusal::Panic { caught: true }, &raw);
        }
        let arguments = match (spec.validate)(request.arguments.as_ref()) {
            Ok(arguments) => arguments,
            Err(errors) => return refuse(Refusal::InvalidArguments(errors), &raw),
        };
        let messages = spec
            .messages
            .iter()
            .map(|message| match *message {
                MessageSpec::Text(speaker, text) => (speaker, Block::Text(fill(text, &arguments))),
                MessageSpec::Image(speaker, base64, mime) => (
                    speaker,
                    Block::Image {
                        data: Binary::Base64(base64.to_owned()),
                        mime_type: mime.to_owned(),
                    },
                ),
                MessageSpec::Resource(speaker, uri, mime, text) => (
                    speaker,
                    Block::EmbeddedText {
                        uri: fill(uri, &arguments),
                        mime_type: Some(mime.to_owned()),
                        text: fill(text, &arguments),
                    },
                ),
            })
            .collect();
        let args = Value::Object(arguments);
        let messages = match guarded_messages(messages, &catalog.guards) {
            Ok(messages) => messages,
            Err(refusal) => return refuse(Refusal::Content(refusal), &args),
        };
        self.audit_request(GET, name, &args, &began, &Finished::OK);
        let mut result = GetPromptResult::new(messages);
        result.description = Some(spec.description.to_owned());
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn placeholders_of_validated_arguments_are_filled_and_others_kept() {
        let arguments = json!({"arg1": "a", "n": 3}).as_object().cloned().unwrap();
        assert_eq!(
            fill("x='{arg1}' n={n} {other} {{", &arguments),
            "x='a' n=3 {other} {{"
        );
    }
}
