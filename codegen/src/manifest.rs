//! Stage 1: the raw serde mirror of harness.toml, and its parser.
//!
//! Unknown keys are collected with `serde_ignored` rather than refused with
//! `deny_unknown_fields`, so a manifest with several stray keys reports all of them at once;
//! the JSON Schema still says `additionalProperties: false` for editors.

use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;
use toml::de::DeTable;

use harness_contract::guards::store_defaults;
use harness_contract::transport::defaults;
pub use harness_contract::{
    FsyncPolicy, RateLimitBackend, StoreUnreachable, TabularAction, TransportKind,
};

use crate::diagnostics::{Diagnostic, ManifestPath};

pub mod bundle;
use crate::source::SourceMap;

/// harness.toml: one hardened MCP tool server and everything around it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields, title = "harness.toml")]
pub struct Manifest {
    /// Who the server says it is during `initialize`.
    pub server: Server,
    /// How `serve` listens unless the command line says otherwise.
    #[serde(default)]
    pub transport: Transport,
    /// Settings every tool inherits.
    #[serde(default)]
    pub defaults: Defaults,
    /// The audit log: one JSON line per call, for every outcome.
    #[serde(default)]
    pub audit: Audit,
    /// Where rate-limit windows live: in this process, or in Redis shared by every replica.
    #[serde(default)]
    pub rate_limit_store: RateLimitStore,
    /// The tools the server publishes, in `tools/list` order.
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// Harbor task metadata; with it, `bundle` writes a Harbor task directory.
    pub task: Option<bundle::Task>,
    /// The environment phase and the main container.
    pub environment: Option<bundle::Environment>,
    /// The agent phase.
    pub agent: Option<bundle::Agent>,
    /// The verifier phase.
    pub verifier: Option<bundle::Verifier>,
    /// The Compose services.
    pub compose: Option<bundle::Compose>,
    /// Skills copied into the main image.
    #[serde(default)]
    pub skills: Vec<bundle::Skill>,
    /// Files Harbor collects after the agent run.
    #[serde(default)]
    pub artifacts: Vec<bundle::Artifact>,
}

/// The `[server]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Server {
    /// Implementation name sent in `serverInfo.name`, e.g. `llmkb-readonly-monitor`.
    pub name: String,
    /// Implementation version sent in `serverInfo.version`.
    pub version: String,
    /// Human-readable display name.
    pub title: Option<String>,
    /// Instructions for the model, sent in the `initialize` result.
    pub instructions: Option<String>,
    /// Publish the built-in read-only tools `health`, `ping` and `diagnostics`.
    #[serde(default = "yes")]
    pub register_builtins: bool,
}

fn yes() -> bool {
    true
}

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
    /// Characters of output the model reads; longer output is cut, keeping JSON valid.
    pub max_chars: Option<u64>,
    /// Lines kept per string of output.
    pub max_lines: Option<u64>,
    /// Strip `<TAG>...</TAG>` blocks from output (default true). Control, ANSI, bidi and
    /// zero-width characters are always stripped.
    pub strip_xml: Option<bool>,
    /// Answer a panicking body with an `InternalError` envelope (default true) rather than a
    /// JSON-RPC internal error; the call is answered either way.
    pub catch_unhandled: Option<bool>,
    /// Sliding-window rate limit; refused calls never reach the body.
    pub rate_limit: Option<RateLimit>,
    /// Time limit of the body in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Table blockade: an array of at least `max_rows` objects is refused or summarized.
    pub tabular: Option<Tabular>,
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
}

/// The `[rate_limit_store]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RateLimitStore {
    /// The backend of every rate limit that names none: `memory` (default; each process keeps
    /// its own window) or `redis` (one exact window shared by every replica).
    #[serde(default)]
    pub backend: RateLimitBackend,
    /// The environment variable holding the Redis URL (`redis://host:6379/0`), read when the
    /// server starts. The URL never goes in the manifest: it may carry a password.
    #[serde(default = "default_store_url_env")]
    pub url_env: String,
    /// Longest wait for Redis per call, connecting included, in milliseconds; past it the
    /// store counts as unreachable.
    #[serde(default = "default_store_timeout_ms")]
    pub timeout_ms: u64,
    /// When Redis is unreachable: `refuse` the call (default; error_code
    /// `RateLimitStoreUnavailable`, outcome `rate_limit_unavailable`) or `admit` it and log.
    #[serde(default)]
    pub when_unreachable: StoreUnreachable,
    /// Prefix of every Redis key; the server and tool names follow it, so servers sharing a
    /// Redis keep separate windows.
    #[serde(default = "default_store_key_prefix")]
    pub key_prefix: String,
}

