//! Guard policies: the checks on `[defaults.guards]` and each tool's `guards`, and their
//! resolution (the tool's own keys over the defaults over the built-in defaults).

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{
    self, Guards, RateLimitBackend, RateLimitScope, RedactPattern, StoreUnreachable, TabularAction,
};
use crate::manifest_path::ManifestPath;
use crate::model::names::is_env_var_name;

/// The resolved guard policy of one tool: its own `guards` over `[defaults.guards]` over
/// the built-in defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardPolicy {
    /// Sliding-window rate limit.
    pub rate_limit: Option<RateLimitPolicy>,
    /// Body time limit.
    pub timeout_ms: Option<u64>,
    /// Bodies running at once.
    pub max_concurrent: Option<u32>,
    /// Panics become an envelope (true) or a JSON-RPC error (false).
    pub catch_unhandled: bool,
    /// `(max_rows, action)`.
    pub tabular: Option<(u64, TabularAction)>,
    /// Lines kept per string.
    pub max_lines: Option<u64>,
    /// Strip tag blocks.
    pub strip_xml: bool,
    /// Redact secrets.
    pub redact_secrets: bool,
    /// Patterns redacted besides the built-in kinds: `[defaults.guards]`'s, then the tool's.
    pub redact_patterns: Vec<RedactPattern>,
    /// Characters of output.
    pub max_chars: Option<u64>,
    /// Decoded bytes of binary content per result.
    pub max_bytes: u64,
    /// MIME types content may carry, lowercase.
    pub mime_types: Vec<String>,
    /// URI schemes resource links may point to, lowercase.
    pub link_schemes: Vec<String>,
}

/// A tool's resolved rate limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimitPolicy {
    /// Calls admitted in any window.
    pub calls: u32,
    /// Window length in seconds.
    pub period_seconds: f64,
    /// Where the window lives: the limit's own `backend`, else the store's.
    pub backend: RateLimitBackend,
    /// Whom it counts.
    pub per: RateLimitScope,
}

/// The validated `[rate_limit_store]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimitStoreModel {
    /// The environment variable holding the Redis URL.
    pub url_env: String,
    /// Longest wait for Redis per call (milliseconds).
    pub timeout_ms: u64,
    /// Refuse or admit while Redis is unreachable.
    pub when_unreachable: StoreUnreachable,
    /// Prefix of every key.
    pub key_prefix: String,
}

/// Longest `[rate_limit_store] timeout_ms`: a rate-limit check must never hold a call longer.
const MAX_STORE_TIMEOUT_MS: u64 = 10_000;

pub use harness_contract::guards::{
    DEFAULT_MAX_BYTES, DEFAULT_MIME_TYPES, DEFAULT_REDACT_SECRETS, DEFAULT_TABULAR, MIN_MAX_CHARS,
};

/// Largest `max_concurrent` and `[server] max_in_flight`: more calls at once than one
/// process serves (each holds a task, and over HTTP a connection), so a typo rather than a
/// bound.
pub(crate) const MAX_CALLS_AT_ONCE: u32 = 100_000;

/// Checks a bound on calls at once (`max_concurrent`, `max_in_flight`) at `at`.
pub(crate) fn check_calls_at_once(
    key: &str,
    value: Option<u32>,
    at: ManifestPath,
    errors: &ErrorSink<'_>,
) {
    match value {
        Some(0) => errors.report(
            Diagnostic::value(at, format!("{key} must be at least 1"))
                .label("zero")
                .help("a zero bound would refuse every call; remove the key to have no bound"),
        ),
        Some(max) if max > MAX_CALLS_AT_ONCE => errors.report(
            Diagnostic::value(
                at,
                format!("{key} {max} is more calls at once than one process serves"),
            )
            .label("too large")
            .help(format!(
                "use at most {MAX_CALLS_AT_ONCE}, or remove the key to have no bound"
            )),
        ),
        _ => {}
    }
}

