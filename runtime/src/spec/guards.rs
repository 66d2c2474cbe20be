//! The guards of one tool (or of what resources and prompts return), as the manifest resolves
//! them.

use harness_contract::{RateLimitBackend, RateLimitScope, TabularAction};

/// `rate_limit = { calls, period_seconds, backend }`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimitSpec {
    /// Calls admitted per window.
    pub calls: u32,
    /// Window length in seconds.
    pub period_seconds: f64,
    /// Where the window lives.
    pub backend: RateLimitBackend,
    /// Whom it counts: the tool's callers together, or each subject apart.
    pub per: RateLimitScope,
}

/// `tabular = { max_rows, action }`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TabularSpec {
    /// An array of at least this many objects is a table.
    pub max_rows: u64,
    /// Refuse or summarize.
    pub action: TabularAction,
}

/// A pattern the manifest adds to secret redaction (`[[defaults.guards.redact_patterns]]`):
/// its matches are replaced by `[REDACTED:<kind>]` (only the first capture group that takes
/// part, when the pattern has groups).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RedactPattern {
    /// The kind the marker names (snake_case).
    pub kind: &'static str,
    /// A regular expression in the `regex` crate's syntax.
    pub pattern: &'static str,
}

/// The guards of one tool, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuardSpec {
    /// Sliding-window rate limit.
    pub rate_limit: Option<RateLimitSpec>,
    /// Time limit of the body, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Calls whose body runs at once in this process; one more is refused (`ToolBusy`).
    pub max_concurrent: Option<u32>,
    /// Panics become an `InternalError` envelope (true) or a JSON-RPC internal error (false);
    /// either way the call is answered.
    pub catch_unhandled: bool,
    /// Table blockade.
    pub tabular: Option<TabularSpec>,
    /// Lines kept per string.
    pub max_lines: Option<u64>,
    /// Strip `<TAG>...</TAG>` blocks (hidden characters are always stripped).
    pub strip_xml: bool,
    /// Replace secrets (cloud keys, tokens, private keys, passwords in URLs...) by
    /// `[REDACTED:<kind>]` in everything the model reads.
    pub redact_secrets: bool,
    /// Patterns redacted besides the built-in kinds.
    pub redact_patterns: &'static [RedactPattern],
    /// Characters of output the model reads.
    pub max_chars: Option<u64>,
    /// Decoded bytes of binary content (images, audio, embedded blobs) in one result.
    pub max_bytes: u64,
    /// MIME types content may carry (lowercase `type/subtype`).
    pub mime_types: &'static [&'static str],
    /// URI schemes a resource link may point to (lowercase).
    pub link_schemes: &'static [&'static str],
}

impl GuardSpec {
    /// No guard but the ones that are always on (hidden characters stripped, panics caught),
    /// the ones on by default (secret redaction with the built-in kinds), and the default
    /// content limits.
    pub const NONE: Self = Self {
        rate_limit: None,
        timeout_ms: None,
        max_concurrent: None,
        catch_unhandled: true,
        tabular: None,
        max_lines: None,
        strip_xml: true,
        redact_secrets: harness_contract::guards::DEFAULT_REDACT_SECRETS,
        redact_patterns: &[],
        max_chars: None,
        max_bytes: harness_contract::guards::DEFAULT_MAX_BYTES,
        mime_types: harness_contract::guards::DEFAULT_MIME_TYPES,
        link_schemes: &[],
    };
}