impl Default for RateLimitStore {
    fn default() -> Self {
        Self {
            backend: RateLimitBackend::default(),
            url_env: default_store_url_env(),
            timeout_ms: default_store_timeout_ms(),
            when_unreachable: StoreUnreachable::default(),
            key_prefix: default_store_key_prefix(),
        }
    }
}

fn default_store_url_env() -> String {
    store_defaults::URL_ENV.to_owned()
}

fn default_store_timeout_ms() -> u64 {
    store_defaults::TIMEOUT_MS
}

fn default_store_key_prefix() -> String {
    store_defaults::KEY_PREFIX.to_owned()
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

/// The `[audit]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Audit {
    /// The JSONL file in the bundle's sidecar, where the verifier collects it; created before
    /// serving. A local `serve` writes under the user's state directory unless `--audit-path`
    /// says otherwise.
    #[serde(default = "default_audit_path")]
    pub path: String,
    /// The `schema_version` of every record.
    #[serde(default = "default_audit_schema_version")]
    pub schema_version: u32,
    /// Optional fields added to the seven every record has: `trace_id`, `error_code`.
    #[serde(default)]
    pub extra_fields: Vec<AuditField>,
    /// When records reach the disk.
    #[serde(default)]
    pub fsync: FsyncPolicy,
    /// Every outcome a record may have (the verifier refuses others); the harness's own
    /// outcomes by default. Add the outcomes your tool bodies set with `with_outcome`.
    pub outcomes: Option<Vec<String>>,
}

impl Default for Audit {
    fn default() -> Self {
        Self {
            path: default_audit_path(),
            schema_version: default_audit_schema_version(),
            extra_fields: Vec::new(),
            fsync: FsyncPolicy::default(),
            outcomes: None,
        }
    }
}

fn default_audit_path() -> String {
    "/var/log/monitor-mcp/audit.jsonl".to_owned()
}

fn default_audit_schema_version() -> u32 {
    1
}

/// An optional audit record field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditField {
    /// The call's trace id.
    TraceId,
    /// The envelope's error code, on failures.
    ErrorCode,
}

/// The `[transport]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Transport {
    /// The default transport of `serve`.
    #[serde(default)]
    pub kind: TransportKind,
    /// Socket address the HTTP transports bind to.
    #[serde(default = "default_bind")]
    pub bind: String,
    /// Path of the MCP endpoint (the legacy SSE transport serves `<path>/sse` and
    /// `<path>/message`).
    #[serde(default = "default_path")]
    pub path: String,
    /// Path answering `GET` with 200 `{"status":"ok"}`.
    #[serde(default = "default_health_path")]
    pub health_path: String,
    /// Streamable HTTP sessions (`Mcp-Session-Id`); false serves each request on its own, so
    /// replicas behind a load balancer need no sticky sessions.
    #[serde(default = "default_stateful")]
    pub stateful: bool,
    /// Stateless streamable HTTP answers with plain JSON rather than an SSE stream.
    #[serde(default)]
    pub json_response: bool,
    /// Largest request body accepted (bytes).
    #[serde(default = "default_max_body")]
    pub max_request_body_bytes: u64,
    /// Seconds between SSE keep-alive comments.
    #[serde(default = "default_keep_alive")]
    pub sse_keep_alive_seconds: u64,
    /// Host names a request's `Host` header may carry (DNS-rebinding protection); loopback
    /// by default.
    #[serde(default = "default_allowed_hosts")]
    pub allowed_hosts: Vec<String>,
    /// Origins (`scheme://host[:port]`) allowed besides those on an allowed host.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Name of the environment variable holding the bearer token; auth is on when set.
    /// The token itself never goes in the manifest.
    pub auth_token_env: Option<String>,
    /// Serve a non-loopback bind without auth (a warning is logged at startup).
    #[serde(default)]
    pub allow_public_bind: bool,
    /// Seconds in-flight calls get to finish after SIGTERM or SIGINT.
    #[serde(default = "default_grace")]
    pub shutdown_grace_seconds: u64,
}

