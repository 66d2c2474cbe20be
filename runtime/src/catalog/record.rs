//! One audit record and log line per catalog request (resources/read, prompts/get,
//! completion/complete), and the JSON-RPC error such a request gets when refused: requests
//! without `isError` carry the envelope's fields in `error.data`.

use crate::catalog::part::Catalog;
use crate::pipeline::bounded::AskedFor;
use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{ErrorCode, ErrorData};
use serde_json::{Value, json};

use crate::audit::{AuditRecord, args_sha256};
use crate::auth::Caller;
use crate::error::ToolError;
use crate::guards::{redact, strip};
use crate::pipeline::envelope::codes;
use crate::pipeline::refusal::{Refusal, Reply};
use crate::trace::trace_id_for;

/// When and for whom a catalog request began: its trace id (honouring the request's W3C
/// `traceparent`), its start, and the caller the auth layer accepted (the audit record's
/// `subject` where the manifest opts in).
#[derive(Debug)]
pub(crate) struct Began {
    pub(crate) trace_id: String,
    pub(crate) started: Instant,
    pub(crate) caller: Option<Arc<Caller>>,
}

impl Began {
    /// A request beginning now.
    pub(crate) fn now(traceparent: Option<&str>, caller: Option<Arc<Caller>>) -> Self {
        Self {
            trace_id: trace_id_for(traceparent),
            started: Instant::now(),
            caller,
        }
    }
}

/// How one catalog request ended.
pub(crate) struct Finished<'a> {
    /// The audit outcome.
    pub(crate) outcome: &'a str,
    /// The error code, on failure.
    pub(crate) error_code: Option<&'a str>,
}

impl Finished<'static> {
    pub(crate) const OK: Self = Self {
        outcome: "ok",
        error_code: None,
    };
}

impl<'a> Finished<'a> {
    /// A body's own error, as audited.
    pub(crate) fn failed(error: &'a ToolError) -> Self {
        Self {
            outcome: error.outcome(),
            error_code: Some(error.code()),
        }
    }
}

impl Catalog<'_> {
    /// Logs and audits one catalog request: `method` (such as `resources/read`) on `target`
    /// (the URI or prompt name, sanitized and cut like an unknown tool's name).
    pub(crate) fn audit_request(
        &self,
        method: &str,
        target: &str,
        args: &Value,
        began: &Began,
        finished: &Finished<'_>,
    ) {
        let (trace_id, duration) = (began.trace_id.as_str(), began.started.elapsed());
        let target = crate::pipeline::call::audited_tool_name(target);
        tracing::debug!(
            trace_id,
            method,
            target,
            outcome = finished.outcome,
            error_code = finished.error_code,
            subject = began
                .caller
                .as_deref()
                .map(|caller| caller.subject.as_str()),
            "request"
        );
        if let Some(audit) = self.pipeline.audit() {
            let record = AuditRecord {
                method: Some(method),
                tool: &target,
                args_sha256: args_sha256(args),
                outcome: finished.outcome,
                duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
                trace_id,
                error_code: finished.error_code,
                subject: began
                    .caller
                    .as_deref()
                    .map(|caller| caller.subject.as_str()),
                task_id: None,
            };
            if let Err(error) = audit.append(&record) {
                tracing::error!(trace_id, method, %error, "audit record lost");
            }
        }
    }

    /// Refuses a catalog request: audits `method` on `target` with the refusal's outcome and
    /// code, and returns the JSON-RPC error, with `target` under `field` (such as `uri`) in
    /// its data when the request named one.
    pub(crate) fn refuse(
        &self,
        refusal: Refusal,
        method: &str,
        target: &str,
        field: Option<&'static str>,
        args: &Value,
        began: &Began,
    ) -> ErrorData {
        let asked = field.map(|field| AskedFor {
            field,
            value: target,
        });
        let (error, outcome, code) = refusal_error(refusal, &began.trace_id, asked);
        let finished = Finished {
            outcome,
            error_code: Some(code),
        };
        self.audit_request(method, target, args, began, &finished);
        error
    }
}

/// A refusal as a JSON-RPC error: the refusal table's code and message, the envelope's fields
/// in `data` (plus what was asked for, such as the unknown `uri`), and the code's audit outcome.
pub(crate) fn refusal_error(
    refusal: Refusal,
    trace_id: &str,
    asked: Option<AskedFor<'_>>,
) -> (ErrorData, &'static str, &'static str) {
    let row = refusal.row();
    let code = match row.reply {
        Reply::ResourceNotFound => ErrorCode::RESOURCE_NOT_FOUND,
        Reply::InvalidParams => ErrorCode::INVALID_PARAMS,
        Reply::Envelope if row.code == codes::INVALID_ARGUMENTS => ErrorCode::INVALID_PARAMS,
        Reply::Envelope | Reply::InternalError | Reply::TasksRequired => ErrorCode::INTERNAL_ERROR,
    };
    let message = redact::redact(&strip::sanitize(&row.message, true)).into_owned();
    let mut data = json!({
        "status": "error",
        "error_code": row.code,
        "message": message,
        "trace_id": trace_id,
    });
    if let Some(asked) = asked {
        data[asked.field] = Value::String(asked.value.to_owned());
    }
    (
        ErrorData::new(code, message, Some(data)),
        row.outcome.as_str(),
        row.code,
    )
}