/// Checks guard values that no type can rule out.
pub(crate) fn check_guards(guards: &Guards, path: &ManifestPath, errors: &ErrorSink<'_>) {
    check_calls_at_once(
        "max_concurrent",
        guards.max_concurrent,
        path.key("max_concurrent"),
        errors,
    );
    let positive = [
        ("max_lines", guards.max_lines),
        ("timeout_ms", guards.timeout_ms),
        ("max_bytes", guards.max_bytes),
        (
            "tabular.max_rows",
            guards.tabular.map(|tabular| tabular.max_rows),
        ),
    ];
    for (key, value) in positive {
        if value == Some(0) {
            let at = key.split('.').fold(path.clone(), |at, part| at.key(part));
            errors.report(
                Diagnostic::value(at, format!("{key} must be at least 1"))
                    .label("zero")
                    .help(if key == "max_bytes" {
                        "a zero limit would refuse every binary block; remove the key for the default of 1 MiB"
                    } else {
                        "a zero limit would refuse every call; remove the key to have no limit"
                    }),
            );
        }
    }
    if let Some(max_chars) = guards.max_chars.filter(|max| *max < MIN_MAX_CHARS) {
        errors.report(
            Diagnostic::value(
                path.key("max_chars"),
                format!("max_chars {max_chars} leaves no room for the truncation marker"),
            )
            .label("too small")
            .help(format!("use at least {MIN_MAX_CHARS}")),
        );
    }
    for (index, mime) in guards.mime_types.iter().flatten().enumerate() {
        if !is_mime_essence(mime) {
            errors.report(
                Diagnostic::value(path.key("mime_types").index(index), format!("`{mime}` is not a MIME type"))
                    .label("not lowercase `type/subtype`")
                    .help("for example \"image/png\"; parameters such as `; charset=utf-8` are ignored when content is checked, so leave them out"),
            );
        }
    }
    for (index, scheme) in guards.link_schemes.iter().flatten().enumerate() {
        if !is_uri_scheme(scheme) {
            errors.report(
                Diagnostic::value(path.key("link_schemes").index(index), format!("`{scheme}` is not a URI scheme"))
                    .label("not a lowercase scheme")
                    .help("a letter, then letters, digits, `+`, `-` or `.`, without `:`; for example \"https\""),
            );
        }
    }
    for (index, pattern) in guards.redact_patterns.iter().flatten().enumerate() {
        check_redact_pattern(pattern, &path.key("redact_patterns").index(index), errors);
    }
    if let Some(limit) = guards.rate_limit {
        let limit_path = path.key("rate_limit");
        if limit.calls == 0 {
            errors.report(
                Diagnostic::value(
                    limit_path.key("calls"),
                    "rate_limit.calls must be at least 1",
                )
                .label("zero")
                .help("remove rate_limit to have no limit"),
            );
        }
        let period = limit.period_seconds.as_f64();
        if !(period > 0.0 && period <= 86_400.0 * 366.0) {
            errors.report(
                Diagnostic::value(
                    limit_path.key("period_seconds"),
                    "rate_limit.period_seconds must be positive and at most a year",
                )
                .label("out of range")
                .help("for example period_seconds = 60"),
            );
        }
    }
}

/// Longest kind name of an added redaction pattern.
const MAX_KIND_LEN: usize = 64;

/// Checks one added redaction pattern: its kind a snake_case name, its pattern a regular
/// expression that compiles, has no named groups (the runtime joins every pattern into one
/// alternation, where names would clash) and cannot match the empty string (which would
/// put a marker between every two characters).
fn check_redact_pattern(pattern: &RedactPattern, path: &ManifestPath, errors: &ErrorSink<'_>) {
    let kind = &pattern.kind;
    let snake_case = kind.len() <= MAX_KIND_LEN
        && kind.starts_with(|c: char| c.is_ascii_lowercase())
        && kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !snake_case {
        errors.report(
            Diagnostic::value(path.key("kind"), format!("`{kind}` is not a snake_case kind"))
                .label("not snake_case")
                .help(format!("a lowercase letter, then lowercase letters, digits and `_`, at most {MAX_KIND_LEN} characters; the marker reads `[REDACTED:<kind>]`, e.g. kind = \"vault_token\"")),
        );
    }
    let at = path.key("pattern");
    let help = "use the syntax of the `regex` crate (no look-around or back-references); it runs in linear time";
    let regex = match regex::Regex::new(&pattern.pattern) {
        Ok(regex) => regex,
        Err(error) => {
            let reason = error.to_string();
            let reason = reason.lines().last().unwrap_or("invalid").trim().to_owned();
            errors.report(
                Diagnostic::value(at, format!("redaction pattern does not compile: {reason}"))
                    .label("invalid regular expression")
                    .help(help),
            );
            return;
        }
    };
    if let Some(name) = regex.capture_names().flatten().next() {
        errors.report(
            Diagnostic::value(at, format!("redaction pattern has a named group `{name}`"))
                .label("named group")
                .help("use an unnamed group `(...)` around the part to redact, or `(?:...)` to group without capturing"),
        );
        return;
    }
    let empty = regex_syntax::parse(&pattern.pattern)
        .ok()
        .and_then(|hir| hir.properties().minimum_len())
        == Some(0);
    if empty {
        errors.report(
            Diagnostic::value(at, "redaction pattern can match the empty string")
                .label("matches nothing as well as something")
                .help("make every match at least one character long, e.g. `+` instead of `*`"),
        );
    }
}

/// Whether `mime` is a lowercase `type/subtype` without parameters.
fn is_mime_essence(mime: &str) -> bool {
    let token = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$&^_.+-".contains(&b))
    };
    mime.split_once('/')
        .is_some_and(|(kind, subtype)| token(kind) && token(subtype))
}