impl Default for Transport {
    fn default() -> Self {
        Self {
            kind: TransportKind::default(),
            bind: default_bind(),
            path: default_path(),
            health_path: default_health_path(),
            stateful: default_stateful(),
            json_response: false,
            max_request_body_bytes: default_max_body(),
            sse_keep_alive_seconds: default_keep_alive(),
            allowed_hosts: default_allowed_hosts(),
            allowed_origins: Vec::new(),
            auth_token_env: None,
            allow_public_bind: false,
            shutdown_grace_seconds: default_grace(),
        }
    }
}

fn default_bind() -> String {
    defaults::BIND.to_owned()
}

fn default_path() -> String {
    defaults::PATH.to_owned()
}

fn default_health_path() -> String {
    defaults::HEALTH_PATH.to_owned()
}

fn default_stateful() -> bool {
    defaults::STATEFUL
}

fn default_max_body() -> u64 {
    defaults::MAX_REQUEST_BODY_BYTES
}

fn default_keep_alive() -> u64 {
    defaults::SSE_KEEP_ALIVE_SECONDS
}

fn default_allowed_hosts() -> Vec<String> {
    defaults::ALLOWED_HOSTS
        .iter()
        .map(|host| (*host).to_owned())
        .collect()
}

fn default_grace() -> u64 {
    defaults::SHUTDOWN_GRACE_SECONDS
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
    /// The tool's arguments, in order.
    #[serde(default)]
    pub arguments: Vec<Argument>,
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

/// One argument of a tool, or one field of an object argument.
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

/// A parsed manifest together with the spans needed to report errors in it, and the
/// unknown keys found (errors, but the rest of the manifest can still be checked).
pub struct Parsed<'i> {
    pub(crate) manifest: Manifest,
    pub(crate) source_map: SourceMap<'i>,
    pub(crate) unknown_keys: Vec<Diagnostic>,
}

/// The byte range of the line with the most nesting characters (`.`, `[`, `{`): where a
/// "nested too deeply" error most likely is. `None` only for an empty source.
fn deepest_line(source: &str) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    let mut best: Option<(usize, std::ops::Range<usize>)> = None;
    for line in source.split_inclusive('\n') {
        let depth = line
            .bytes()
            .filter(|b| matches!(b, b'.' | b'[' | b'{'))
            .count();
        let text = line.trim_end_matches(['\n', '\r']);
        if best.as_ref().is_none_or(|(most, _)| depth > *most) {
            best = Some((depth, start..start + text.len().max(1).min(line.len())));
        }
        start += line.len();
    }
    best.map(|(_, span)| span)
}

/// Parses `source`. Unknown keys do not stop the parse (they come back in
/// [`Parsed::unknown_keys`]); syntax and type errors do, and come back with every unknown key
/// found before them and the span map when the TOML itself was readable.
pub(crate) fn parse(source: &str) -> Result<Parsed<'_>, (Option<SourceMap<'_>>, Vec<Diagnostic>)> {
    let (table, syntax_errors) = DeTable::parse_recoverable(source);
    if !syntax_errors.is_empty() {
        let diagnostics = syntax_errors
            .iter()
            .map(|error| {
                // The parser gives no span for a nesting past its recursion limit; point at the
                // line that nests deepest, so every error still has a place.
                let span = error.span().or_else(|| deepest_line(source));
                Diagnostic::at_span(span, format!("invalid TOML: {}", error.message()))
                    .label("here")
                    .help("see https://toml.io for the syntax")
            })
            .collect();
        return Err((None, diagnostics));
    }
    let source_map = SourceMap::new(table.clone());
    let mut unknown = Vec::new();
    let deserializer = toml::de::Deserializer::from(table);
    let result: Result<Manifest, _> = serde_ignored::deserialize(deserializer, |path| {
        unknown.push(unknown_key(&path));
    });
    let mut diagnostics = unknown;
    match result {
        Ok(manifest) => Ok(Parsed {
            manifest,
            source_map,
            unknown_keys: diagnostics,
        }),
        Err(error) => {
            let mut diagnostic = Diagnostic::at_span(error.span(), error.message().to_owned())
                .label("here")
                .help("see harness.schema.json or the manifest reference in README.md");
            if let Some(span) = error.span() {
                diagnostic.path = source_map.path_at(span.start);
            }
            diagnostics.push(diagnostic);
            Err((Some(source_map), diagnostics))
        }
    }
}

