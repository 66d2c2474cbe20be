//! Stage 1: the raw serde mirror of harness.toml, and its parser.
//!
//! Unknown keys are collected with `serde_ignored` rather than refused with
//! `deny_unknown_fields`, so a manifest with several stray keys reports all of them at once;
//! the JSON Schema still says `additionalProperties: false` for editors.
//!
//! One file per concern; this file only declares and re-exports.

mod auth;
pub mod bundle;
mod document;
mod parse;
mod resources;
mod schema;
mod server;
mod tools;
mod unknown_keys;
mod upstreams;

pub use harness_contract::{
    FsyncPolicy, OnDrift, RateLimitBackend, RateLimitScope, StoreUnreachable, TabularAction,
    TransportKind, UpstreamTransport,
};

pub use auth::{Auth, Introspection};
pub use document::Manifest;
pub use parse::Parsed;
pub(crate) use parse::parse;
pub use resources::{
    CacheScope, Caching, Prompt, PromptImage, PromptMessage, PromptResource, Resource,
    ResourceTemplate, Role,
};
pub use schema::manifest_json_schema;
pub use server::{Audit, AuditField, RateLimitStore, Server, Transport};
pub use tools::{
    Annotations, ArgType, Argument, Defaults, Form, Guards, Items, Number, RateLimit,
    RedactPattern, Tabular, Tool,
};
pub use upstreams::{Restart, Upstream};