/// Whether `scheme` is a lowercase URI scheme (RFC 3986, section 3.1).
pub(crate) fn is_uri_scheme(scheme: &str) -> bool {
    let mut bytes = scheme.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+-.".contains(&b))
}

/// Checks `[rate_limit_store]`.
pub(crate) fn rate_limit_store(
    store: &manifest::RateLimitStore,
    errors: &ErrorSink<'_>,
) -> RateLimitStoreModel {
    let path = ManifestPath::root().key("rate_limit_store");
    if !is_env_var_name(&store.url_env) {
        errors.report(
            Diagnostic::value(path.key("url_env"), format!("`{}` is not an environment variable name", store.url_env))
                .label("name the variable, not the URL")
                .help("use uppercase letters, digits and `_`, e.g. \"HARNESS_REDIS_URL\"; a Redis URL may carry a password and never goes in the manifest"),
        );
    }
    if !(1..=MAX_STORE_TIMEOUT_MS).contains(&store.timeout_ms) {
        errors.report(
            Diagnostic::value(
                path.key("timeout_ms"),
                format!("timeout_ms must be between 1 and {MAX_STORE_TIMEOUT_MS}"),
            )
            .label("out of range")
            .help("every rate-limited call waits at most this long for Redis; 250 is the default"),
        );
    }
    let key_prefix_ok = !store.key_prefix.is_empty()
        && store
            .key_prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'));
    if !key_prefix_ok {
        errors.report(
            Diagnostic::value(
                path.key("key_prefix"),
                "key_prefix is not a plain key prefix",
            )
            .label("empty, or a character besides letters, digits, `_`, `-`, `:` and `.`")
            .help("for example key_prefix = \"harness\""),
        );
    }
    RateLimitStoreModel {
        url_env: store.url_env.clone(),
        timeout_ms: store.timeout_ms,
        when_unreachable: store.when_unreachable,
        key_prefix: store.key_prefix.clone(),
    }
}

/// What a tool's guards resolve over.
pub(crate) struct GuardDefaults<'a> {
    /// `[defaults.guards]`.
    pub(crate) guards: &'a Guards,
    /// `[rate_limit_store] backend`: a rate limit naming no backend takes it.
    pub(crate) store_backend: RateLimitBackend,
    /// The URI schemes of the manifest's own resources: where resource links may point
    /// unless the guards say otherwise.
    pub(crate) resource_schemes: Vec<String>,
}

impl GuardDefaults<'_> {
    /// A tool's guards over the manifest defaults over the built-in defaults.
    pub(crate) fn resolve(&self, tool: &Guards) -> GuardPolicy {
        resolve_guards(
            tool,
            self.guards,
            self.store_backend,
            &self.resource_schemes,
        )
    }
}

fn resolve_guards(
    tool: &Guards,
    defaults: &Guards,
    store_backend: RateLimitBackend,
    resource_schemes: &[String],
) -> GuardPolicy {
    GuardPolicy {
        rate_limit: tool
            .rate_limit
            .or(defaults.rate_limit)
            .map(|limit| RateLimitPolicy {
                calls: limit.calls,
                period_seconds: limit.period_seconds.as_f64(),
                backend: limit.backend.unwrap_or(store_backend),
                per: limit.per,
            }),
        timeout_ms: tool.timeout_ms.or(defaults.timeout_ms),
        max_concurrent: tool.max_concurrent.or(defaults.max_concurrent),
        catch_unhandled: tool
            .catch_unhandled
            .or(defaults.catch_unhandled)
            .unwrap_or(true),
        tabular: match tool.tabular.or(defaults.tabular) {
            Some(tabular) => Some((tabular.max_rows, tabular.action)),
            None => Some(DEFAULT_TABULAR),
        },
        max_lines: tool.max_lines.or(defaults.max_lines),
        strip_xml: tool.strip_xml.or(defaults.strip_xml).unwrap_or(true),
        redact_secrets: tool
            .redact_secrets
            .or(defaults.redact_secrets)
            .unwrap_or(DEFAULT_REDACT_SECRETS),
        redact_patterns: defaults
            .redact_patterns
            .iter()
            .chain(&tool.redact_patterns)
            .flatten()
            .cloned()
            .collect(),
        max_chars: tool.max_chars.or(defaults.max_chars),
        max_bytes: tool
            .max_bytes
            .or(defaults.max_bytes)
            .unwrap_or(DEFAULT_MAX_BYTES),
        mime_types: tool
            .mime_types
            .as_ref()
            .or(defaults.mime_types.as_ref())
            .cloned()
            .unwrap_or_else(|| {
                DEFAULT_MIME_TYPES
                    .iter()
                    .map(|&mime| mime.to_owned())
                    .collect()
            }),
        link_schemes: tool
            .link_schemes
            .as_ref()
            .or(defaults.link_schemes.as_ref())
            .cloned()
            .unwrap_or_else(|| resource_schemes.to_vec()),
    }
}