fn unknown_key(path: &serde_ignored::Path<'_>) -> Diagnostic {
    let manifest_path = manifest_path(path);
    let key = match manifest_path.segments().last() {
        Some(crate::diagnostics::Segment::Key(key)) => key.clone(),
        _ => path.to_string(),
    };
    let allowed = allowed_keys(&manifest_path);
    let help = match closest(&key, &allowed) {
        Some(near) => format!("did you mean `{near}`?"),
        None if allowed.is_empty() => {
            "remove it or check its spelling; harness.schema.json lists every key".to_owned()
        }
        None => format!("this table takes: {}", allowed.join(", ")),
    };
    Diagnostic::key(manifest_path, format!("unknown key `{key}`"))
        .label("not a key of this table")
        .help(help)
}

/// The manifest's JSON Schema as a value, to look keys up in.
static SCHEMA: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
    serde_json::to_value(schemars::schema_for!(Manifest)).expect("a schema serializes")
});

/// The keys the schema allows in the table that holds the last segment of `path`.
fn allowed_keys(path: &ManifestPath) -> Vec<String> {
    let segments = path.segments();
    let parent = &segments[..segments.len().saturating_sub(1)];
    let mut node = resolve(&SCHEMA);
    for segment in parent {
        let next = match segment {
            crate::diagnostics::Segment::Key(key) => {
                node.get("properties").and_then(|p| p.get(key))
            }
            crate::diagnostics::Segment::Index(_) => node.get("items"),
        };
        match next {
            Some(next) => node = resolve(next),
            None => return Vec::new(),
        }
    }
    node.get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Follows `$ref`s and picks the table or array alternative of an `anyOf` (an `Option`).
fn resolve(node: &serde_json::Value) -> &serde_json::Value {
    if let Some(reference) = node.get("$ref").and_then(serde_json::Value::as_str) {
        let name = reference.trim_start_matches("#/$defs/");
        if let Some(definition) = SCHEMA.get("$defs").and_then(|defs| defs.get(name)) {
            return resolve(definition);
        }
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        let alternatives = node.get(combinator).and_then(serde_json::Value::as_array);
        if let Some(found) = alternatives
            .into_iter()
            .flatten()
            .map(resolve)
            .find(|alternative| {
                alternative.get("properties").is_some() || alternative.get("items").is_some()
            })
        {
            return found;
        }
    }
    node
}

/// Keys other tools use for what this manifest calls differently (JSON Schema's `enum`, the
/// `params` of JSON-RPC), mapped to this manifest's key.
const ALIASES: &[(&str, &str)] = &[
    ("enum", "values"),
    ("args", "arguments"),
    ("params", "arguments"),
    ("parameters", "arguments"),
    ("properties", "fields"),
    ("desc", "description"),
];

/// The allowed key `key` most likely meant: the same key in snake_case (`minLength`), the
/// manifest's name for another tool's key (`enum`), or a typo within a small edit distance.
fn closest<'a>(key: &str, allowed: &'a [String]) -> Option<&'a str> {
    let find = |wanted: &str| {
        allowed
            .iter()
            .find(|candidate| *candidate == wanted)
            .map(String::as_str)
    };
    let snake = heck::ToSnakeCase::to_snake_case(key);
    if snake != key
        && let Some(found) = find(&snake)
    {
        return Some(found);
    }
    if let Some(found) = ALIASES
        .iter()
        .filter(|(alias, _)| *alias == snake)
        .find_map(|(_, meant)| find(meant))
    {
        return Some(found);
    }
    allowed
        .iter()
        .map(|candidate| (strsim::damerau_levenshtein(key, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.as_str())
}

fn manifest_path(path: &serde_ignored::Path<'_>) -> ManifestPath {
    match path {
        serde_ignored::Path::Root => ManifestPath::root(),
        serde_ignored::Path::Seq { parent, index } => manifest_path(parent).index(*index),
        serde_ignored::Path::Map { parent, key } => manifest_path(parent).key(key),
        serde_ignored::Path::Some { parent }
        | serde_ignored::Path::NewtypeStruct { parent }
        | serde_ignored::Path::NewtypeVariant { parent } => manifest_path(parent),
    }
}

/// The JSON Schema of harness.toml, for editors (taplo, Even Better TOML).
pub fn manifest_json_schema() -> String {
    let mut text = serde_json::to_string_pretty(&*SCHEMA).expect("a schema serializes");
    text.push('\n');
    text
}
