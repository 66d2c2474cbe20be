//! What an upstream offers besides tools, through the gateway: `prompts/get`, `resources/read`
//! (of a pinned resource, or of a URI a pinned template matches) and `completion/complete` of
//! a pinned prompt's or template's arguments. Each is the body the catalog runs (validation,
//! timeout, panic capture, output guards and audit are the catalog's, as for a local body);
//! here the request goes upstream, once the pin is checked, and what comes back becomes
//! content blocks. The lists are the manifest's, each entry pinned; a drifted one is refused,
//! or left out of its list where `on_drift = "drop"`.

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PromptReference,
    ReadResourceRequestParams, ReadResourceResponse, Reference, ResourceTemplateReference, Role,
};
use serde::Serialize;
use serde_json::Value;

use crate::catalog::PromptMessages;
use crate::content::{Block, Content};
use crate::context::CallContext;
use crate::error::ToolError;
use crate::spec::PinKind;
use crate::upstream::Upstreams;
use crate::upstream::connect::Handle;
use crate::upstream::reply::{block_of, contents_block, failed, from_service_error};
use crate::upstream::request::within;

/// Why an answer the gateway cannot pass on was refused: an upstream that asks for input
/// while a prompt or a read is got (the gateway carries questions for tool calls only).
const NO_INPUT: &str =
    "the upstream asked for input, which the gateway carries for tool calls only";

impl Upstreams {
    /// Gets pin `pin` (a prompt) of upstream `upstream` with validated `args`: the body of a
    /// generated upstream prompt. Its messages keep their roles; the description is the
    /// manifest's (pinned), not what the upstream says with this rendering.
    pub async fn get_prompt<A: Serialize>(
        &self,
        upstream: usize,
        pin: usize,
        args: A,
        ctx: CallContext,
    ) -> Result<PromptMessages, ToolError> {
        let (link, Handle { peer, .. }) = self.admit(upstream, pin, &ctx).await?;
        let spec = link.spec;
        // Prompt arguments are strings on the wire.
        let arguments = super::object_of(args)?
            .into_iter()
            .map(|(name, value)| match value {
                Value::String(_) => (name, value),
                other => (name, Value::String(other.to_string())),
            })
            .collect();
        let params =
            GetPromptRequestParams::new(spec.pins[pin].remote_name).with_arguments(arguments);
        let answer = within(spec.timeout_ms, peer.get_prompt_once(params)).await?;
        let result = match answer.map_err(|error| from_service_error(spec.name, error))? {
            GetPromptResponse::Complete(result) => result,
            _ => return Err(failed(NO_INPUT)),
        };
        let mut messages = PromptMessages::new();
        for message in result.messages {
            let block = block_of(spec.name, message.content)?;
            let content = Content::from_blocks(vec![block]);
            messages = match message.role {
                Role::User => messages.user(content),
                Role::Assistant => messages.assistant(content),
            };
        }
        Ok(messages)
    }

    /// Reads `uri` from upstream `upstream`, where pin `pin` (a resource, or a template that
    /// matched `uri`) allows it: the body of a generated upstream resource or template. Each
    /// content keeps the URI and MIME type the upstream gave it.
    pub async fn read_resource(
        &self,
        upstream: usize,
        pin: usize,
        uri: String,
        ctx: CallContext,
    ) -> Result<Vec<Block>, ToolError> {
        let (link, Handle { peer, .. }) = self.admit(upstream, pin, &ctx).await?;
        let spec = link.spec;
        let params = ReadResourceRequestParams::new(uri);
        let answer = within(spec.timeout_ms, peer.read_resource_once(params)).await?;
        let result = match answer.map_err(|error| from_service_error(spec.name, error))? {
            ReadResourceResponse::Complete(result) => result,
            _ => return Err(failed(NO_INPUT)),
        };
        result
            .contents
            .into_iter()
            .map(|contents| contents_block(spec.name, contents))
            .collect()
    }

    /// Asks upstream `upstream` to complete `argument` of pin `pin` (a prompt or a template)
    /// from what the client typed, `value`: the completion body of a generated upstream prompt
    /// or template (the catalog strips, redacts and bounds the values).
    pub async fn complete(
        &self,
        upstream: usize,
        pin: usize,
        argument: String,
        value: String,
        ctx: CallContext,
    ) -> Result<Vec<String>, ToolError> {
        let (link, Handle { peer, .. }) = self.admit(upstream, pin, &ctx).await?;
        let spec = link.spec;
        let pinned = &spec.pins[pin];
        let reference = match pinned.kind {
            PinKind::Prompt => Reference::Prompt(PromptReference::new(pinned.remote_name)),
            _ => Reference::Resource(ResourceTemplateReference::new(pinned.remote_name)),
        };
        let params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        let answer = within(spec.timeout_ms, peer.complete(params)).await?;
        let result = answer.map_err(|error| from_service_error(spec.name, error))?;
        Ok(result.completion.values)
    }

    /// `list` without the prompts an upstream drifted on where `on_drift = "drop"`.
    pub fn visible_prompts(&self, mut list: ListPromptsResult) -> ListPromptsResult {
        list.prompts
            .retain(|prompt| !self.hides(PinKind::Prompt, &prompt.name));
        list
    }

    /// `list` without the resources an upstream drifted on where `on_drift = "drop"`.
    pub fn visible_resources(&self, mut list: ListResourcesResult) -> ListResourcesResult {
        list.resources
            .retain(|resource| !self.hides(PinKind::Resource, &resource.uri));
        list
    }

    /// `list` without the templates an upstream drifted on where `on_drift = "drop"`.
    pub fn visible_templates(
        &self,
        mut list: ListResourceTemplatesResult,
    ) -> ListResourceTemplatesResult {
        list.resource_templates
            .retain(|template| !self.hides(PinKind::ResourceTemplate, &template.uri_template));
        list
    }
}
