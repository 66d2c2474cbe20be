//! The run ledger: the fairness ledger's per-run row (the seed chapter's section 15.8), which
//! `verify --run-ledger FILE` writes beside the reward. The bundle's ledger.json pins the
//! conditions every run shares (server, tool definitions, skills, budgets, network policy);
//! this row says what one run did with them, read from the strictly parsed MCP audit: calls by
//! outcome and the calls' latency. The agent's name and version, and whether it loaded a
//! skill, are known only to the harness that ran the agent (Harbor's result.json, the agent's
//! own log), which joins them to this row.

use std::path::Path;

use serde_json::{Value, json};

use crate::spec::BundleSpec;
use crate::verify::{Report, Verdict};

/// The run's row: the pins of the bundle's ledger.json this binary was built with, the
/// verdict, and the run's figures (`null` when the audit could not be read, which the verdict
/// then explains).
pub(crate) fn row(bundle: &BundleSpec, report: &Report) -> Value {
    let ledger: Value = bundle
        .files
        .iter()
        .find(|file| file.path == "ledger.json")
        .and_then(|file| serde_json::from_str(file.contents).ok())
        .unwrap_or(Value::Null);
    let (outcome, reason) = match &report.verdict {
        Verdict::Pass => ("pass", None),
        Verdict::CandidateFailure(reason) => ("candidate_failure", Some(reason)),
        Verdict::InfrastructureFailure(reason) => ("infrastructure_failure", Some(reason)),
    };
    json!({
        "schema_version": 1,
        "server": ledger.get("server"),
        "tools_sha256": ledger.get("tools_sha256"),
        "skills": ledger.get("skills"),
        "verdict": outcome,
        "reason": reason,
        "run": report.run,
    })
}

/// Writes the row to `path` whole or not at all (a temporary file renamed into place), so a
/// reader never sees half a row.
pub(crate) fn write(path: &Path, row: &Value) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(row).expect("the row is plain JSON");
    text.push('\n');
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}
