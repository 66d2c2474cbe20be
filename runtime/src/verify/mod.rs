//! `verify`: the manifest's checks against the evidence of a finished run, with three
//! outcomes. Exit 0 is a pass, exit 10 a candidate failure (the agent's doing: the
//! tool was never called, the forbidden state was observed), anything else an
//! infrastructure failure (evidence missing, unreadable or malformed), which must never be
//! scored as the candidate's.
//!
//! The audit is parsed strictly, so a forged or damaged log is never scored: size limits, UTF-8, no
//! duplicate keys, the exact field set with exact types, RFC 3339 timestamps with a zone,
//! unique UUIDv4 call ids, 64-hex digests, known tools and outcomes, bounded durations.

mod audit_reader;
mod figures;
pub(crate) mod strict_json;

pub use audit_reader::{AuditEntry, parse_audit, strict_audit};
pub use figures::{Latency, RunFigures};

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::audit::AuditSpec;

/// Largest audit file accepted.
pub const MAX_AUDIT_BYTES: usize = 1_048_576;
/// Largest audit line accepted.
pub const MAX_LINE_BYTES: usize = 4096;
/// Most audit lines accepted.
pub const MAX_LINES: usize = 256;
/// Largest state file accepted.
pub const MAX_STATE_BYTES: usize = 4096;

pub use harness_contract::FieldType;

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

type Checked<T> = Result<T, Verdict>;

fn infra<T>(reason: impl Into<String>) -> Checked<T> {
    Err(Verdict::InfrastructureFailure(reason.into()))
}

fn candidate<T>(reason: impl Into<String>) -> Checked<T> {
    Err(Verdict::CandidateFailure(reason.into()))
}

