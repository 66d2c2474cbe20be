//! The hand-written server spec the pipeline tests run against (no generated code).

use harness_runtime::audit::{AuditSpec as Audit, FsyncPolicy as Fsync};
use harness_runtime::spec::*;

pub(crate) mod clients;
pub(crate) mod listening;
#[cfg(feature = "gateway")]
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
        task: None,
    }
}

/// Runs the calling test again, alone, in a child process of this test binary
/// (`TEST --exact --test-threads=1`), and returns `false` once that run passed (the caller then
/// returns); in the child it returns `true`, and the caller's body runs as the only test of its
/// process. `module` is the caller's `module_path!()`, `test` its function's name.
///
/// For the tests that set a variable the runtime then reads (a Redis URL known only once their
/// own redis-server listens): `std::env::set_var` is sound only while no other thread may read
/// the environment, and the other tests of this binary run beside each other in threads.
#[cfg(feature = "redis")]
pub(crate) fn alone(module: &str, test: &str) -> bool {
    const CHILD: &str = "HARNESS_TEST_ALONE";
    // The name libtest knows the test by: its module path without the crate's name.
    let name = match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{test}"),
        None => test.to_owned(),
    };
    if std::env::var_os(CHILD).is_some_and(|value| value == name.as_str()) {
        return true;
    }
    let binary = std::env::current_exe().expect("the test binary's path");
    let output = std::process::Command::new(binary)
        .args([name.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, &name)
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Shown with the parent's output (on failure, or with --nocapture).
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{name}, run alone in a child process: {}",
        output.status
    );
    false
}
