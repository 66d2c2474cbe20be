//! The audit log: one JSON line per call, for every outcome, in a fixed format:
//! `{"args_sha256","call_id","duration_ms","outcome","schema_version","timestamp","tool"}`
//! (keys sorted, no spaces), plus `trace_id` and `error_code` when the manifest asks.
//!
//! The file is created before the server accepts a request, so "never called" leaves an
//! empty file rather than none. Records are written as whole lines under a lock, so
//! concurrent calls never interleave; a `tools/call`'s record is written with those of the
//! calls that finish with it (group commit, `audit/group.rs`) before its reply goes out.

mod group;
mod line;

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use self::group::GroupCommit;
use self::line::Line;

/// Room for one record in one allocation: a line with every optional field is about 300
/// bytes.
const LINE_CAPACITY: usize = 512;

pub use harness_contract::{FsyncPolicy, RECORD_FIELDS, args_sha256, canonical_json};

/// The `[audit]` table of the manifest.
#[derive(Debug, Clone, Copy)]
pub struct AuditSpec {
    /// Where the log goes unless `serve --audit-path` says otherwise.
    pub path: &'static str,
    /// The `schema_version` field of every record.
    pub schema_version: u32,
    /// Whether records carry `trace_id`.
    pub trace_id: bool,
    /// Whether records carry `error_code` (absent on success).
    pub error_code: bool,
    /// Whether records carry `subject`: the caller's token subject (`[auth]`), null for a call
    /// without one.
    pub subject: bool,
    /// When records reach the disk.
    pub fsync: FsyncPolicy,
}

/// Why the audit log could not be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The file or its directory could not be created.
    #[error(
        "cannot create the audit log {path}: {source} (serve --audit-path PATH writes it elsewhere)"
    )]
    Create {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A record could not be written.
    #[error("cannot write to the audit log {path}: {source}")]
    Write {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// One call, as the audit log records it.
#[derive(Debug, Clone)]
pub struct AuditRecord<'a> {
    /// The request's method when it is not `tools/call` (`resources/read`, `prompts/get`,
    /// `completion/complete`); tool records leave it out, keeping their seven fields.
    pub method: Option<&'a str>,
    /// The tool name (for other requests: the URI or prompt name).
    pub tool: &'a str,
    /// sha256 of the canonical JSON of the arguments.
    pub args_sha256: String,
    /// `ok`, `not_found`, `invalid_arguments`, `rate_limited`, `timeout`, `panic`, ...
    pub outcome: &'a str,
    /// Whole milliseconds the call took.
    pub duration_ms: u64,
    /// The call's trace id.
    pub trace_id: &'a str,
    /// The envelope's error code, for failures.
    pub error_code: Option<&'a str>,
    /// The caller's subject, when the request's access token was accepted (`[auth]`).
    pub subject: Option<&'a str>,
    /// The task the call became (the tasks extension): its creation and its end are two
    /// records with the same id; any other call leaves it out.
    pub task_id: Option<&'a str>,
}

/// An open, append-only audit log.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    spec: AuditSpec,
    /// Boxed: the log is moved around whole (`Pipeline::install_audit` hands it back), and
    /// the batch's state is most of its size.
    file: Box<GroupCommit>,
}

