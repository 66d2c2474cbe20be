//! Guard vocabulary the manifest states and the runtime enforces.

use serde::{Deserialize, Serialize};

use crate::enums::contract_enum;

/// What the tabular blockade does with a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TabularAction {
    /// Refuse the result with `TokenStarvationError`.
    #[default]
    Block,
    /// Replace each table with a compact summary.
    Summarize,
}

contract_enum!(TabularAction {
    Block => "block",
    Summarize => "summarize",
});

/// Whom a rate limit counts: every caller of the tool together, or each caller apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RateLimitScope {
    /// One window for the tool, shared by all callers.
    #[default]
    Tool,
    /// One window per token subject (`[auth]`): one caller's flood leaves the others'
    /// allowance alone.
    Subject,
}

contract_enum!(RateLimitScope {
    Tool => "tool",
    Subject => "subject",
});

/// The table blockade every tool has unless the manifest says otherwise: `(max_rows, action)`.
pub const DEFAULT_TABULAR: (u64, TabularAction) = (50, TabularAction::Block);

/// Decoded bytes of binary content one result may carry unless the manifest says otherwise:
/// a screenshot or a short clip, not a video.
pub const DEFAULT_MAX_BYTES: u64 = 1024 * 1024;

/// The MIME types content may carry unless the manifest says otherwise: raster images (no
/// SVG, which is a document that can script), common audio, and plain text formats.
pub const DEFAULT_MIME_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "audio/wav",
    "audio/mpeg",
    "audio/ogg",
    "text/plain",
    "text/markdown",
    "text/csv",
    "application/json",
];

/// Whether secrets are redacted from output unless the manifest says otherwise
/// (`redact_secrets`): on, so a credential a body lets slip never reaches the model.
pub const DEFAULT_REDACT_SECRETS: bool = true;

/// How long an idempotency key is remembered unless the manifest says otherwise
/// (`idempotency_window_seconds`): a day, as Stripe keeps its keys.
pub const DEFAULT_IDEMPOTENCY_WINDOW_SECONDS: u64 = 24 * 60 * 60;

/// The longest idempotency window the manifest may ask for: 30 days.
pub const MAX_IDEMPOTENCY_WINDOW_SECONDS: u64 = 30 * 24 * 60 * 60;

/// Smallest `max_chars` that leaves room for the truncation marker.
pub const MIN_MAX_CHARS: u64 = 64;

/// Where a tool's rate-limit window lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RateLimitBackend {
    /// In this process: each replica keeps its own window.
    #[default]
    Memory,
    /// In Redis: every replica sharing the store shares one exact window.
    Redis,
}

contract_enum!(RateLimitBackend {
    Memory => "memory",
    Redis => "redis",
});

/// What a Redis-backed rate limit does when Redis does not answer in time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StoreUnreachable {
    /// Refuse the call with `RateLimitStoreUnavailable` (outcome `rate_limit_unavailable`):
    /// the limit is never exceeded.
    #[default]
    Refuse,
    /// Admit the call and log a warning: the tool stays available, unlimited while Redis is
    /// down.
    Admit,
}

contract_enum!(StoreUnreachable {
    Refuse => "refuse",
    Admit => "admit",
});

/// `[rate_limit_store]` defaults.
pub mod store_defaults {
    /// The environment variable holding the Redis URL.
    pub const URL_ENV: &str = "HARNESS_REDIS_URL";
    /// Longest wait for Redis per call, connecting included (milliseconds).
    pub const TIMEOUT_MS: u64 = 250;
    /// Prefix of every key; the server and tool names follow it.
    pub const KEY_PREFIX: &str = "harness";
}
