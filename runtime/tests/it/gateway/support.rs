//! What the gateway's tests build on: the hostile upstream as a spec, and a pipeline that
//! audits into a test's directory.

use std::path::Path;

use harness_runtime::spec::{
    EndpointSpec, OnDrift, PinSpec, ServerSpec, ToolSpec, UpstreamProtocol, UpstreamSpec,
};
use harness_runtime::{AuditLog, Pipeline};
use serde_json::Value;

use super::leak;
use crate::common::AUDIT;

const HOSTILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/hostile_upstream.py"
);

/// The Python interpreter itself, not a version manager's shim (a shell script that adds
/// variables of its own to the child's environment).
pub(super) fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let output = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 is on PATH");
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    })
}

/// The hostile upstream (`mode` its extra arguments, `log` what it received), as a spec
/// taking its pins.
pub(super) fn hostile(
    log: &Path,
    mode: &[&str],
    on_drift: OnDrift,
) -> impl Fn(&'static [PinSpec]) -> UpstreamSpec + use<> {
    let mut args = vec![HOSTILE.to_owned(), log.display().to_string()];
    args.extend(mode.iter().map(|m| (*m).to_owned()));
    let args: Vec<&'static str> = args.into_iter().map(|a| leak(a.into_boxed_str())).collect();
    let args: &'static [&'static str] = leak(args.into_boxed_slice());
    move |pins| UpstreamSpec {
        name: "hostile",
        endpoint: EndpointSpec::Stdio {
            command: python(),
            args,
            cwd: None,
            env: &[],
        },
        timeout_ms: 5000,
        max_restarts: 3,
        backoff_ms: 50,
        on_drift,
        protocol: UpstreamProtocol::default(),
        forward: &[],
        pins,
    }
}

/// The pipeline of `server` and `tools`, auditing to `audit.jsonl` in `dir`.
pub(super) fn audited(
    server: &'static ServerSpec,
    tools: &'static [ToolSpec],
    dir: &Path,
) -> Pipeline {
    let pipeline = Pipeline::new(server, tools);
    pipeline
        .install_audit(AuditLog::open(&dir.join("audit.jsonl"), AUDIT).unwrap())
        .unwrap();
    pipeline
}

/// The records [`audited`] wrote in `dir`.
pub(super) fn audit_in(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}
