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
mod spec;

pub use audit_reader::{AuditEntry, parse_audit, strict_audit};
pub use figures::{Latency, RunFigures};
pub use spec::{
    CheckResult, CheckSpec, Evidence, FieldType, MAX_AUDIT_BYTES, MAX_LINE_BYTES, MAX_LINES,
    MAX_STATE_BYTES, Report, Verdict, VerifierSpec,
};

use std::path::Path;

use serde_json::Value;

use spec::{Checked, candidate, infra, read_limited};

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
    let state = match crate::strict_json::parse(text) {
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
