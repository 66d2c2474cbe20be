//! `verify`: the manifest's checks against the evidence of a finished run, with three
//! outcomes. Exit 0 is a pass, exit 10 a candidate failure (the agent's doing: the
//! tool was never called, the forbidden state was observed), anything else an
//! infrastructure failure (evidence missing, unreadable or malformed), which must never be
//! scored as the candidate's.
//!
//! The audit is parsed strictly, so a forged or damaged log is never scored: size limits, UTF-8, no
//! duplicate keys, the exact field set with exact types, RFC 3339 timestamps with a zone,
//! unique UUIDv4 call ids, 64-hex digests, known tools and outcomes, bounded durations.

mod figures;
pub(crate) mod strict_json;

pub use figures::{Latency, RunFigures};

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

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

/// One validated audit record.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    /// Tool name.
    pub tool: String,
    /// Argument digest.
    pub args_sha256: String,
    /// Outcome.
    pub outcome: String,
    /// How long the call took, in milliseconds.
    pub duration_ms: u64,
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

/// Parses the audit file at `path` strictly.
pub fn strict_audit(spec: &VerifierSpec, path: &Path) -> Checked<Vec<AuditEntry>> {
    let bytes = read_limited(path, "MCP audit", MAX_AUDIT_BYTES)?;
    parse_audit(spec, &bytes)
}

/// Parses an audit file's contents strictly (at most [`MAX_AUDIT_BYTES`] are read from disk).
pub fn parse_audit(spec: &VerifierSpec, bytes: &[u8]) -> Checked<Vec<AuditEntry>> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return infra("audit is not UTF-8");
    };
    if text.starts_with('\u{feff}') {
        return infra("audit starts with a byte-order mark");
    }
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let Some(body) = text.strip_suffix('\n') else {
        return infra("audit's last line is truncated (no final newline)");
    };
    let lines: Vec<&str> = body.split('\n').collect();
    if lines.len() > MAX_LINES {
        return infra(format!(
            "audit has {} lines, more than {MAX_LINES}",
            lines.len()
        ));
    }
    let mut call_ids = HashSet::new();
    let mut entries = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        if line.is_empty() {
            return infra(format!("audit line {number} is empty"));
        }
        if line.len() > MAX_LINE_BYTES {
            return infra(format!(
                "audit line {number} is longer than {MAX_LINE_BYTES} bytes"
            ));
        }
        if line.ends_with('\r') {
            return infra(format!(
                "audit line {number} ends with a carriage return (CRLF)"
            ));
        }
        let record = match strict_json::parse(line) {
            Ok(Value::Object(record)) => record,
            Ok(_) => return infra(format!("audit line {number} is not a JSON object")),
            Err(error) => return infra(format!("audit line {number} is not valid JSON: {error}")),
        };
        // Records of other requests (resources/read, prompts/get) are checked but are not
        // tool calls.
        if let Some(entry) = audit_record(spec, &record, number, &mut call_ids)? {
            entries.push(entry);
        }
    }
    Ok(entries)
}

