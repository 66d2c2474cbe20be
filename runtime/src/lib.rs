//! harness-runtime: the library the code harness-codegen generates calls, and the hand-written
//! tool bodies use.
//!
//! # What a tool body and a server's `main` use
//! - [`CallContext`] (the call's tool, trace id and cancellation) and [`ToolError`] (a failure
//!   the model may see): the two types every tool body names.
//! - [`cli::main`]: the command line every generated server shares (`serve`, `tools`, `call`,
//!   `bundle`, `verify`, `health`); [`include_generated!`] brings the generated server in.
//! - [`embed::router`]: the server's endpoints as an axum `Router` inside an existing
//!   application.
//! - [`content`]: the content blocks a body may answer with instead of JSON; [`notify`]:
//!   progress and log messages while it runs; [`input`]: what it may ask the client for
//!   (elicitation, sampling, roots).
//!
//! # What generated code fills in and calls
//! - [`spec`]: the manifest as `static` descriptions (server, transport, tools, guards, bundle);
//!   [`GeneratedServer`] is the trait the generated `Harness` implements.
//! - [`validate`]: the strict argument validators' building blocks ([`validate::FromArguments`]).
//! - [`Pipeline`]: the state a server shares between requests, and the order of one
//!   `tools/call` (rate limit, validation, execution, output guards, envelope, audit); a
//!   [`Call`] is one `tools/call` as it reaches it. Its two other parts are borrowed from it:
//!   [`Pipeline::catalog`] ([`catalog::Catalog`]: the lists, `resources/read`, `prompts/get`,
//!   `completion/complete`) and [`Pipeline::subscriptions`]
//!   ([`subscriptions::Subscriptions`]: listen streams, session subscriptions, and
//!   `resource_updated` for an application to publish a change), and [`Pipeline::tasks`]
//!   ([`tasks::Tasks`]: the tasks extension's `tasks/get`, `tasks/update` and `tasks/cancel`
//!   over the calls that became tasks).
//!
//! # The parts, for servers built by hand and for tests
//! - [`guards`]: each output guard as a function (tag strip, secret redaction, line and char
//!   caps, tabular blockade).
//! - [`auth`]: the caller's identity ([`auth::Caller`]) and, with the `oauth` feature, the
//!   OAuth 2.1 resource server.
//! - [`audit`]: the JSONL audit log ([`AuditLog`]) and its record's fields.
//! - [`verify`]: the strict verifier that reads the audit log and the state file back.
//! - [`transport`]: stdio, streamable HTTP and legacy SSE serving, the limits every HTTP
//!   connection is held to ([`transport::HttpLimits`]), the stateless fast path and the
//!   duplicate-key check on raw messages.
//! - [`pipeline::codes`]: the error codes the harness itself answers with, the gateway's
//!   included; [`pipeline::refusal_table`] says when each is answered, with which audit
//!   outcome.
//! - `upstream` (the `gateway` feature): the gateway (`upstream::Upstreams`): tools served
//!   by existing MCP servers, pinned, supervised and guarded.
//!
//! # Features
//! Each is a capability a manifest may ask for; generated code stops the build, naming the
//! feature, when the manifest needs one that is off.
//! - `gateway`: `[[upstreams]]` (an MCP client, outbound HTTP over rustls, pinned JSON
//!   Schemas).
//! - `oauth`: `[auth]` (JWTs, key sets, introspection).
//! - `redis`: rate limits and idempotency keys shared by replicas in Redis.
//! - `otel`: spans and metrics over OTLP/HTTP.
//! - `mimalloc` (on by default): [`Allocator`], the global allocator a server's `main.rs`
//!   declares; not a capability but the speed of every call.
//!
//! Everything else is internal. Generated code reaches the runtime through one hidden facade
//! with absolute paths, as tonic's `codegen` module does.

#[cfg(feature = "mimalloc")]
mod allocator;
pub mod audit;
pub mod auth;
mod builtins;
pub mod catalog;
pub mod cli;
pub mod content;
mod context;
mod error;
pub mod guards;
#[cfg(any(feature = "gateway", feature = "oauth", feature = "otel"))]
mod http_client;
pub mod input;
pub mod notify;
pub mod pipeline;
mod server;
mod skill_files;
pub mod spec;
mod strict_json;
pub mod subscriptions;
mod sync;
pub mod tasks;
#[cfg(feature = "otel")]
mod telemetry;
mod trace;
pub mod transport;
#[cfg(feature = "gateway")]
pub mod upstream;
pub mod validate;
pub mod verify;

#[cfg(feature = "mimalloc")]
pub use allocator::Allocator;
pub use audit::AuditLog;
pub use context::CallContext;
pub use error::ToolError;
pub use notify::LogLevel;
pub use pipeline::{Call, Pipeline, SetupError};
pub use server::GeneratedServer;
pub use transport::embed;

/// Brings in the server harness-codegen generated into OUT_DIR, as the body of a module:
/// `mod generated { harness_runtime::include_generated!(); }` (what tonic's `include_proto!`
/// is to tonic-build).
#[macro_export]
macro_rules! include_generated {
    () => {
        include!(concat!(env!("OUT_DIR"), "/harness.rs"));
    };
}

