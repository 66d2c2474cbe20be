//! The audit record: its fields, the outcomes the harness writes, and when it reaches disk.

use serde::{Deserialize, Serialize};

use crate::enums::contract_enum;

/// The fields every record has, sorted; `trace_id` and `error_code` are optional additions.
/// The writer emits exactly these and the verifier refuses a record without them.
pub const RECORD_FIELDS: [&str; 7] = [
    "args_sha256",
    "call_id",
    "duration_ms",
    "outcome",
    "schema_version",
    "timestamp",
    "tool",
];

/// The outcomes the harness itself records; tool bodies may add their own with
/// `ToolError::with_outcome`, which the manifest then lists in `[audit] outcomes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HarnessOutcome {
    /// The body returned a result that passed every output guard.
    Ok,
    /// The body returned `ToolError::not_found`.
    NotFound,
    /// The arguments failed validation; the body never ran.
    InvalidArguments,
    /// The rate limit refused the call; the body never ran.
    RateLimited,
    /// The rate limit's shared store did not answer and the manifest says refuse; the body
    /// never ran.
    RateLimitUnavailable,
    /// The body ran past `timeout_ms`.
    Timeout,
    /// The body panicked.
    Panic,
    /// The body returned any other `ToolError`.
    Error,
    /// The client cancelled the call.
    Cancelled,
    /// An output guard refused the result: the tabular blockade, or content over `max_bytes`
    /// or outside the MIME and URI-scheme allowlists.
    Blocked,
    /// The client named a tool the server does not have.
    UnknownTool,
    /// The call ended asking the client for input (2026-07-28 input-required result); the
    /// client calls again with the answers.
    InputRequired,
    /// A `confirm = true` tool's confirmation was declined, cancelled, or could not be asked
    /// (the client has no elicitation); the body never ran.
    NotConfirmed,
    /// A repeated idempotency key within its window: the first call's reply was sent again
    /// and the body did not run.
    Replayed,
    /// An idempotency key used again with other arguments, or while its first call still
    /// runs; the body never ran.
    IdempotencyConflict,
    /// The tool already ran its `max_concurrent` calls; the body never ran.
    Busy,
    /// The server already had its `max_in_flight` calls in flight and shed this one; nothing
    /// of it ran.
    Shed,
    /// The call became a task (the tasks extension): the body runs on, and the task's end is
    /// a record of its own with the same `task_id`.
    TaskCreated,
    /// A task outlived its time to live and was stopped; it reads as `failed`.
    Expired,
}

contract_enum!(HarnessOutcome {
    Ok => "ok",
    NotFound => "not_found",
    InvalidArguments => "invalid_arguments",
    RateLimited => "rate_limited",
    RateLimitUnavailable => "rate_limit_unavailable",
    Timeout => "timeout",
    Panic => "panic",
    Error => "error",
    Cancelled => "cancelled",
    Blocked => "blocked",
    UnknownTool => "unknown_tool",
    InputRequired => "input_required",
    NotConfirmed => "not_confirmed",
    Replayed => "replayed",
    IdempotencyConflict => "idempotency_conflict",
    Busy => "busy",
    Shed => "shed",
    TaskCreated => "task_created",
    Expired => "expired",
});

/// When audit records reach the disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FsyncPolicy {
    /// One write per record; the OS flushes it.
    #[default]
    Never,
    /// Flush every record to the disk before replying.
    EveryRecord,
}

contract_enum!(FsyncPolicy {
    Never => "never",
    EveryRecord => "every_record",
});