fn audit_record(
    spec: &VerifierSpec,
    record: &Map<String, Value>,
    number: usize,
    call_ids: &mut HashSet<String>,
) -> Checked<Option<AuditEntry>> {
    let text = |key: &str| match record.get(key) {
        Some(Value::String(text)) => Ok(text.as_str()),
        _ => infra(format!("audit line {number}: {key} is not a string")),
    };
    let outcome = text("outcome")?;
    let method = match record.get("method") {
        None => None,
        Some(Value::String(method)) if REQUEST_METHODS.contains(&method.as_str()) => Some(method),
        Some(_) => {
            return infra(format!(
                "audit line {number}: method is not one of {REQUEST_METHODS:?}"
            ));
        }
    };
    let mut expected = crate::audit::RECORD_FIELDS.to_vec();
    if method.is_some() {
        expected.push("method");
    }
    // A call that became a task has two records, its creation and its end, with its id.
    let task_id = match record.get("task_id") {
        None => None,
        Some(Value::String(id)) if method.is_none() && !id.is_empty() => {
            expected.push("task_id");
            Some(id.as_str())
        }
        Some(_) => {
            return infra(format!(
                "audit line {number}: task_id is not a task's id on a tool call record"
            ));
        }
    };
    if task_id.is_none() && outcome == harness_contract::HarnessOutcome::TaskCreated.as_str() {
        return infra(format!(
            "audit line {number}: a task_created record without a task_id"
        ));
    }
    let optional = [
        ("trace_id", spec.audit.trace_id),
        ("error_code", spec.audit.error_code && outcome != "ok"),
        ("subject", spec.audit.subject),
    ];
    expected.extend(optional.iter().filter_map(|&(f, on)| on.then_some(f)));
    expected.sort_unstable();
    let mut keys: Vec<&str> = record.keys().map(String::as_str).collect();
    keys.sort_unstable();
    if keys != expected {
        return infra(format!(
            "audit line {number}: fields are {keys:?}, expected {expected:?}"
        ));
    }
    if record["schema_version"].as_u64() != Some(u64::from(spec.audit.schema_version))
        || !record["schema_version"].is_u64()
    {
        return infra(format!(
            "audit line {number}: schema_version is not {}",
            spec.audit.schema_version
        ));
    }
    let timestamp = text("timestamp")?;
    // The writer spells `T` and `Z` in capitals; RFC 3339 allows lower case, but Python's
    // `datetime.fromisoformat` (what Python verifiers read it with) refuses `z`, so neither
    // case is taken.
    if timestamp.contains(['t', 'z']) || timestamp.parse::<jiff::Timestamp>().is_err() {
        return infra(format!(
            "audit line {number}: timestamp {timestamp:?} is not RFC 3339 with a time zone"
        ));
    }
    let call_id = text("call_id")?;
    match uuid::Uuid::parse_str(call_id) {
        // Version 4 of the RFC 4122 variant, as Python's `UUID(...).version == 4` demands (it
        // reports no version for another variant), in the writer's own spelling:
        // lower case, hyphenated, no braces or urn: prefix.
        Ok(id)
            if id.get_version_num() == 4
                && id.get_variant() == uuid::Variant::RFC4122
                && id.hyphenated().to_string() == call_id => {}
        _ => {
            return infra(format!(
                "audit line {number}: call_id {call_id:?} is not a UUIDv4"
            ));
        }
    }
    if !call_ids.insert(call_id.to_owned()) {
        return infra(format!(
            "audit line {number}: call_id {call_id} is a duplicate"
        ));
    }
    let tool = text("tool")?;
    // A call of an unknown tool records the name the client sent (sanitized and cut); other
    // requests record their URI or prompt name.
    if method.is_none() && !spec.tools.contains(&tool) && outcome != "unknown_tool" {
        return infra(format!("audit line {number}: unknown tool {tool:?}"));
    }
    let digest = text("args_sha256")?;
    if digest.len() != 64
        || !digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return infra(format!(
            "audit line {number}: args_sha256 is not 64 lowercase hex digits"
        ));
    }
    if !spec.outcomes.contains(&outcome) {
        return infra(format!("audit line {number}: unknown outcome {outcome:?}"));
    }
    let duration_ms = match record["duration_ms"].as_u64() {
        Some(ms) if record["duration_ms"].is_u64() && ms <= spec.max_duration_ms => ms,
        _ => {
            return infra(format!(
                "audit line {number}: duration_ms is not an integer in 0..={}",
                spec.max_duration_ms
            ));
        }
    };
    for &(field, on) in &optional {
        // An opted-in subject is null for a call without a caller.
        if on && !(field == "subject" && record[field].is_null()) {
            text(field)?;
        }
    }
    // A task is one call: its end is counted, its creation is not.
    if method.is_some() || outcome == harness_contract::HarnessOutcome::TaskCreated.as_str() {
        return Ok(None);
    }
    Ok(Some(AuditEntry {
        tool: tool.to_owned(),
        args_sha256: digest.to_owned(),
        outcome: outcome.to_owned(),
        duration_ms,
    }))
}

/// The methods whose records carry a `method` field.
const REQUEST_METHODS: [&str; 3] = ["resources/read", "prompts/get", "completion/complete"];

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
