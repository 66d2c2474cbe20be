//! The audit read back strictly: the file's size, encoding and line rules, then each record's
//! exact field set and types, known tools and outcomes, unique call ids, and the two records
//! of a task counted as one call.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::spec::{
    Checked, MAX_AUDIT_BYTES, MAX_LINE_BYTES, MAX_LINES, VerifierSpec, infra, read_limited,
};
use crate::strict_json;

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
