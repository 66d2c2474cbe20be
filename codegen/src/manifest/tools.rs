//! The tool tables: `[defaults]` and the guards every tool inherits, and each `[[tools]]` entry
//! with its arguments and declared results.

use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;

use harness_contract::{RateLimitBackend, RateLimitScope, TabularAction, TaskSupport};

/// The `[defaults]` table.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Defaults {
    /// Guard policies every tool inherits; a tool's own `guards` override them key by key.
    #[serde(default)]
    pub guards: Guards,
}

/// Guard policies at the tool boundary, applied to every call in a fixed order.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Guards {
    /// Characters of output the model reads (counted after redaction); longer output is cut,
    /// keeping JSON valid.
    pub max_chars: Option<u64>,
    /// Lines kept per string of output.
    pub max_lines: Option<u64>,
    /// Strip `<TAG>...</TAG>` blocks from output (default true). Control, ANSI, bidi and
    /// zero-width characters are always stripped.
    pub strip_xml: Option<bool>,
    /// Replace secrets in everything the model reads (results, error messages, log and
    /// progress messages, sampled replies) by `[REDACTED:<kind>]` (default true): cloud keys,
    /// GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic and npm tokens, private-key blocks,
    /// JWTs, `Authorization` values and passwords in URLs. `false` opts a tool out.
    pub redact_secrets: Option<bool>,
    /// Patterns redacted besides the built-in kinds, each match replaced by
    /// `[REDACTED:<kind>]` (only its first capture group, when it has groups); a tool's own
    /// are added to those of `[defaults.guards]`.
    pub redact_patterns: Option<Vec<RedactPattern>>,
    /// Answer a panicking body with an `InternalError` envelope (default true) rather than a
    /// JSON-RPC internal error; the call is answered either way.
    pub catch_unhandled: Option<bool>,
    /// Sliding-window rate limit; refused calls never reach the body.
    pub rate_limit: Option<RateLimit>,
    /// Time limit of the body in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Calls of this tool whose body runs at once in this process (1 to 100000); one more is
    /// refused at once with `ToolBusy`, not queued. A place is given back when the body ends,
    /// times out, panics or is cancelled.
    pub max_concurrent: Option<u32>,
    /// Table blockade: an array of at least `max_rows` objects is refused or summarized.
    pub tabular: Option<Tabular>,
    /// Decoded bytes of binary content (images, audio, embedded blobs) one result may carry
    /// (default 1 MiB); more is refused with `OutputTooLarge`.
    pub max_bytes: Option<u64>,
    /// MIME types content blocks may carry (default: PNG, JPEG, GIF and WebP images, WAV,
    /// MPEG and Ogg audio, plain text, Markdown, CSV and JSON); others are refused with
    /// `ContentNotAllowed`.
    pub mime_types: Option<Vec<String>>,
    /// URI schemes resource links may point to (default: the schemes of the manifest's own
    /// resources); others are refused with `ContentNotAllowed`.
    pub link_schemes: Option<Vec<String>>,
}

/// `{ kind = "vault_token", pattern = "hvs\\.[A-Za-z0-9]{24,}" }`: a pattern redaction adds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RedactPattern {
    /// The kind the marker names, in snake_case: `[REDACTED:<kind>]`.
    pub kind: String,
    /// A regular expression in the `regex` crate's syntax (linear time: no look-around or
    /// back-references; no named groups); it must not match the empty string.
    pub pattern: String,
}

/// `rate_limit = { calls = 10, period_seconds = 60 }`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RateLimit {
    /// Calls admitted in any window.
    pub calls: u32,
    /// Window length in seconds.
    pub period_seconds: Number,
    /// Where this limit's window lives (default: `[rate_limit_store] backend`).
    pub backend: Option<RateLimitBackend>,
    /// Whom it counts: `tool` (default; every caller together) or `subject` (each token
    /// subject apart; needs `[auth]`).
    #[serde(default)]
    pub per: RateLimitScope,
}

/// `tabular = { max_rows = 50, action = "block" }`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Tabular {
    /// An array of at least this many objects is a table.
    pub max_rows: u64,
    /// What to do with a table (default `block`).
    #[serde(default)]
    pub action: TabularAction,
}