impl AuditLog {
    /// Creates (or opens for appending) the log at `path`, with its directory.
    pub fn open(path: &Path, spec: AuditSpec) -> Result<Self, AuditError> {
        let create_error = |source| AuditError::Create {
            path: path.to_owned(),
            source,
        };
        if let Some(parent) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(create_error)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(create_error)?;
        Ok(Self {
            path: path.to_owned(),
            spec,
            file: Box::new(GroupCommit::new(
                file,
                spec.fsync == FsyncPolicy::EveryRecord,
            )),
        })
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The JSON line for `record` (without the newline).
    pub fn line(&self, record: &AuditRecord<'_>) -> String {
        let mut line = Vec::with_capacity(LINE_CAPACITY);
        self.write_line(record, &mut line);
        String::from_utf8(line).expect("a line is written from UTF-8 text")
    }

    /// Writes the JSON line for `record` (without the newline) at the end of `out`.
    fn write_line(&self, record: &AuditRecord<'_>, out: &mut Vec<u8>) {
        let mut call_id = uuid::Uuid::encode_buffer();
        Line {
            args_sha256: &record.args_sha256,
            call_id: uuid::Uuid::new_v4().hyphenated().encode_lower(&mut call_id),
            duration_ms: record.duration_ms,
            error_code: record.error_code.filter(|_| self.spec.error_code),
            method: record.method,
            outcome: record.outcome,
            schema_version: self.spec.schema_version,
            subject: self.spec.subject.then_some(record.subject),
            task_id: record.task_id,
            timestamp: jiff::Timestamp::now(),
            tool: record.tool,
            trace_id: Some(record.trace_id).filter(|_| self.spec.trace_id),
        }
        .write(out);
    }

    /// Appends one record as one write.
    pub fn append(&self, record: &AuditRecord<'_>) -> Result<(), AuditError> {
        self.file
            .write_now(&self.whole_line(record))
            .map_err(|source| self.write_error(source))
    }

    /// Appends one record with those of the calls that finish with it, resolving once it has
    /// been written: what a reply waits for.
    pub async fn append_grouped(&self, record: &AuditRecord<'_>) -> Result<(), AuditError> {
        let line = self.whole_line(record);
        self.file
            .commit(&line)
            .await
            .map_err(|source| self.write_error(source))
    }

    /// Flushes every record written so far to the disk.
    pub fn sync(&self) -> Result<(), AuditError> {
        self.file.sync().map_err(|source| self.write_error(source))
    }

    /// The record's line with its newline.
    fn whole_line(&self, record: &AuditRecord<'_>) -> Vec<u8> {
        let mut line = Vec::with_capacity(LINE_CAPACITY);
        self.write_line(record, &mut line);
        line.push(b'\n');
        line
    }

    fn write_error(&self, source: std::io::Error) -> AuditError {
        AuditError::Write {
            path: self.path.clone(),
            source,
        }
    }
}

/// Now, as RFC 3339 in UTC with microseconds, e.g. `2026-11-29T23:41:13.123456Z`.
pub fn rfc3339_now() -> String {
    rfc3339(jiff::Timestamp::now())
}

/// `timestamp` as RFC 3339 in UTC with microseconds.
fn rfc3339(timestamp: jiff::Timestamp) -> String {
    let mut text = Vec::with_capacity(27);
    line::write_rfc3339(&mut text, timestamp);
    String::from_utf8(text).expect("digits and separators are ASCII")
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn records_have_the_exact_field_set() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/audit.jsonl");
        let spec = AuditSpec {
            path: "",
            schema_version: 1,
            trace_id: false,
            error_code: false,
            subject: false,
            fsync: FsyncPolicy::EveryRecord,
        };
        let log = AuditLog::open(&path, spec).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "",
            "created empty before any call"
        );
        let record = AuditRecord {
            method: None,
            tool: "get_incident_snapshot",
            args_sha256: args_sha256(&json!({"incident_id": 42, "view": "summary"})),
            outcome: "ok",
            duration_ms: 3,
            trace_id: "mcp-00000000",
            error_code: None,
            // A caller's subject stays out of a record that did not opt in.
            subject: Some("mcp-agent"),
            task_id: None,
        };
        log.append(&record).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed: serde_json::Map<String, Value> = serde_json::from_str(text.trim_end()).unwrap();
        let keys: Vec<&str> = parsed.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "args_sha256",
                "call_id",
                "duration_ms",
                "outcome",
                "schema_version",
                "timestamp",
                "tool"
            ]
        );
        let call_id = uuid::Uuid::parse_str(parsed["call_id"].as_str().unwrap()).unwrap();
        assert_eq!(call_id.get_version_num(), 4);
        let timestamp = parsed["timestamp"].as_str().unwrap();
        assert!(
            timestamp.parse::<jiff::Timestamp>().is_ok() && timestamp.ends_with('Z'),
            "{timestamp}"
        );
    }

    #[test]
    fn timestamps_are_what_strftime_writes() {
        for text in [
            "2026-11-29T23:41:13.123456789Z",
            "2024-02-29T00:00:00Z",
            "1999-12-31T23:59:59.999999Z",
            "0001-01-01T00:00:00.000001Z",
            "9999-12-30T21:59:59.5Z",
        ] {
            let timestamp: jiff::Timestamp = text.parse().unwrap();
            assert_eq!(
                rfc3339(timestamp),
                timestamp.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
                "{text}"
            );
        }
    }

    #[test]
    fn optional_fields_keep_the_keys_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let spec = AuditSpec {
            path: "",
            schema_version: 1,
            trace_id: true,
            error_code: true,
            subject: true,
            fsync: FsyncPolicy::Never,
        };
        let log = AuditLog::open(&dir.path().join("audit.jsonl"), spec).unwrap();
        let line = log.line(&AuditRecord {
            method: None,
            tool: "t",
            args_sha256: args_sha256(&json!({})),
            outcome: "invalid_arguments",
            duration_ms: 0,
            trace_id: "mcp-00000000",
            error_code: Some("InvalidArguments"),
            subject: Some("mcp-agent"),
            task_id: None,
        });
        let parsed: serde_json::Map<String, Value> = serde_json::from_str(&line).unwrap();
        let keys: Vec<&str> = parsed.keys().map(String::as_str).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted, "{line}");
        assert_eq!(keys.len(), 10, "{line}");
        assert_eq!(parsed["error_code"], "InvalidArguments");
        assert_eq!(parsed["trace_id"], "mcp-00000000");
        assert_eq!(parsed["subject"], "mcp-agent");
        // Opted in, a call without a caller says so with null rather than leaving it out.
        let anonymous = log.line(&AuditRecord {
            method: None,
            tool: "t",
            args_sha256: args_sha256(&json!({})),
            outcome: "ok",
            duration_ms: 0,
            trace_id: "mcp-00000000",
            error_code: None,
            subject: None,
            task_id: None,
        });
        let parsed: serde_json::Map<String, Value> = serde_json::from_str(&anonymous).unwrap();
        assert_eq!(parsed["subject"], Value::Null, "{anonymous}");
    }
}
