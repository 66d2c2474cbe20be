//! The refusal table as the book's generated reference (docs/src/reference/errors.md) shows
//! it: one row per way a refusal can be made, with example values, each taken through
//! [`Refusal::row`] so the page cannot disagree with what a client gets.

use crate::content::guard::ContentRefusal;
use crate::guards::schema_cap::TooLarge;
use crate::pipeline::refusal::{NotConfirmed, Refusal, Reply, UpstreamFailure};
use crate::validate::ArgErrors;

/// One row of the refusal table, with example values, as the book's generated reference
/// (docs/src/reference/errors.md) shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusalRow {
    /// When the harness refuses so.
    pub when: &'static str,
    /// The envelope's `error_code`, and the audit record's.
    pub code: &'static str,
    /// The audit outcome.
    pub outcome: &'static str,
    /// How it reaches the client.
    pub reply: &'static str,
    /// The message the model reads, for the example values.
    pub message: String,
}

/// The validation errors of `{"incident_id": "42"}` against an integer argument.
fn invalid_incident_id() -> ArgErrors {
    use crate::validate::{ArgPath, integer};
    let mut errors = ArgErrors::default();
    let root = ArgPath::Root;
    let _: Option<u32> = integer(
        &serde_json::json!("42"),
        root.field("incident_id"),
        1,
        i64::from(u32::MAX),
        &mut errors,
    );
    errors
}