/// Generated code calls this when the manifest keeps a rate limit or idempotency keys on
/// Redis: without the `redis` feature the build stops here, saying how to turn it on.
#[cfg(not(feature = "redis"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_redis_feature {
    () => {
        ::core::compile_error!(
            "harness.toml keeps a rate limit or idempotency keys on Redis (backend = \"redis\"): enable harness-runtime's `redis` feature, e.g. harness-runtime = { version = \"0.1\", features = [\"redis\"] }"
        );
    };
}

/// Generated code calls this when the manifest keeps a rate limit or idempotency keys on
/// Redis; the `redis` feature is on, so there is nothing to check.
#[cfg(feature = "redis")]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_redis_feature {
    () => {};
}

/// Generated code calls this when the manifest has `[[upstreams]]`: without the `gateway`
/// feature the build stops here, saying how to turn it on.
#[cfg(not(feature = "gateway"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_gateway_feature {
    () => {
        ::core::compile_error!(
            "harness.toml has [[upstreams]] (a gateway): enable harness-runtime's `gateway` feature, e.g. harness-runtime = { version = \"0.1\", features = [\"gateway\"] }"
        );
    };
}

/// Generated code calls this when the manifest has `[[upstreams]]`; the `gateway` feature is
/// on, so there is nothing to check.
#[cfg(feature = "gateway")]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_gateway_feature {
    () => {};
}

/// Generated code calls this when the manifest has `[auth]`: without the `oauth` feature the
/// build stops here, saying how to turn it on.
#[cfg(not(feature = "oauth"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_oauth_feature {
    () => {
        ::core::compile_error!(
            "harness.toml has [auth] (an OAuth 2.1 resource server): enable harness-runtime's `oauth` feature, e.g. harness-runtime = { version = \"0.1\", features = [\"oauth\"] }"
        );
    };
}

/// Generated code calls this when the manifest has `[auth]`; the `oauth` feature is on, so
/// there is nothing to check.
#[cfg(feature = "oauth")]
#[doc(hidden)]
#[macro_export]
macro_rules! __require_oauth_feature {
    () => {};
}

/// The facade generated code uses; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use regex::Regex;
    pub use rmcp;
    pub use serde;
    pub use serde_json;
    pub use std::sync::LazyLock;

    pub use crate::__require_gateway_feature as require_gateway_feature;
    pub use crate::__require_oauth_feature as require_oauth_feature;
    pub use crate::__require_redis_feature as require_redis_feature;
    pub use crate::audit::{AuditSpec, FsyncPolicy};
    pub use crate::catalog::{
        CacheSpec, CatalogSpec, MessageSpec, PromptMessages, PromptSpec, Resolved, ResourceBody,
        ResourceContent, ResourceSpec, RoleSpec, SkillFileSpec, SkillSpec, TemplateSpec,
        VariableKind, validate_prompt,
    };
    pub use crate::context::CallContext;
    pub use crate::error::ToolError;
    pub use crate::input::Form;
    pub use crate::notify::SessionLogLevel;
    pub use crate::pipeline::{Call, Pipeline};
    pub use crate::server::GeneratedServer;
    pub use crate::spec::{
        AnnotationSpec, BundleFile, BundleSpec, GuardSpec, OutputSpec, RateLimitBackend,
        RateLimitScope, RateLimitSpec, RateLimitStoreSpec, RedactPattern, ServerSpec,
        StoreUnreachable, TabularAction, TabularSpec, ToolSpec, TransportKind, TransportSpec,
        validate_output,
    };
    pub use crate::spec::{AuthSpec, IntrospectionSpec};
    #[cfg(feature = "gateway")]
    pub use crate::spec::{
        EndpointSpec, ForwardedRequest, OnDrift, PinKind, PinSpec, UpstreamProtocol, UpstreamSpec,
    };
    pub use crate::spec::{FormQuestion, TaskSpec, TaskSupport};
    pub use crate::spec::{IdempotencySpec, WriteSpec};
    #[cfg(feature = "gateway")]
    pub use crate::upstream::Upstreams;
    pub use crate::validate::NoArguments;
    #[cfg(feature = "gateway")]
    pub use crate::validate::PinnedSchema;
    pub use crate::validate::{
        ArgErrors, ArgPath, Fields, FromArguments, JsonObject, NumberRules, StringRules, array,
        boolean, integer, not_a_member, number, object, reject_unknown_fields, string,
    };
    pub use crate::verify::{CheckSpec, FieldType, VerifierSpec};

    /// The tasks extension, for a server with task tools.
    pub mod tasks {
        pub use crate::tasks::advertise;
    }

    /// The built-in tools' bodies.
    pub mod builtins {
        pub use crate::builtins::{diagnostics, health, ping};
    }
}

#[cfg(test)]
mod tests {
    /// The crate doc is the map of the public modules: one added without a line there would
    /// be a part of the API nobody is pointed to.
    #[test]
    fn the_crate_doc_names_every_public_module() {
        let source = include_str!("lib.rs");
        let doc: String = source
            .lines()
            .filter_map(|line| line.strip_prefix("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        let modules: Vec<&str> = source
            .lines()
            .filter_map(|line| line.strip_prefix("pub mod ")?.strip_suffix(';'))
            .collect();
        assert!(modules.len() > 10, "found only {modules:?}");
        for module in modules {
            assert!(
                doc.contains(&format!("`{module}`")) || doc.contains(&format!("`{module}::")),
                "the crate doc does not name `{module}`"
            );
        }
    }
}
