//! The built-in kinds of secret redaction: each a name, a pattern for the `regex` crate and,
//! where a pattern alone cannot tell a secret from a word, a check on the match. Word
//! boundaries are ASCII ones (`(?-u:\b)`), which the lazy DFA handles on any text; a Unicode
//! one would make it give up on text that is not ASCII.

/// A built-in kind: its name, its pattern, and a check on the secret the pattern alone
/// cannot express.
pub(super) struct Builtin {
    pub(super) kind: &'static str,
    pub(super) pattern: &'static str,
    pub(super) check: Option<fn(&str) -> bool>,
}

/// The built-in patterns, in the order the alternation tries them at one position (the more
/// specific first: `sk-ant-` before `sk-`). Capture groups mark the secret inside a match.
pub(super) const BUILTINS: &[Builtin] = &[
    Builtin {
        // The whole block, from BEGIN through END; an unterminated block to the end of its
        // base64.
        kind: "private_key",
        pattern: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\\\s]*)",
        check: None,
    },
    Builtin {
        kind: "aws_access_key",
        pattern: r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?-u:\b)",
        check: None,
    },
    Builtin {
        // Only where labelled (or beside a key id, above): 40 characters of base64 are too
        // common to redact bare. The label may be followed by `:`, `=` or blanks alone
        // (`aws configure set aws_secret_access_key ...`).
        kind: "aws_secret_key",
        pattern: r#"(?i-u:(?:aws[_-]?)?secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key|aws[_-]?session[_-]?token)(?-u:["']?[ \t]*[:=][ \t]*["']?|[ \t]+)([A-Za-z0-9/+=]{16,})"#,
        check: None,
    },
    Builtin {
        kind: "google_api_key",
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_\-]{35,}",
        check: None,
    },
    Builtin {
        kind: "github_token",
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        check: None,
    },
    Builtin {
        kind: "gitlab_token",
        pattern: r"(?-u:\b)gl(?:pat|dt|rt|ptt|soat|cbt)-[A-Za-z0-9_\-]{20,}",
        check: None,
    },
    Builtin {
        kind: "slack_webhook",
        pattern: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}",
        check: None,
    },
    Builtin {
        kind: "slack_token",
        pattern: r"(?-u:\b)(?:xox[abprs]-[A-Za-z0-9\-]{10,}|xapp-[0-9]-[A-Za-z0-9\-]{10,})",
        check: None,
    },
    Builtin {
        kind: "stripe_key",
        pattern: r"(?-u:\b)[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
        check: None,
    },
    Builtin {
        kind: "anthropic_key",
        pattern: r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}",
        check: None,
    },
    Builtin {
        // Random base62 (an upper-case letter among others), unlike a long kebab-case word or
        // hex after `sk-`.
        kind: "openai_key",
        pattern: r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        check: Some(mixed_classes),
    },
    Builtin {
        kind: "npm_token",
        pattern: r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)",
        check: Some(mixed_classes),
    },
    Builtin {
        // Header and payload are both base64url JSON objects: `{"` encodes as `eyJ`.
        kind: "jwt",
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",
        check: None,
    },
    Builtin {
        // The value after the header name (and its scheme, which stays): with a scheme at
        // least 8 characters, without one at least 16, so prose such as "Authorization:
        // denied" is left.
        kind: "authorization",
        pattern: r#"(?i-u:\b(?:proxy-)?authorization)(?-u:["']?[ \t]*[:=][ \t]*["']?)(?:(?i-u:bearer|basic|token|digest|negotiate|ntlm|apikey|api-key)[ \t]+([A-Za-z0-9._~+/=\-]{8,})|([A-Za-z0-9._~+/=\-]{16,}))"#,
        check: None,
    },
    Builtin {
        // `scheme://user:PASSWORD@host`: the password only (it may hold `@`; the last one
        // before the host ends it). RFC 3986 allows no `[` or `]` in it unencoded, which
        // keeps a marker out of it.
        kind: "url_password",
        pattern: r#"://[^\s:/?#@\[\]"'<>]*:([^\s/?#@\[\]"'<>][^\s/?#\[\]"'<>]*)@"#,
        check: None,
    },
];

