//! The static description of what a server offers besides tools, as generated from
//! `[[resources]]`, `[[resource_templates]]` and `[[prompts]]` (served by [`crate::catalog`]).

use crate::spec::guards::GuardSpec;
use crate::validate::{ArgErrors, JsonObject};

/// What the manifest declares besides tools.
#[derive(Debug, Clone, Copy)]
pub struct CatalogSpec {
    /// `[[resources]]`, in list order.
    pub resources: &'static [ResourceSpec],
    /// `[[resource_templates]]`, in list order.
    pub templates: &'static [TemplateSpec],
    /// `[[prompts]]`, in list order.
    pub prompts: &'static [PromptSpec],
    /// `[[skills]]`, in list order (the extension `io.modelcontextprotocol/skills`).
    pub skills: &'static [crate::spec::skills::SkillSpec],
    /// The guards on what resources and prompts return (`[defaults.guards]`).
    pub guards: GuardSpec,
    /// The caching hints every list and read result carries.
    pub cache: CacheSpec,
}

impl CatalogSpec {
    /// A server with tools only.
    pub const EMPTY: Self = Self {
        resources: &[],
        templates: &[],
        prompts: &[],
        skills: &[],
        guards: GuardSpec::NONE,
        cache: CacheSpec::DEFAULT,
    };
}

/// Caching hints (2026-07-28 `ttlMs` and `cacheScope`) on list and read results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSpec {
    /// How long a client may reuse a list, in milliseconds.
    pub ttl_ms: u64,
    /// Whether the same list serves every caller (`public`) or only this one (`private`).
    pub public: bool,
}

impl CacheSpec {
    /// What a server without `[caching]` says: its lists change only with a new build, so
    /// five minutes, the same for every caller.
    pub const DEFAULT: Self = Self {
        ttl_ms: 300_000,
        public: true,
    };

    /// `cacheScope`.
    pub fn scope(&self) -> rmcp::model::CacheScope {
        if self.public {
            rmcp::model::CacheScope::Public
        } else {
            rmcp::model::CacheScope::Private
        }
    }
}

/// A static resource's content: embedded at build time, or read from the upstream that
/// serves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceContent {
    /// Text.
    Text(&'static str),
    /// Bytes, as base64.
    Blob(&'static str),
    /// An upstream serves it (`upstream = NAME` in `[[resources]]`): each read goes to it.
    Upstream,
}

/// One `[[resources]]` entry.
#[derive(Debug, Clone, Copy)]
pub struct ResourceSpec {
    /// Its URI.
    pub uri: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Display name.
    pub title: Option<&'static str>,
    /// What it holds.
    pub description: Option<&'static str>,
    /// MIME type.
    pub mime_type: &'static str,
    /// The content.
    pub content: ResourceContent,
    /// Size of the content in bytes (decoded, for blobs; unknown, 0, for an upstream's).
    pub size: u64,
    /// Whether clients may subscribe to it.
    pub subscribe: bool,
}

/// The kind of a template variable, which says how its text from the URI becomes JSON before
/// the generated validator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariableKind {
    /// Kept as a string (string and enum variables).
    Text,
    /// Parsed as a JSON integer.
    Integer,
    /// Parsed as a JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
}

/// One `[[resource_templates]]` entry.
#[derive(Debug, Clone, Copy)]
pub struct TemplateSpec {
    /// The RFC 6570 template (level 1).
    pub uri_template: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Display name.
    pub title: Option<&'static str>,
    /// What its resources hold.
    pub description: Option<&'static str>,
    /// MIME type of what it reads.
    pub mime_type: &'static str,
    /// Its variables, in the order they appear in the template, with their kinds.
    pub variables: &'static [(&'static str, VariableKind)],
    /// Completion values of each variable (an enum's members), by name.
    pub completions: &'static [(&'static str, &'static [&'static str])],
}

/// The generated strict validator of a prompt's arguments: the validated arguments as JSON.
pub type PromptValidator = fn(Option<&JsonObject>) -> Result<JsonObject, ArgErrors>;

/// One `[[prompts]]` entry.
#[derive(Debug, Clone, Copy)]
pub struct PromptSpec {
    /// Its name.
    pub name: &'static str,
    /// Display name.
    pub title: Option<&'static str>,
    /// What it is for.
    pub description: &'static str,
    /// Its arguments as `prompts/list` publishes them: name, description, required.
    pub arguments: &'static [(&'static str, Option<&'static str>, bool)],
    /// Completion values of each argument (an enum's members), by name.
    pub completions: &'static [(&'static str, &'static [&'static str])],
    /// The strict validator of its arguments.
    pub validate: PromptValidator,
    /// Its messages (none when a body computes them).
    pub messages: &'static [MessageSpec],
    /// A body computes its messages (`prompts/get` goes to
    /// `Catalog::get_computed_prompt`).
    pub computed: bool,
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleSpec {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One prompt message; `{argument}` in text and URIs is replaced by the argument's value.
#[derive(Debug, Clone, Copy)]
pub enum MessageSpec {
    /// Text.
    Text(RoleSpec, &'static str),
    /// An image: base64 and MIME type.
    Image(RoleSpec, &'static str, &'static str),
    /// An embedded text resource: URI, MIME type, text.
    Resource(RoleSpec, &'static str, &'static str, &'static str),
}
