//! What a verifier checks and what it answers: the checks of `[[verifier.checks]]`, the
//! evidence they read, the limits on what is read, and the verdicts.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::figures::RunFigures;
use crate::audit::AuditSpec;
pub use harness_contract::FieldType;

/// Largest audit file accepted.
pub const MAX_AUDIT_BYTES: usize = 1_048_576;
/// Largest audit line accepted.
pub const MAX_LINE_BYTES: usize = 4096;
/// Most audit lines accepted.
pub const MAX_LINES: usize = 256;
/// Largest state file accepted.
pub const MAX_STATE_BYTES: usize = 4096;

/// One check of `[[verifier.checks]]`.
#[derive(Debug, Clone, Copy)]
pub enum CheckSpec {
    /// At least one audit record of `tool` with these arguments and this outcome.
    AuditCall {
        /// Tool name.
        tool: &'static str,
        /// The canonical arguments (defaults applied), for the report.
        arguments: &'static str,
        /// Their sha256, as the audit records it.
        args_sha256: &'static str,
        /// Required outcome.
        outcome: &'static str,
    },
    /// A JSON state file with an exact schema; `require` mismatches are infrastructure
    /// failures, `expect` mismatches candidate failures.
    StateFile {
        /// The file (its path in the task environment).
        path: &'static str,
        /// The exact field set and types.
        fields: &'static [(&'static str, FieldType)],
        /// Values the evidence must have to be trusted (JSON text).
        require: &'static [(&'static str, &'static str)],
        /// Values the candidate must have produced (JSON text).
        expect: &'static [(&'static str, &'static str)],
    },
    /// A file the candidate must have produced.
    FileExists {
        /// The file (its path in the task environment).
        path: &'static str,
    },
    /// Limits on the calls in the audit.
    CallBudget {
        /// At most this many calls.
        max_calls: Option<u64>,
        /// None of these outcomes.
        forbid_outcomes: &'static [&'static str],
    },
}

/// Everything `verify` knows from the manifest.
#[derive(Debug, Clone, Copy)]
pub struct VerifierSpec {
    /// The server's audit format and file (its path in the sidecar): the same spec the
    /// server writes with.
    pub audit: AuditSpec,
    /// Tools the server publishes.
    pub tools: &'static [&'static str],
    /// Outcomes a record may have.
    pub outcomes: &'static [&'static str],
    /// Largest plausible `duration_ms`.
    pub max_duration_ms: u64,
    /// `[[artifacts]]` as (source, destination).
    pub artifacts: &'static [(&'static str, &'static str)],
    /// The checks, in order.
    pub checks: &'static [CheckSpec],
}

/// Where the evidence is.
#[derive(Debug, Clone)]
pub enum Evidence {
    /// A Harbor artifacts directory: files at their `destination`.
    Artifacts(PathBuf),
    /// Files restored at their source paths under this root (`/` inside the verifier).
    Root(PathBuf),
}

/// The three outcomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", content = "reason", rename_all = "snake_case")]
pub enum Verdict {
    /// Every check passed.
    Pass,
    /// The candidate failed a check.
    CandidateFailure(String),
    /// The evidence cannot be trusted.
    InfrastructureFailure(String),
}

impl Verdict {
    /// The process exit code: 0, 10, or 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::CandidateFailure(_) => 10,
            Verdict::InfrastructureFailure(_) => 1,
        }
    }
}

/// The result of one check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// What was checked.
    pub check: String,
    /// Its verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// The whole report (`verify --json`).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The overall verdict: any infrastructure failure wins, then any candidate failure.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Every check.
    pub checks: Vec<CheckResult>,
    /// What the audit says of the run (calls by outcome, latency), when it could be read.
    pub run: Option<RunFigures>,
}

pub(crate) type Checked<T> = Result<T, Verdict>;

pub(crate) fn infra<T>(reason: impl Into<String>) -> Checked<T> {
    Err(Verdict::InfrastructureFailure(reason.into()))
}

pub(crate) fn candidate<T>(reason: impl Into<String>) -> Checked<T> {
    Err(Verdict::CandidateFailure(reason.into()))
}

impl Evidence {
    pub(crate) fn locate(&self, spec: &VerifierSpec, source: &str) -> Checked<PathBuf> {
        match self {
            Evidence::Root(root) => Ok(root.join(source.trim_start_matches('/'))),
            Evidence::Artifacts(dir) => {
                match spec.artifacts.iter().find(|(from, _)| *from == source) {
                    Some((_, destination)) => Ok(dir.join(destination)),
                    None => infra(format!("{source} is not collected as an artifact")),
                }
            }
        }
    }
}

pub(crate) fn read_limited(path: &Path, what: &str, limit: usize) -> Checked<Vec<u8>> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => metadata,
        Ok(_) => return infra(format!("{what} is not a regular file: {}", path.display())),
        Err(_) => return infra(format!("{what} is missing: {}", path.display())),
    };
    if metadata.len() > limit as u64 {
        return infra(format!("{what} is larger than {limit} bytes"));
    }
    match std::fs::read(path) {
        Ok(bytes) if bytes.len() <= limit => Ok(bytes),
        Ok(_) => infra(format!("{what} is larger than {limit} bytes")),
        Err(error) => infra(format!("cannot read {what}: {error}")),
    }
}