/// The built-in patterns found beside something else: a secret key beside its key id's
/// marker, a value beside the name of its field. They are a second alternation, scanned
/// after the first and only in a text that holds one of [`BESIDE_ANCHORS`]: in the first,
/// their alternatives (which start with no literal, or a common word) cost every text a scan
/// at a third of the speed (`cargo bench -p harness-bench --bench redact`).
pub(super) const BESIDE: &[Builtin] = &[
    Builtin {
        // A secret access key beside its key id, unlabelled (a credentials CSV, a command
        // line, `id secret` columns): the 40 characters after the id, across a separator and
        // at most one short label. Anchored on the id's marker, so it applies once the id is
        // redacted, and a refused match (a hex hash beside an id: upper and lower case are
        // both required) costs the id nothing.
        kind: "aws_secret_key",
        pattern: r#"\[REDACTED:aws_access_key\][ \t\r\n,;:=|"'`]{1,6}(?:-{0,2}[A-Za-z][A-Za-z_\-]{0,31}[ \t,;:=|"'`]{1,6})?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)"#,
        check: Some(upper_and_lower),
    },
    Builtin {
        // The value of a field whose name says it holds the secret half of a pair: a client
        // or app secret, a secret key, a storage account key, a password (`DB_PASSWORD=`,
        // `"client_secret": "..."`, `AccountKey=` in a connection string), after the other
        // kinds had theirs. The names are spelled in their three casings (`secret`, `Secret`,
        // `SECRET`...), as [`BESIDE_ANCHORS`] finds them. A value must hold a
        // letter and a digit, so `password: required`, `secret: true`, placeholders
        // (`REPLACE_ME`, `${DB_PASSWORD}`, `<from vault>`, `********`) and markers are left.
        kind: "labelled_secret",
        pattern: r#"(?:(?:[cC]lient|CLIENT|[aA]pp|APP|[aA]pi|API)[_\-]?(?:[sS]ecret|SECRET)|(?:[sS]ecret|SECRET)(?:[_\-]?(?:[kK]ey|KEY))?|(?:[aA]ccount|ACCOUNT)[_\-]?(?:[kK]ey|KEY)|(?:[sS]hared|SHARED)[_\-]?(?:[aA]ccess|ACCESS)[_\-]?(?:[kK]ey|KEY)|[pP]assw(?:or)?d|PASSW(?:OR)?D)(?-u:["']?[ \t]*[:=][ \t]*["']?)([A-Za-z0-9!#%+./:=?@^_|~\-]{8,})"#,
        check: Some(letter_and_digit),
    },
];

/// Literals one of which every match of [`BESIDE`] holds: the key id's marker, and the stems
/// of the field names in their casings.
pub(super) const BESIDE_ANCHORS: &str =
    r"\[REDACTED:aws_access_key\]|ecret|ECRET|assw|ASSW|ccount|CCOUNT|hared|HARED";

/// The kinds the built-in patterns redact, each replaced by `[REDACTED:<kind>]`, in the
/// order their first pattern is tried (the built-in patterns, then those beside their
/// anchors).
pub const KINDS: &[&str] = &[
    "private_key",
    "aws_access_key",
    "aws_secret_key",
    "google_api_key",
    "github_token",
    "gitlab_token",
    "slack_webhook",
    "slack_token",
    "stripe_key",
    "anthropic_key",
    "openai_key",
    "npm_token",
    "jwt",
    "authorization",
    "url_password",
    "labelled_secret",
];

/// True when the text after a token's prefix looks like random base62: an upper-case letter
/// and a lower-case letter or digit. Words, kebab-case names and hex are lower case; 36
/// random base62 characters lack an upper-case letter once in 300 million.
fn mixed_classes(secret: &str) -> bool {
    let body = secret
        .split_once(['-', '_'])
        .map_or(secret, |(_, body)| body);
    let upper = body.bytes().any(|b| b.is_ascii_uppercase());
    let other = body
        .bytes()
        .any(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    upper && other
}

/// True when `secret` holds an upper-case and a lower-case letter: random base64 does, a hex
/// hash or an upper-case identifier does not.
fn upper_and_lower(secret: &str) -> bool {
    secret.bytes().any(|b| b.is_ascii_uppercase()) && secret.bytes().any(|b| b.is_ascii_lowercase())
}

/// True when `secret` holds a letter and a digit: generated secrets and most passwords do,
/// the words and placeholders a field's value is in prose do not.
fn letter_and_digit(secret: &str) -> bool {
    secret.bytes().any(|b| b.is_ascii_alphabetic()) && secret.bytes().any(|b| b.is_ascii_digit())
}