impl Evidence {
    fn locate(&self, spec: &VerifierSpec, source: &str) -> Checked<PathBuf> {
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

fn read_limited(path: &Path, what: &str, limit: usize) -> Checked<Vec<u8>> {
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

/// Checks a state file: exact schema (infrastructure), `require` (infrastructure), then
/// `expect` (candidate).
pub fn strict_state(
    path: &Path,
    fields: &[(&str, FieldType)],
    require: &[(&str, &str)],
    expect: &[(&str, &str)],
) -> Checked<()> {
    let bytes = read_limited(path, "state file", MAX_STATE_BYTES)?;
    if bytes.is_empty() {
        return infra(format!("state file {} is empty", path.display()));
    }
    parse_state(&bytes, fields, require, expect)
}

/// Checks a state file's contents, as [`strict_state`] does.
pub fn parse_state(
    bytes: &[u8],
    fields: &[(&str, FieldType)],
    require: &[(&str, &str)],
    expect: &[(&str, &str)],
) -> Checked<()> {
    if bytes.is_empty() {
        return infra("state file is empty");
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return infra("state file is not UTF-8");
    };
    let state = match strict_json::parse(text) {
        Ok(Value::Object(state)) => state,
        Ok(_) => return infra("state file is not a JSON object"),
        Err(error) => return infra(format!("state file is not valid JSON: {error}")),
    };
    let mut keys: Vec<&str> = state.keys().map(String::as_str).collect();
    let mut expected: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    keys.sort_unstable();
    expected.sort_unstable();
    if keys != expected {
        return infra(format!(
            "state file fields are {keys:?}, expected {expected:?}"
        ));
    }
    for (name, ty) in fields {
        if !ty.admits(&state[*name]) {
            return infra(format!("state file field {name} is not {ty:?}").to_lowercase());
        }
    }
    let differs = |name: &str, json: &str| {
        serde_json::from_str::<Value>(json).ok().as_ref() != Some(&state[name])
    };
    for (name, json) in require {
        if differs(name, json) {
            return infra(format!("state file field {name} is not {json}"));
        }
    }
    for (name, json) in expect {
        if differs(name, json) {
            return candidate(format!(
                "state file field {name} is {}, expected {json}",
                state[*name]
            ));
        }
    }
    Ok(())
}

fn describe(check: &CheckSpec) -> String {
    match check {
        CheckSpec::AuditCall {
            tool,
            arguments,
            outcome,
            ..
        } => format!("audit has a {outcome} call of {tool} with {arguments}"),
        CheckSpec::StateFile { path, .. } => format!("state file {path}"),
        CheckSpec::FileExists { path } => format!("file {path} exists"),
        CheckSpec::CallBudget {
            max_calls,
            forbid_outcomes,
        } => {
            format!("call budget: at most {max_calls:?} calls, none {forbid_outcomes:?}")
        }
    }
}

fn run_check(
    spec: &VerifierSpec,
    evidence: &Evidence,
    audit: &mut Option<Checked<Vec<AuditEntry>>>,
    check: &CheckSpec,
) -> Checked<()> {
    let mut audit_entries = || -> Checked<Vec<AuditEntry>> {
        audit
            .get_or_insert_with(|| strict_audit(spec, &evidence.locate(spec, spec.audit.path)?))
            .clone()
    };
    match check {
        CheckSpec::AuditCall {
            tool,
            args_sha256,
            outcome,
            ..
        } => {
            let entries = audit_entries()?;
            if entries.is_empty() {
                return candidate("MCP audit is empty: the tool was never called");
            }
            let found = entries
                .iter()
                .any(|e| e.tool == *tool && e.args_sha256 == *args_sha256 && e.outcome == *outcome);
            if found {
                Ok(())
            } else {
                candidate(format!(
                    "no {outcome} call of {tool} with the expected arguments"
                ))
            }
        }
        CheckSpec::CallBudget {
            max_calls,
            forbid_outcomes,
        } => {
            let entries = audit_entries()?;
            // Both breaches are named when both happened (a call storm usually trips the
            // rate limit too), so the reason says everything the candidate did wrong.
            let mut breaches = Vec::new();
            if let Some(max) = max_calls.filter(|max| entries.len() as u64 > *max) {
                breaches.push(format!(
                    "{} calls, more than the budget of {max}",
                    entries.len()
                ));
            }
            let forbidden: Vec<&AuditEntry> = entries
                .iter()
                .filter(|e| forbid_outcomes.contains(&e.outcome.as_str()))
                .collect();
            if let Some(entry) = forbidden.first() {
                let more = match forbidden.len() {
                    1 => String::new(),
                    count => format!(" (and {} more such calls)", count - 1),
                };
                breaches.push(format!(
                    "a call of {} ended {}{more}",
                    entry.tool, entry.outcome
                ));
            }
            if breaches.is_empty() {
                Ok(())
            } else {
                candidate(breaches.join("; "))
            }
        }
        CheckSpec::StateFile {
            path,
            fields,
            require,
            expect,
        } => strict_state(&evidence.locate(spec, path)?, fields, require, expect),
        CheckSpec::FileExists { path } => {
            let located = evidence.locate(spec, path)?;
            if located.is_file() {
                Ok(())
            } else {
                candidate(format!("{path} was not produced"))
            }
        }
    }
}

/// Runs every check against `evidence`.
pub fn verify(spec: &VerifierSpec, evidence: &Evidence) -> Report {
    // A verifier with nothing to check would pass every run; that is a broken task, not a pass.
    if spec.checks.is_empty() {
        return Report {
            verdict: Verdict::InfrastructureFailure(
                "the manifest has no [[verifier.checks]]: nothing was verified".to_owned(),
            ),
            checks: Vec::new(),
            run: None,
        };
    }
    let mut audit = None;
    let checks: Vec<CheckResult> = spec
        .checks
        .iter()
        .map(|check| CheckResult {
            check: describe(check),
            verdict: run_check(spec, evidence, &mut audit, check)
                .err()
                .unwrap_or(Verdict::Pass),
        })
        .collect();
    let first = |infra: bool| {
        checks
            .iter()
            .map(|result| &result.verdict)
            .find(|verdict| match verdict {
                Verdict::InfrastructureFailure(_) => infra,
                Verdict::CandidateFailure(_) => !infra,
                Verdict::Pass => false,
            })
    };
    let verdict = first(true)
        .or_else(|| first(false))
        .cloned()
        .unwrap_or(Verdict::Pass);
    // The run's figures: from the audit the checks parsed, or parsed now if none needed it.
    let audit = audit.unwrap_or_else(|| {
        let path = evidence.locate(spec, spec.audit.path)?;
        strict_audit(spec, &path)
    });
    let run = audit
        .ok()
        .map(|entries| RunFigures::of(entries.iter().map(|e| (e.outcome.as_str(), e.duration_ms))));
    Report {
        verdict,
        checks,
        run,
    }
}