/// One `[[tools]]` entry.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Tool {
    /// The MCP tool name: letters, digits, `_`, `-` and `.`; its body lives in
    /// `src/tools/<name in snake_case>.rs`.
    pub name: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// What the tool does, for the model.
    pub description: String,
    /// Behaviour hints published in `tools/list` (hints, not permissions).
    #[serde(default)]
    pub annotations: Annotations,
    /// Guard policies of this tool, overriding `[defaults.guards]` key by key.
    #[serde(default)]
    pub guards: Guards,
    /// Ask the user through elicitation before every call's body runs: the tool's name and
    /// its arguments, yes or no (default false). Declined, cancelled, or a client that cannot
    /// be asked refuses the call with `NotConfirmed`; the body never runs. Needs `[server]
    /// request_state_key_env`, which carries the question across a 2026-07-28 call's rounds.
    pub confirm: Option<bool>,
    /// The required string argument holding an idempotency key: a repeated key within the
    /// window gets the first call's reply again without the body running; the same key with
    /// other arguments is refused (`IdempotencyKeyReused`), as is one whose first call still
    /// runs (`IdempotencyKeyInFlight`). Kept in memory, or in Redis with `[rate_limit_store]
    /// backend = "redis"`, so replicas agree.
    pub idempotency_key: Option<String>,
    /// How long an idempotency key is remembered, in seconds (default 86400, a day; at most
    /// 30 days).
    pub idempotency_window_seconds: Option<u64>,
    /// The tool's arguments, in order.
    #[serde(default)]
    pub arguments: Vec<Argument>,
    /// The fields of the tool's result, in order, in the grammar of `arguments` (no
    /// `default`): the body returns the generated `<Tool>Result`, `tools/list` publishes its
    /// outputSchema, and every result is held to it after the guards.
    #[serde(default)]
    pub results: Vec<Argument>,
    /// The `[[upstreams]]` entry that serves this tool (it then has no body of its own).
    pub upstream: Option<String>,
    /// The upstream's own name for the tool, where the manifest renames or namespaces it
    /// (default: `name`).
    pub upstream_tool: Option<String>,
    /// An upstream tool's inputSchema kept whole in a file beside the manifest (e.g.
    /// `schemas/<tool>.json`), enforced by a JSON Schema 2020-12 validator, for a schema the
    /// argument grammar cannot say; instead of `arguments`.
    pub input_schema: Option<String>,
    /// sha256 of the upstream definition this tool was pinned from (`harness-codegen import`
    /// writes it): the canonical JSON of its name, description, input and output schema and
    /// annotations.
    pub pin_sha256: Option<String>,
    /// OAuth scopes a `tools/call` of this tool needs beyond `[auth] required_scopes`; a
    /// token without one is answered 403 `insufficient_scope` naming it. Needs `[auth]`.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Forms the body may put to the user (`ctx.ask::<Form>()`), each answered through
    /// elicitation and validated by a generated strict validator before the body sees it.
    #[serde(default)]
    pub forms: Vec<Form>,
    /// Whether a call becomes a task (the tasks extension, `io.modelcontextprotocol/tasks`):
    /// the client gets a handle at once and polls for the result while the body runs on,
    /// under every guard an inline call has. Without the table every call is answered inline.
    pub task: Option<TaskTable>,
}

/// `[tools.task]`: a tool's calls as tasks, for a body that runs longer than a client waits.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct TaskTable {
    /// `optional`: a task for a request that declares the extension, inline for any other;
    /// `required`: always a task, and a request that does not declare the extension is
    /// refused (-32021) before anything runs; `forbidden`: never a task.
    pub support: TaskSupport,
    /// How long a task lives from its creation, in milliseconds (default 300000, five
    /// minutes; 1000 to 86400000): a body still running then is stopped and the task reads
    /// `failed` (audited `expired`); a finished task is forgotten after it.
    pub ttl_ms: Option<u64>,
    /// The poll interval suggested to clients, in milliseconds (default 1000; 100 to 60000).
    pub poll_interval_ms: Option<u64>,
    /// How many of this tool's tasks may be alive (working or waiting for input) at once
    /// (default 16; at most 10000); past it a call is refused (`ToolBusy`), not queued.
    pub max_alive: Option<u32>,
    /// Keys of this tool's `[[tools.forms]]` asked before the task is created, as
    /// input-required rounds of the call itself; the body reads the answers with
    /// `ctx.ask::<Form>()` as if it asked them.
    #[serde(default)]
    pub ask_first: Vec<String>,
    /// Where the tool's tasks live: `memory` (this process; a task is read from the replica
    /// that runs it) or `redis` (shared by every replica on `[rate_limit_store]`'s Redis: any
    /// replica answers `tasks/get`, `tasks/update` and `tasks/cancel`). Default:
    /// `[rate_limit_store] backend`, so a server whose limits are shared shares its tasks too.
    pub store: Option<RateLimitBackend>,
    /// With `store = "redis"`: how long a task stays alive without its replica renewing it, in
    /// milliseconds (default 30000; 1000 to 600000). A replica that dies leaves its tasks
    /// `failed` this long after it stopped.
    pub lease_ms: Option<u64>,
}