/// Every row of the refusal table, one per way a refusal can be made, in the table's order.
pub fn refusal_table() -> Vec<RefusalRow> {
    let examples = [
        (
            "the tool's rate limit is spent",
            Refusal::RateLimited(
                "Rate limit exceeded: 3 calls per 60.0s limit reached. Retry after 41.2s.".into(),
            ),
        ),
        (
            "the limit lives in Redis, Redis did not answer within `timeout_ms`, and `when_unreachable = \"refuse\"`",
            Refusal::RateLimitStoreUnavailable,
        ),
        (
            "the tool already runs its `max_concurrent` calls (here 4)",
            Refusal::ToolBusy(4),
        ),
        (
            "the server already has its `[server] max_in_flight` calls in flight (here 256)",
            Refusal::ServerBusy(256),
        ),
        (
            "strict validation of the arguments failed (every problem, each with its field)",
            Refusal::InvalidArguments(invalid_incident_id()),
        ),
        ("the client cancelled the call", Refusal::Cancelled),
        (
            "the body ran past `timeout_ms` (here 5000)",
            Refusal::Timeout(5000),
        ),
        (
            "the body panicked (`catch_unhandled = true`, the default)",
            Refusal::Panic { caught: true },
        ),
        (
            "the body panicked and `catch_unhandled = false`",
            Refusal::Panic { caught: false },
        ),
        (
            "the body's output does not serialize to JSON",
            Refusal::OutputNotJson,
        ),
        (
            "the result held a table and the tabular guard's action is `block`",
            Refusal::TokenStarvation,
        ),
        (
            "binary content over `max_bytes`",
            Refusal::Content(ContentRefusal::TooLarge {
                bytes: 2_000_000,
                max: 1_048_576,
            }),
        ),
        (
            "content of a MIME type outside `mime_types`",
            Refusal::Content(ContentRefusal::MimeNotAllowed("image/svg+xml".into())),
        ),
        (
            "a resource link whose scheme is outside `link_schemes`",
            Refusal::Content(ContentRefusal::SchemeNotAllowed(
                "file:///etc/passwd".into(),
            )),
        ),
        (
            "binary content that is not valid base64 (a body bug)",
            Refusal::Content(ContentRefusal::InvalidBase64("bad".into())),
        ),
        (
            "a declared result no cut within its schema brings under `max_chars`",
            Refusal::ResultTooLarge(TooLarge {
                chars: 5000,
                max: 1500,
                floor: 1800,
            }),
        ),
        (
            "a declared result that does not fit its schema after the guards (a body bug)",
            Refusal::ResultInvalid,
        ),
        (
            "the client named a tool the server does not publish",
            Refusal::UnknownTool("delete_everything".into()),
        ),
        (
            "the request state of an earlier round is altered, expired or sealed for another call",
            Refusal::InvalidRequestState("expired".into()),
        ),
        (
            "`resources/read` of a URI no resource or template has",
            Refusal::UnknownResource("docs://missing".into()),
        ),
        (
            "`prompts/get` or `completion/complete` of a prompt the server does not have",
            Refusal::UnknownPrompt("missing".into()),
        ),
        (
            "a `confirm = true` tool the user declined",
            Refusal::NotConfirmed(NotConfirmed::Declined),
        ),
        (
            "a `confirm = true` tool whose question the user dismissed",
            Refusal::NotConfirmed(NotConfirmed::Cancelled),
        ),
        (
            "a `confirm = true` tool whose client cannot be asked",
            Refusal::NotConfirmed(NotConfirmed::Unavailable),
        ),
        (
            "a `confirm = true` tool whose client did not answer",
            Refusal::NotConfirmed(NotConfirmed::NoAnswer),
        ),
        (
            "an idempotency key already used with other arguments",
            Refusal::IdempotencyKeyReused,
        ),
        (
            "an idempotency key whose first call still runs",
            Refusal::IdempotencyKeyInFlight,
        ),
        (
            "the idempotency store gave no answer (Redis unreachable, or every key in memory running)",
            Refusal::IdempotencyStoreUnavailable,
        ),
        (
            "a gateway's upstream is not connected (not started yet, or exited)",
            Refusal::Upstream(UpstreamFailure::NotConnected),
        ),
        (
            "a gateway's request could not reach its upstream",
            Refusal::Upstream(UpstreamFailure::Unreachable),
        ),
        (
            "a gateway's upstream did not answer within its `timeout_ms` (here 30000)",
            Refusal::Upstream(UpstreamFailure::NoAnswer(Some(30_000))),
        ),
        (
            "a gateway's upstream answered with an error (its text stripped and cut to 2,000 characters), or with something that is not a tool result",
            Refusal::Upstream(UpstreamFailure::Failed(
                "the upstream refused the call: no such file".into(),
            )),
        ),
        (
            "a gateway's upstream returned content the gateway does not carry, so no guard could check it",
            Refusal::Upstream(UpstreamFailure::NotCarried(
                "the upstream returned a kind of content this server does not carry",
            )),
        ),
        (
            "a gateway's upstream changed a definition (a tool's, prompt's, resource's or template's) since it was pinned, and `on_drift` refuses",
            Refusal::Upstream(UpstreamFailure::Drifted { checked: true }),
        ),
        (
            "a gateway's upstream definition could not be compared with its pin (its listing failed), and `on_drift` refuses",
            Refusal::Upstream(UpstreamFailure::Drifted { checked: false }),
        ),
        (
            "the tool runs only as a task (`[tools.task] support = \"required\"`) and the request did not declare the tasks extension",
            Refusal::TaskRequired,
        ),
        (
            "the tool already has its `[tools.task] max_alive` tasks alive (here 16)",
            Refusal::TooManyTasks(16),
        ),
        (
            "a task's body was still running when its `ttl_ms` (here 300000) ran out: the task reads `failed` with this error",
            Refusal::TaskExpired(300_000),
        ),
        (
            "a tool keeps its tasks in Redis (`[tools.task] store = \"redis\"`) and Redis did not answer within `[rate_limit_store] timeout_ms`",
            Refusal::TaskStoreUnavailable,
        ),
    ];
    examples
        .into_iter()
        .map(|(when, refusal)| {
            let row = refusal.row();
            RefusalRow {
                when,
                code: row.code,
                outcome: row.outcome.as_str(),
                reply: match row.reply {
                    Reply::Envelope => "error envelope (`isError: true`)",
                    Reply::InternalError => "JSON-RPC error -32603",
                    Reply::InvalidParams => "JSON-RPC error -32602",
                    Reply::ResourceNotFound => "JSON-RPC error -32002 (-32602 on 2026-07-28)",
                    Reply::TasksRequired => "JSON-RPC error -32021 (the tasks extension)",
                },
                message: row.message.into_owned(),
            }
        })
        .collect()
}
