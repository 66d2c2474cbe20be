//! The tables beyond tools: `[[resources]]`, `[[resource_templates]]` and `[[prompts]]`.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::manifest::tools::Argument;

/// One static resource: its content is inline text or a file beside the manifest.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Resource {
    /// The resource's URI, as `resources/read` names it (e.g. `docs://runbook`).
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// What it holds, for the model.
    pub description: Option<String>,
    /// Its MIME type (checked against the resource guards' allowlist).
    pub mime_type: String,
    /// Inline text content.
    pub text: Option<String>,
    /// A file (relative to the manifest) embedded in the binary: text for `text/*` and
    /// JSON types, bytes (base64 on the wire) for anything else.
    pub file: Option<String>,
    /// Clients may subscribe to it (`resources/subscribe`, 2025-11-25).
    #[serde(default)]
    pub subscribe: bool,
    /// The `[[upstreams]]` entry that serves it: each read goes there, through the output
    /// guards (instead of `text` or `file`); `uri` is the upstream's.
    pub upstream: Option<String>,
    /// sha256 of the upstream definition it was pinned from (`harness-codegen import` writes
    /// it): the canonical JSON of its URI, name, title, description, MIME type and
    /// annotations.
    pub pin_sha256: Option<String>,
}

/// A family of resources named by an RFC 6570 URI template, read by a body in
/// `src/resources/<name>.rs`; its variables are validated like tool arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ResourceTemplate {
    /// The URI template; level 1 only (`{name}` expressions, each matching one path
    /// segment), e.g. `tickets://{id}/summary`.
    pub uri_template: String,
    /// Its programmatic name; the body module is its snake_case form.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// What the resources hold, for the model.
    pub description: Option<String>,
    /// The MIME type of what it reads.
    pub mime_type: String,
    /// One entry per template variable, in the grammar of tool arguments (`string`,
    /// `integer`, `number`, `boolean` or `enum`; all required).
    #[serde(default)]
    pub variables: Vec<Argument>,
    /// Variables whose completions a body computes (`completion/complete`), in
    /// `src/resources/<name>.rs`; an enum variable completes from its members without one.
    #[serde(default)]
    pub complete: Vec<String>,
    /// The `[[upstreams]]` entry that serves it: a URI it matches is read there (no body of
    /// its own) and its variables are completed there; `uri_template` is the upstream's.
    pub upstream: Option<String>,
    /// sha256 of the upstream definition it was pinned from (`harness-codegen import` writes
    /// it): the canonical JSON of its URI template, name, title, description, MIME type and
    /// annotations.
    pub pin_sha256: Option<String>,
}

/// One prompt: strictly validated arguments, and messages from the manifest or computed by a
/// body in `src/prompts/<name>.rs`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Prompt {
    /// The prompt's name, as `prompts/get` names it.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// What it is for.
    pub description: String,
    /// Its arguments, in the grammar of tool arguments (`string` or `enum`: prompt
    /// arguments are strings on the wire).
    #[serde(default)]
    pub arguments: Vec<Argument>,
    /// The messages, in order; `{argument}` in a text is replaced by the argument's value.
    #[serde(default)]
    pub messages: Vec<PromptMessage>,
    /// A body computes the messages instead (it may ask the client for input first);
    /// exclusive with `messages`.
    #[serde(default)]
    pub body: bool,
    /// Arguments whose completions a body computes (`completion/complete`), in
    /// `src/prompts/<name>.rs`; an enum argument completes from its members without one.
    #[serde(default)]
    pub complete: Vec<String>,
    /// The `[[upstreams]]` entry that serves it: `prompts/get` goes there with the arguments
    /// validated here, and its messages come back through the output guards (no `messages`,
    /// no body); its arguments are completed there.
    pub upstream: Option<String>,
    /// The upstream's own name for the prompt, where the manifest renames it (default:
    /// `name`).
    pub upstream_prompt: Option<String>,
    /// sha256 of the upstream definition it was pinned from (`harness-codegen import` writes
    /// it): the canonical JSON of its name, title, description and arguments.
    pub pin_sha256: Option<String>,
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One prompt message: exactly one of `text`, `template`, `image` or `resource`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PromptMessage {
    /// Who speaks it.
    pub role: Role,
    /// Inline text.
    pub text: Option<String>,
    /// A text file (relative to the manifest) embedded in the binary.
    pub template: Option<String>,
    /// An image file (relative to the manifest) and its MIME type.
    pub image: Option<PromptImage>,
    /// An embedded text resource; `{argument}` works in its URI and text.
    pub resource: Option<PromptResource>,
}

/// An image in a prompt message.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PromptImage {
    /// The file, relative to the manifest.
    pub file: String,
    /// Its MIME type, e.g. `image/png`.
    pub mime_type: String,
}

/// An embedded text resource in a prompt message.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PromptResource {
    /// Its URI.
    pub uri: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its text.
    pub text: String,
}

/// Who may reuse a list or read result (2026-07-28 `cacheScope`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheScope {
    /// Any client or intermediary, for any caller.
    #[default]
    Public,
    /// Only the caller who asked.
    Private,
}

/// `[caching]`: the hints on list and read results.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Caching {
    /// How long a client may reuse a list or read result, in milliseconds (default five
    /// minutes: a generated server's lists change only with a new build).
    #[serde(default = "default_ttl_ms")]
    pub ttl_ms: u64,
    /// Who may reuse it (default `public`).
    #[serde(default)]
    pub scope: CacheScope,
}

impl Default for Caching {
    fn default() -> Self {
        Self {
            ttl_ms: default_ttl_ms(),
            scope: CacheScope::default(),
        }
    }
}

fn default_ttl_ms() -> u64 {
    300_000
}