/// A form a tool's body puts to the user: the generated `<Tool><Key>Form` type, its
/// elicitation schema and its strict validator.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Form {
    /// The question's key, unique within the tool (`snake_case`; it names the input request
    /// of a 2026-07-28 input-required result).
    pub key: String,
    /// What the user is asked.
    pub message: String,
    /// The form's fields in the grammar of arguments: `string` (no `pattern`: clients cannot
    /// show one), `integer`, `number`, `boolean` or `enum`, flat as elicitation requires.
    pub fields: Vec<Argument>,
}

/// MCP tool annotations.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Annotations {
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only: Option<bool>,
    /// `destructiveHint`: the tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// `idempotentHint`: repeating a call with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// `openWorldHint`: the tool interacts with an open world of external entities.
    pub open_world: Option<bool>,
}

/// The type of an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArgType {
    /// A JSON string.
    String,
    /// A JSON integer (strict: no strings, booleans or fractions).
    Integer,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// One of the strings listed in `values`.
    Enum,
    /// An array of scalars described by `items`.
    Array,
    /// A nested object described by `fields`.
    Object,
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArgType::String => "string",
            ArgType::Integer => "integer",
            ArgType::Number => "number",
            ArgType::Boolean => "boolean",
            ArgType::Enum => "enum",
            ArgType::Array => "array",
            ArgType::Object => "object",
        })
    }
}

/// A numeric bound as written in the manifest: an integer or a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// Written as a TOML integer.
    Integer(i64),
    /// Written as a TOML float.
    Float(f64),
}

impl Number {
    /// The value as a float.
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Integer(value) => value as f64,
            Number::Float(value) => value,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Integer(value) => write!(f, "{value}"),
            Number::Float(value) => write!(f, "{value:?}"),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NumberVisitor;
        impl serde::de::Visitor<'_> for NumberVisitor {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Number, E> {
                Ok(Number::Integer(value))
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Number, E> {
                i64::try_from(value)
                    .map(Number::Integer)
                    .map_err(|_| E::custom("integer is larger than i64::MAX"))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Number, E> {
                if value.is_finite() {
                    Ok(Number::Float(value))
                } else {
                    Err(E::custom("a bound must be a finite number"))
                }
            }
        }
        deserializer.deserialize_any(NumberVisitor)
    }
}

impl JsonSchema for Number {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Number".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "number" })
    }
}

/// One argument of a tool, one field of its declared result, or one field of an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Argument {
    /// The JSON property name.
    pub name: String,
    /// The argument's type.
    #[serde(rename = "type")]
    pub ty: ArgType,
    /// What the argument means, for the model.
    pub description: Option<String>,
    /// Whether the argument must be given; true unless a `default` is given.
    pub required: Option<bool>,
    /// The value used when the argument is absent (makes it optional).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    pub default: Option<toml::Value>,
    /// Enum members (type `enum`).
    pub values: Option<Vec<String>>,
    /// Inclusive lower bound (integer, number).
    pub minimum: Option<Number>,
    /// Inclusive upper bound (integer, number).
    pub maximum: Option<Number>,
    /// Exclusive lower bound (integer, number).
    pub exclusive_minimum: Option<Number>,
    /// Exclusive upper bound (integer, number).
    pub exclusive_maximum: Option<Number>,
    /// Minimum length in Unicode code points (string).
    pub min_length: Option<u64>,
    /// Maximum length in Unicode code points (string).
    pub max_length: Option<u64>,
    /// A regular expression the string must match somewhere (anchor it with `^...$`).
    pub pattern: Option<String>,
    /// Minimum number of items (array).
    pub min_items: Option<u64>,
    /// Maximum number of items (array).
    pub max_items: Option<u64>,
    /// The item type (array): a scalar, an enum or a string with constraints.
    pub items: Option<Items>,
    /// The fields (object).
    pub fields: Option<Vec<Argument>>,
}

/// The items of an array argument: a scalar type with its constraints.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Items {
    /// The item type: string, integer, number, boolean or enum.
    #[serde(rename = "type")]
    pub ty: ArgType,
    /// What an item means.
    pub description: Option<String>,
    /// Enum members (type `enum`).
    pub values: Option<Vec<String>>,
    /// Inclusive lower bound (integer, number).
    pub minimum: Option<Number>,
    /// Inclusive upper bound (integer, number).
    pub maximum: Option<Number>,
    /// Exclusive lower bound (integer, number).
    pub exclusive_minimum: Option<Number>,
    /// Exclusive upper bound (integer, number).
    pub exclusive_maximum: Option<Number>,
    /// Minimum length in Unicode code points (string).
    pub min_length: Option<u64>,
    /// Maximum length in Unicode code points (string).
    pub max_length: Option<u64>,
    /// A regular expression each string must match somewhere.
    pub pattern: Option<String>,
}
