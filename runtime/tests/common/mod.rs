//! The hand-written server spec the pipeline tests run against (no generated code).

#![allow(dead_code, reason = "each test target uses part of it")]

use harness_runtime::audit::{AuditSpec as Audit, FsyncPolicy as Fsync};
use harness_runtime::spec::*;

pub(crate) mod clients;
pub(crate) mod upstream;

/// The audit format: the seven record fields plus trace_id and error_code.
pub(crate) const AUDIT: Audit = Audit {
    path: "",
    schema_version: 1,
    trace_id: true,
    error_code: true,
    subject: false,
    fsync: Fsync::Never,
};

/// A stdio server with that audit format.
pub(crate) const SERVER: ServerSpec = ServerSpec {
    name: "pipeline-test",
    version: "0",
    title: None,
    instructions: None,
    transport: TransportSpec::stdio(),
    audit: AUDIT,
    rate_limit_store: harness_runtime::spec::RateLimitStoreSpec::DEFAULT,
    manifest_sha256: "",
    catalog: harness_runtime::catalog::CatalogSpec::EMPTY,
    request_state_key_env: None,
    max_in_flight: None,
};

/// Panics caught, tags stripped and secrets redacted (the defaults); no other guard.
pub(crate) const GUARDS: GuardSpec = GuardSpec {
    rate_limit: None,
    timeout_ms: None,
    max_concurrent: None,
    catch_unhandled: true,
    tabular: None,
    max_lines: None,
    strip_xml: true,
    redact_secrets: true,
    redact_patterns: &[],
    max_chars: None,
    max_bytes: harness_contract::guards::DEFAULT_MAX_BYTES,
    mime_types: harness_contract::guards::DEFAULT_MIME_TYPES,
    link_schemes: &["https"],
};

/// A tool that takes no arguments, with these guards.
pub(crate) const fn tool(name: &'static str, guards: GuardSpec) -> ToolSpec {
    ToolSpec {
        name,
        title: None,
        description: "test",
        input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#,
        output: None,
        annotations: AnnotationSpec {
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
        },
        guards,
        write: WriteSpec::NONE,
    }
}
