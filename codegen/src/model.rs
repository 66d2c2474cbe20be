//! Stage 2: the validated model. Every name is resolved to its Rust identifiers, every
//! constraint is checked against its type, and every problem is collected, not just the first.

pub mod bundle;
pub mod verifier;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diagnostics::{Diagnostic, ManifestPath};
use crate::ident::{self, IdentError};
use crate::manifest::{
    self, ArgType, Argument, AuditField, FsyncPolicy, Guards, Items, Manifest, Number,
    TabularAction, TransportKind,
};

/// A manifest that passed every check; the only input the emitters see.
#[derive(Debug, Clone)]
pub struct Model {
    /// `[server]`.
    pub server: ServerModel,
    /// `[transport]`.
    pub transport: TransportModel,
    /// `[audit]`.
    pub audit: AuditModel,
    /// `[[tools]]` in manifest order, then the built-in tools when registered.
    pub tools: Vec<ToolModel>,
    /// sha256 (hex) of the manifest text, published by the `diagnostics` tool.
    pub manifest_sha256: String,
    /// The Harbor task bundle, when the manifest has `[task]`.
    pub bundle: Option<bundle::BundleModel>,
    /// What `verify` checks.
    pub verifier: verifier::VerifierModel,
    /// Files besides the manifest that the output depends on (instruction, skill bodies).
    pub inputs: Vec<PathBuf>,
}

/// The validated `[audit]` table.
#[derive(Debug, Clone)]
pub struct AuditModel {
    /// Default path of the log.
    pub path: String,
    /// `schema_version` of every record.
    pub schema_version: u32,
    /// Records carry `trace_id`.
    pub trace_id: bool,
    /// Records carry `error_code`.
    pub error_code: bool,
    /// fsync policy.
    pub fsync: FsyncPolicy,
}

/// The resolved guard policy of one tool: its own `guards` over `[defaults.guards]` over
/// the built-in defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardPolicy {
    /// `(calls, period_seconds)`.
    pub rate_limit: Option<(u32, f64)>,
    /// Body time limit.
    pub timeout_ms: Option<u64>,
    /// Panics become an envelope (true) or a JSON-RPC error (false).
    pub catch_unhandled: bool,
    /// `(max_rows, action)`.
    pub tabular: Option<(u64, TabularAction)>,
    /// Lines kept per string.
    pub max_lines: Option<u64>,
    /// Strip tag blocks.
    pub strip_xml: bool,
    /// Characters of output.
    pub max_chars: Option<u64>,
}

/// The built-in tools `register_builtins` adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `health`
    Health,
    /// `ping`
    Ping,
    /// `diagnostics`
    Diagnostics,
}

impl Builtin {
    /// Every built-in, in `tools/list` order.
    pub const ALL: [Builtin; 3] = [Builtin::Health, Builtin::Ping, Builtin::Diagnostics];

    /// The MCP tool name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Health => "health",
            Builtin::Ping => "ping",
            Builtin::Diagnostics => "diagnostics",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Builtin::Health => "Report whether the server is serving: {\"status\":\"ok\"}.",
            Builtin::Ping => "Answer pong; checks the round trip.",
            Builtin::Diagnostics => {
                "Uptime, version, per-tool counters of calls, errors and rate-limited calls, and the manifest digest."
            }
        }
    }
}

pub use harness_contract::guards::{DEFAULT_TABULAR, MIN_MAX_CHARS};

/// The validated `[server]` table.
#[derive(Debug, Clone)]
pub struct ServerModel {
    /// Implementation name.
    pub name: String,
    /// Implementation version.
    pub version: String,
    /// Display name.
    pub title: Option<String>,
    /// Instructions for the model.
    pub instructions: Option<String>,
}

/// The validated `[transport]` table.
#[derive(Debug, Clone)]
pub struct TransportModel {
    /// Default transport.
    pub kind: TransportKind,
    /// HTTP bind address, checked to parse as a socket address.
    pub bind: String,
    /// MCP endpoint path.
    pub path: String,
    /// Health endpoint path.
    pub health_path: String,
    /// The rest of `[transport]`, checked (sessions, limits, Host/Origin lists, auth).
    pub http: manifest::Transport,
}

/// A validated tool.
#[derive(Debug, Clone)]
pub struct ToolModel {
    /// MCP tool name.
    pub name: String,
    /// Module and method name (`snake_case`, unescaped).
    pub module: String,
    /// Name of the tool's body trait (`UpperCamelCase`).
    pub trait_name: String,
    /// Name of the arguments struct.
    pub args_type: String,
    /// Display name.
    pub title: Option<String>,
    /// Description for the model.
    pub description: String,
    /// Behaviour hints.
    pub annotations: manifest::Annotations,
    /// Arguments in manifest order.
    pub args: Vec<FieldModel>,
    /// The resolved guard policy.
    pub guards: GuardPolicy,
    /// Set for a built-in tool, whose body lives in harness-runtime.
    pub builtin: Option<Builtin>,
}

/// A validated argument or object field.
#[derive(Debug, Clone)]
pub struct FieldModel {
    /// JSON property name.
    pub name: String,
    /// Rust field name (`snake_case`, unescaped).
    pub ident: String,
    /// Description for the model.
    pub description: Option<String>,
    /// Whether it must be present, may be absent, or has a default.
    pub presence: Presence,
    /// Type and constraints.
    pub ty: TypeModel,
}

/// How a field's absence is handled.
#[derive(Debug, Clone, PartialEq)]
pub enum Presence {
    /// Absent is an error.
    Required,
    /// Absent becomes `None`.
    Optional,
    /// Absent becomes this (already checked) value.
    Default(Value),
}

/// A Rust integer type chosen to fit an argument's declared range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntRepr {
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
}

impl IntRepr {
    /// The smallest type holding every value of `minimum..=maximum`.
    pub fn fitting(minimum: i64, maximum: i64) -> Self {
        let fits = |lo: i64, hi: i64| minimum >= lo && maximum <= hi;
        if minimum >= 0 {
            [
                (IntRepr::U8, u8::MAX as i64),
                (IntRepr::U16, u16::MAX as i64),
                (IntRepr::U32, u32::MAX as i64),
            ]
            .into_iter()
            .find(|(_, hi)| maximum <= *hi)
            .map_or(IntRepr::U64, |(repr, _)| repr)
        } else if fits(i8::MIN.into(), i8::MAX.into()) {
            IntRepr::I8
        } else if fits(i16::MIN.into(), i16::MAX.into()) {
            IntRepr::I16
        } else if fits(i32::MIN.into(), i32::MAX.into()) {
            IntRepr::I32
        } else {
            IntRepr::I64
        }
    }

    /// The Rust type name.
    pub fn rust_type(self) -> &'static str {
        match self {
            IntRepr::U8 => "u8",
            IntRepr::U16 => "u16",
            IntRepr::U32 => "u32",
            IntRepr::U64 => "u64",
            IntRepr::I8 => "i8",
            IntRepr::I16 => "i16",
            IntRepr::I32 => "i32",
            IntRepr::I64 => "i64",
        }
    }
}

/// A validated type with its constraints.
#[derive(Debug, Clone)]
pub enum TypeModel {
    /// A string.
    String {
        /// Minimum length in code points.
        min_length: Option<u64>,
        /// Maximum length in code points.
        max_length: Option<u64>,
        /// A regex (already checked to compile) that must match somewhere.
        pattern: Option<String>,
    },
    /// A strict integer; the bounds are inclusive and always present (the Rust type's
    /// range when the manifest gives none), so the published schema states them.
    Integer {
        /// Inclusive lower bound.
        minimum: i64,
        /// Inclusive upper bound.
        maximum: i64,
        /// The Rust type.
        repr: IntRepr,
    },
    /// A number (f64).
    Number {
        /// Inclusive lower bound.
        minimum: Option<f64>,
        /// Inclusive upper bound.
        maximum: Option<f64>,
        /// Exclusive lower bound.
        exclusive_minimum: Option<f64>,
        /// Exclusive upper bound.
        exclusive_maximum: Option<f64>,
    },
    /// A boolean.
    Boolean,
    /// One of a fixed set of strings, as a Rust enum.
    Enum {
        /// The Rust enum name.
        type_name: String,
        /// JSON value and Rust variant name of each member.
        variants: Vec<(String, String)>,
    },
    /// An array of scalars.
    Array {
        /// The item type (never an array or object).
        items: Box<TypeModel>,
        /// Minimum number of items.
        min_items: Option<u64>,
        /// Maximum number of items.
        max_items: Option<u64>,
    },
    /// A nested object, as a Rust struct.
    Object {
        /// The Rust struct name.
        type_name: String,
        /// Its fields.
        fields: Vec<FieldModel>,
    },
}

/// Names the generated module defines or uses unqualified; a tool or type may not take them.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Harness",
    "Tools",
    "Arc",
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Eq",
    "Err",
    "Future",
    "Hash",
    "None",
    "Ok",
    "Option",
    "PartialEq",
    "Result",
    "Send",
    "Some",
    "String",
    "Sync",
    "Vec",
];

/// Builds the model from a parsed manifest (files it names are read relative to
/// `base_dir`), or returns every problem found.
pub fn build(manifest: &Manifest, base_dir: &Path) -> Result<Model, Vec<Diagnostic>> {
    let mut builder = ModelBuilder::default();
    for name in RESERVED_TYPE_NAMES {
        builder
            .type_names
            .insert((*name).to_owned(), "the generated code".to_owned());
    }
    let server = builder.server(&manifest.server);
    let transport = builder.transport(&manifest.transport);
    let audit = builder.audit(&manifest.audit);
    let root = ManifestPath::root();
    builder.check_guards(
        &manifest.defaults.guards,
        &root.key("defaults").key("guards"),
    );
    let mut tools = builder.tools(&manifest.tools, &manifest.defaults.guards);
    if manifest.server.register_builtins {
        let defaults = resolve_guards(&Guards::default(), &manifest.defaults.guards);
        for (index, tool) in manifest.tools.iter().enumerate() {
            if Builtin::ALL
                .iter()
                .any(|builtin| builtin.name() == tool.name)
            {
                builder.error(
                    Diagnostic::value(
                        root.key("tools").index(index).key("name"),
                        format!(
                            "tool `{}` clashes with the built-in tool of that name",
                            tool.name
                        ),
                    )
                    .label("a built-in tool")
                    .help("rename the tool, or set `register_builtins = false` in [server]"),
                );
            }
        }
        tools.extend(
            Builtin::ALL
                .into_iter()
                .map(|builtin| builtin_tool(builtin, &defaults)),
        );
    }
    let mut inputs = Vec::new();
    let bundle = bundle::build(manifest, base_dir, &mut inputs, &mut builder.diagnostics);
    let verifier = verifier::build(manifest, &tools, &mut builder.diagnostics);
    if builder.diagnostics.is_empty() {
        Ok(Model {
            server,
            transport,
            audit,
            tools,
            manifest_sha256: String::new(),
            bundle,
            verifier,
            inputs,
        })
    } else {
        Err(builder.diagnostics)
    }
}

#[derive(Default)]
struct ModelBuilder {
    diagnostics: Vec<Diagnostic>,
    /// Generated type and trait names, with what defined them, to catch collisions.
    type_names: BTreeMap<String, String>,
}

/// The constraint keys shared by arguments and array items.
struct Spec<'a> {
    ty: ArgType,
    values: Option<&'a Vec<String>>,
    minimum: Option<Number>,
    maximum: Option<Number>,
    exclusive_minimum: Option<Number>,
    exclusive_maximum: Option<Number>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<&'a String>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    items: Option<&'a Items>,
    fields: Option<&'a Vec<Argument>>,
}

impl<'a> Spec<'a> {
    fn of_argument(argument: &'a Argument) -> Self {
        Spec {
            ty: argument.ty,
            values: argument.values.as_ref(),
            minimum: argument.minimum,
            maximum: argument.maximum,
            exclusive_minimum: argument.exclusive_minimum,
            exclusive_maximum: argument.exclusive_maximum,
            min_length: argument.min_length,
            max_length: argument.max_length,
            pattern: argument.pattern.as_ref(),
            min_items: argument.min_items,
            max_items: argument.max_items,
            items: argument.items.as_ref(),
            fields: argument.fields.as_ref(),
        }
    }

    fn of_items(items: &'a Items) -> Self {
        Spec {
            ty: items.ty,
            values: items.values.as_ref(),
            minimum: items.minimum,
            maximum: items.maximum,
            exclusive_minimum: items.exclusive_minimum,
            exclusive_maximum: items.exclusive_maximum,
            min_length: items.min_length,
            max_length: items.max_length,
            pattern: items.pattern.as_ref(),
            min_items: None,
            max_items: None,
            items: None,
            fields: None,
        }
    }

    /// The keys that are set, with the types each applies to.
    fn present_keys(&self) -> Vec<(&'static str, &'static [ArgType])> {
        const NUMERIC: &[ArgType] = &[ArgType::Integer, ArgType::Number];
        let mut keys = Vec::new();
        let mut check = |set: bool, key, types| {
            if set {
                keys.push((key, types));
            }
        };
        check(self.values.is_some(), "values", &[ArgType::Enum][..]);
        check(self.minimum.is_some(), "minimum", NUMERIC);
        check(self.maximum.is_some(), "maximum", NUMERIC);
        check(
            self.exclusive_minimum.is_some(),
            "exclusive_minimum",
            NUMERIC,
        );
        check(
            self.exclusive_maximum.is_some(),
            "exclusive_maximum",
            NUMERIC,
        );
        check(self.min_length.is_some(), "min_length", &[ArgType::String]);
        check(self.max_length.is_some(), "max_length", &[ArgType::String]);
        check(self.pattern.is_some(), "pattern", &[ArgType::String]);
        check(self.min_items.is_some(), "min_items", &[ArgType::Array]);
        check(self.max_items.is_some(), "max_items", &[ArgType::Array]);
        check(self.items.is_some(), "items", &[ArgType::Array]);
        check(self.fields.is_some(), "fields", &[ArgType::Object]);
        keys
    }
}

impl ModelBuilder {
    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn server(&mut self, server: &manifest::Server) -> ServerModel {
        let path = ManifestPath::root().key("server");
        for (key, value) in [("name", &server.name), ("version", &server.version)] {
            if value.trim().is_empty() {
                self.error(
                    Diagnostic::value(path.key(key), format!("server {key} is empty"))
                        .label("empty")
                        .help(format!("clients show the server {key}; give one")),
                );
            }
        }
        ServerModel {
            name: server.name.clone(),
            version: server.version.clone(),
            title: server.title.clone(),
            instructions: server.instructions.clone(),
        }
    }

    fn transport(&mut self, transport: &manifest::Transport) -> TransportModel {
        let path = ManifestPath::root().key("transport");
        if transport.bind.parse::<SocketAddr>().is_err() {
            self.error(
                Diagnostic::value(path.key("bind"), "bind is not an IP address with a port")
                    .label("not ADDRESS:PORT")
                    .help("write an IP address and a port, such as 127.0.0.1:8765"),
            );
        }
        for (key, value) in [
            ("path", &transport.path),
            ("health_path", &transport.health_path),
        ] {
            if !value.starts_with('/') || value.contains(char::is_whitespace) {
                self.error(
                    Diagnostic::value(path.key(key), format!("{key} is not an absolute URL path"))
                        .label("must start with `/` and contain no spaces")
                        .help("for example \"/mcp\" or \"/health\""),
                );
            }
        }
        if transport.path == transport.health_path {
            self.error(
                Diagnostic::value(
                    path.key("health_path"),
                    "health_path is the same as the MCP path",
                )
                .label("clashes with `path`")
                .help("serve health on its own path, such as \"/health\""),
            );
        }
        self.transport_security(transport, &path);
        TransportModel {
            kind: transport.kind,
            bind: transport.bind.clone(),
            path: transport.path.clone(),
            health_path: transport.health_path.clone(),
            http: transport.clone(),
        }
    }

    fn transport_security(&mut self, transport: &manifest::Transport, path: &ManifestPath) {
        if transport.json_response && transport.stateful {
            self.error(
                Diagnostic::value(
                    path.key("json_response"),
                    "json_response needs stateful = false",
                )
                .label("only stateless streamable HTTP answers with plain JSON")
                .help("set stateful = false, or remove json_response"),
            );
        }
        let public = transport
            .bind
            .parse::<SocketAddr>()
            .is_ok_and(|bind| !bind.ip().is_loopback());
        if public && transport.auth_token_env.is_none() && !transport.allow_public_bind {
            self.error(
                Diagnostic::value(path.key("bind"), format!("{} is reachable from other hosts, without auth", transport.bind))
                    .label("not a loopback address")
                    .help("set auth_token_env = \"MCP_TOKEN\" (the variable holding a bearer token), or allow_public_bind = true to accept the risk"),
            );
        }
        if let Some(variable) = &transport.auth_token_env {
            let valid = variable.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
                && variable
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if !valid {
                self.error(
                    Diagnostic::value(path.key("auth_token_env"), format!("`{variable}` is not an environment variable name"))
                        .label("name the variable, not the token")
                        .help("use uppercase letters, digits and `_`, e.g. \"MCP_TOKEN\"; the token itself never goes in the manifest"),
                );
            }
        }
        for (index, host) in transport.allowed_hosts.iter().enumerate() {
            if host.is_empty()
                || host.contains(['/', ' '])
                || (host.contains(':') && host.parse::<std::net::IpAddr>().is_err())
            {
                self.error(
                    Diagnostic::value(
                        path.key("allowed_hosts").index(index),
                        format!("allowed host `{host}` is not a host name"),
                    )
                    .label("no scheme, port or path")
                    .help("write host names or IP addresses, e.g. \"localhost\" or \"127.0.0.1\""),
                );
            }
        }
        for (index, origin) in transport.allowed_origins.iter().enumerate() {
            let valid = origin.split_once("://").is_some_and(|(scheme, rest)| {
                matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains('/')
            });
            if !valid {
                self.error(
                    Diagnostic::value(
                        path.key("allowed_origins").index(index),
                        format!("allowed origin `{origin}` is not scheme://host[:port]"),
                    )
                    .label("not an origin")
                    .help("an origin has no path, e.g. \"https://app.example.com\""),
                );
            }
        }
        if transport.sse_keep_alive_seconds == 0 || transport.max_request_body_bytes < 1024 {
            let key = if transport.sse_keep_alive_seconds == 0 {
                "sse_keep_alive_seconds"
            } else {
                "max_request_body_bytes"
            };
            self.error(
                Diagnostic::value(path.key(key), format!("{key} is too small"))
                    .label("out of range")
                    .help("keep-alive needs at least 1 s, and a request body at least 1024 bytes"),
            );
        }
    }

    fn audit(&mut self, audit: &manifest::Audit) -> AuditModel {
        let path = ManifestPath::root().key("audit");
        if audit.path.trim().is_empty() {
            self.error(
                Diagnostic::value(path.key("path"), "audit path is empty")
                    .label("empty")
                    .help("give a file path, such as /var/log/monitor-mcp/audit.jsonl"),
            );
        }
        if audit.schema_version == 0 {
            self.error(
                Diagnostic::value(
                    path.key("schema_version"),
                    "audit schema_version must be at least 1",
                )
                .label("zero")
                .help("start at 1 and raise it when the record format changes"),
            );
        }
        AuditModel {
            path: audit.path.clone(),
            schema_version: audit.schema_version,
            trace_id: audit.extra_fields.contains(&AuditField::TraceId),
            error_code: audit.extra_fields.contains(&AuditField::ErrorCode),
            fsync: audit.fsync,
        }
    }

    /// Checks guard values that no type can rule out.
    fn check_guards(&mut self, guards: &Guards, path: &ManifestPath) {
        let positive = [
            ("max_lines", guards.max_lines),
            ("timeout_ms", guards.timeout_ms),
            (
                "tabular.max_rows",
                guards.tabular.map(|tabular| tabular.max_rows),
            ),
        ];
        for (key, value) in positive {
            if value == Some(0) {
                let at = key.split('.').fold(path.clone(), |at, part| at.key(part));
                self.error(
                    Diagnostic::value(at, format!("{key} must be at least 1"))
                        .label("zero")
                        .help(
                            "a zero limit would refuse every call; remove the key to have no limit",
                        ),
                );
            }
        }
        if let Some(max_chars) = guards.max_chars.filter(|max| *max < MIN_MAX_CHARS) {
            self.error(
                Diagnostic::value(
                    path.key("max_chars"),
                    format!("max_chars {max_chars} leaves no room for the truncation marker"),
                )
                .label("too small")
                .help(format!("use at least {MIN_MAX_CHARS}")),
            );
        }
        if let Some(limit) = guards.rate_limit {
            let limit_path = path.key("rate_limit");
            if limit.calls == 0 {
                self.error(
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
                self.error(
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

    fn tools(&mut self, tools: &[manifest::Tool], defaults: &Guards) -> Vec<ToolModel> {
        let mut seen_names: BTreeMap<&str, usize> = BTreeMap::new();
        let mut seen_modules: BTreeMap<String, String> = BTreeMap::new();
        let mut models = Vec::new();
        for (index, tool) in tools.iter().enumerate() {
            let path = ManifestPath::root().key("tools").index(index);
            if let Some(first) = seen_names.insert(&tool.name, index) {
                self.error(
                    Diagnostic::value(path.key("name"), format!("duplicate tool `{}`", tool.name))
                        .label("already defined")
                        .help(format!(
                            "tools[{first}] has the same name; tool names must be unique"
                        )),
                );
                continue;
            }
            self.check_guards(&tool.guards, &path.key("guards"));
            if let Some(model) = self.tool(tool, &path, &mut seen_modules, defaults) {
                models.push(model);
            }
        }
        models
    }

    fn tool(
        &mut self,
        tool: &manifest::Tool,
        path: &ManifestPath,
        seen_modules: &mut BTreeMap<String, String>,
        defaults: &Guards,
    ) -> Option<ToolModel> {
        let name_ok = !tool.name.is_empty()
            && tool.name.len() <= 128
            && tool
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !name_ok {
            self.error(
                Diagnostic::value(
                    path.key("name"),
                    format!("invalid tool name `{}`", tool.name),
                )
                .label("not a valid MCP tool name")
                .help("use 1 to 128 ASCII letters, digits, `_`, `-` or `.`"),
            );
            return None;
        }
        if tool.description.trim().is_empty() {
            self.error(
                Diagnostic::value(path.key("description"), "tool description is empty")
                    .label("empty")
                    .help("the model chooses tools by their description; say what it does"),
            );
        }
        let names = self.names(&tool.name, &path.key("name"));
        let args = self.fields(
            &tool.arguments,
            &path.key("arguments"),
            names.as_ref().map(|(_, camel)| camel.as_str()),
        );
        let (module, camel) = names?;
        if let Some(other) = seen_modules.insert(module.clone(), tool.name.clone()) {
            self.error(
                Diagnostic::value(
                    path.key("name"),
                    format!(
                        "tools `{other}` and `{}` both become `{module}` in Rust",
                        tool.name
                    ),
                )
                .label("collides after case conversion")
                .help("rename one of them so their snake_case forms differ"),
            );
            return None;
        }
        let args_type = format!("{camel}Args");
        self.claim_type(&camel, &tool.name, &path.key("name"));
        self.claim_type(&args_type, &tool.name, &path.key("name"));
        Some(ToolModel {
            name: tool.name.clone(),
            module,
            trait_name: camel,
            args_type,
            title: tool.title.clone(),
            description: tool.description.clone(),
            annotations: tool.annotations.clone(),
            args: args?,
            guards: resolve_guards(&tool.guards, defaults),
            builtin: None,
        })
    }

    /// The snake_case and UpperCamelCase forms of a name, or an error at `path`.
    fn names(&mut self, name: &str, path: &ManifestPath) -> Option<(String, String)> {
        match ident::snake(name).and_then(|snake| Ok((snake, ident::camel(name)?))) {
            Ok(names) => Some(names),
            Err(error) => {
                self.ident_error(&error, name, path);
                None
            }
        }
    }

    fn ident_error(&mut self, error: &IdentError, name: &str, path: &ManifestPath) {
        self.error(
            Diagnostic::value(path.clone(), error.describe(name))
                .label("cannot be a Rust identifier")
                .help("start with a letter and use ASCII letters, digits, `_` and `-`; avoid self, Self, super and crate"),
        );
    }

    /// Records a generated type name; two definitions of the same name are an error.
    fn claim_type(&mut self, type_name: &str, owner: &str, path: &ManifestPath) {
        if let Some(previous) = self
            .type_names
            .insert(type_name.to_owned(), owner.to_owned())
        {
            self.error(
                Diagnostic::value(
                    path.clone(),
                    format!("`{owner}` and {previous} both define the Rust type `{type_name}`"),
                )
                .label("collides after case conversion")
                .help("rename the tool or argument so the generated type names differ"),
            );
        }
    }

    fn fields(
        &mut self,
        arguments: &[Argument],
        path: &ManifestPath,
        type_prefix: Option<&str>,
    ) -> Option<Vec<FieldModel>> {
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut idents: BTreeMap<String, String> = BTreeMap::new();
        let mut fields = Vec::new();
        let mut ok = true;
        for (index, argument) in arguments.iter().enumerate() {
            let path = path.index(index);
            if let Some(first) = seen.insert(&argument.name, index) {
                self.error(
                    Diagnostic::value(
                        path.key("name"),
                        format!("duplicate argument `{}`", argument.name),
                    )
                    .label("already defined")
                    .help(format!(
                        "entry [{first}] has the same name; argument names must be unique"
                    )),
                );
                ok = false;
                continue;
            }
            match self.field(argument, &path, type_prefix) {
                Some(field) => {
                    if let Some(other) = idents.insert(field.ident.clone(), argument.name.clone()) {
                        self.error(
                            Diagnostic::value(
                                path.key("name"),
                                format!(
                                    "arguments `{other}` and `{}` both become the field `{}` in Rust",
                                    argument.name, field.ident
                                ),
                            )
                            .label("collides after case conversion")
                            .help("rename one of them so their snake_case forms differ"),
                        );
                        ok = false;
                    }
                    fields.push(field);
                }
                None => ok = false,
            }
        }
        ok.then_some(fields)
    }

    fn field(
        &mut self,
        argument: &Argument,
        path: &ManifestPath,
        type_prefix: Option<&str>,
    ) -> Option<FieldModel> {
        let names = self.names(&argument.name, &path.key("name"));
        let type_name = match (type_prefix, &names) {
            (Some(prefix), Some((_, camel))) => Some(format!("{prefix}{camel}")),
            _ => None,
        };
        let ty = self.type_model(&Spec::of_argument(argument), path, type_name.as_deref());
        let presence = self.presence(argument, ty.as_ref(), path);
        let (ident, _) = names?;
        Some(FieldModel {
            name: argument.name.clone(),
            ident,
            description: argument.description.clone(),
            presence: presence?,
            ty: ty?,
        })
    }

    fn presence(
        &mut self,
        argument: &Argument,
        ty: Option<&TypeModel>,
        path: &ManifestPath,
    ) -> Option<Presence> {
        let Some(default) = &argument.default else {
            return Some(if argument.required == Some(false) {
                Presence::Optional
            } else {
                Presence::Required
            });
        };
        let default_path = path.key("default");
        if argument.required == Some(true) {
            self.error(
                Diagnostic::value(
                    path.key("required"),
                    "a required argument cannot have a default",
                )
                .label("required = true")
                .help(
                    "remove `required` (a default makes the argument optional) or remove `default`",
                ),
            );
            return None;
        }
        if argument.ty == ArgType::Object {
            self.error(
                Diagnostic::value(default_path, "an object argument cannot have a default")
                    .label("not supported")
                    .help("give defaults to the object's fields instead"),
            );
            return None;
        }
        let value = match toml_to_json(default) {
            Ok(value) => value,
            Err(message) => {
                self.error(
                    Diagnostic::value(default_path, message)
                        .label("not a JSON value")
                        .help("use a string, number, boolean or array"),
                );
                return None;
            }
        };
        // Without a valid type there is nothing to check the default against; that error
        // is already reported.
        let ty = ty?;
        if let Err(problem) = check_value(ty, &value) {
            self.error(
                Diagnostic::value(default_path, format!("default {problem}"))
                    .label("invalid default")
                    .help("the default must satisfy the argument's own type and constraints"),
            );
            return None;
        }
        Some(Presence::Default(value))
    }

    fn type_model(
        &mut self,
        spec: &Spec<'_>,
        path: &ManifestPath,
        type_name: Option<&str>,
    ) -> Option<TypeModel> {
        let mut ok = true;
        for (key, applies_to) in spec.present_keys() {
            if !applies_to.contains(&spec.ty) {
                let types: Vec<String> = applies_to.iter().map(ToString::to_string).collect();
                self.error(
                    Diagnostic::key(
                        path.key(key),
                        format!("`{key}` does not apply to type `{}`", spec.ty),
                    )
                    .label("not a constraint of this type")
                    .help(format!(
                        "`{key}` applies to: {}; remove it or change `type`",
                        types.join(", ")
                    )),
                );
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        match spec.ty {
            ArgType::String => self.string_type(spec, path),
            ArgType::Integer => self.integer_type(spec, path),
            ArgType::Number => self.number_type(spec, path),
            ArgType::Boolean => Some(TypeModel::Boolean),
            ArgType::Enum => self.enum_type(spec, path, type_name?),
            ArgType::Array => self.array_type(spec, path, type_name),
            ArgType::Object => {
                let Some(fields) = spec.fields.filter(|fields| !fields.is_empty()) else {
                    self.error(
                        Diagnostic::value(path.clone(), "an object argument needs `fields`")
                            .label("no fields")
                            .help("add [[...fields]] entries, each with a name and a type"),
                    );
                    return None;
                };
                let type_name = type_name?;
                self.claim_type(type_name, "an object argument", path);
                let fields = self.fields(fields, &path.key("fields"), Some(type_name))?;
                Some(TypeModel::Object {
                    type_name: type_name.to_owned(),
                    fields,
                })
            }
        }
    }

    fn string_type(&mut self, spec: &Spec<'_>, path: &ManifestPath) -> Option<TypeModel> {
        let mut ok = self.ordered_u64(
            spec.min_length,
            spec.max_length,
            "min_length",
            "max_length",
            path,
        );
        if let Some(pattern) = spec.pattern
            && let Err(error) = regex::Regex::new(pattern)
        {
            let reason = error.to_string();
            let reason = reason.lines().last().unwrap_or("invalid").trim().to_owned();
            self.error(
                    Diagnostic::value(path.key("pattern"), format!("pattern does not compile: {reason}"))
                        .label("invalid regular expression")
                        .help("use the syntax of the `regex` crate, which JSON Schema validators also accept (no look-around or back-references)"),
                );
            ok = false;
        }
        ok.then(|| TypeModel::String {
            min_length: spec.min_length,
            max_length: spec.max_length,
            pattern: spec.pattern.cloned(),
        })
    }

    fn ordered_u64(
        &mut self,
        low: Option<u64>,
        high: Option<u64>,
        low_key: &str,
        high_key: &str,
        path: &ManifestPath,
    ) -> bool {
        match (low, high) {
            (Some(low), Some(high)) if low > high => {
                self.error(
                    Diagnostic::value(
                        path.key(low_key),
                        format!("{low_key} ({low}) is greater than {high_key} ({high})"),
                    )
                    .label("no value can satisfy both")
                    .help(format!("make {low_key} <= {high_key}")),
                );
                false
            }
            _ => true,
        }
    }

    fn integer_type(&mut self, spec: &Spec<'_>, path: &ManifestPath) -> Option<TypeModel> {
        let mut ok = true;
        let mut integer = |this: &mut Self, key: &str, bound: Option<Number>| match bound {
            Some(Number::Integer(value)) => Some(value),
            Some(Number::Float(value)) => {
                this.error(
                    Diagnostic::value(
                        path.key(key),
                        format!("{key} of an integer argument must be an integer, not {value:?}"),
                    )
                    .label("a float")
                    .help("write the bound without a fraction, e.g. 10 rather than 10.0"),
                );
                ok = false;
                None
            }
            None => None,
        };
        let minimum = integer(self, "minimum", spec.minimum);
        let maximum = integer(self, "maximum", spec.maximum);
        let exclusive_minimum = integer(self, "exclusive_minimum", spec.exclusive_minimum);
        let exclusive_maximum = integer(self, "exclusive_maximum", spec.exclusive_maximum);
        let low = self.one_bound(
            minimum,
            exclusive_minimum.map(|v| v.checked_add(1)),
            "minimum",
            path,
        );
        let high = self.one_bound(
            maximum,
            exclusive_maximum.map(|v| v.checked_sub(1)),
            "maximum",
            path,
        );
        if !ok {
            return None;
        }
        let (low, high) = (low?.unwrap_or(i64::MIN), high?.unwrap_or(i64::MAX));
        if low > high {
            self.error(
                Diagnostic::value(
                    path.key(if minimum.is_some() {
                        "minimum"
                    } else {
                        "exclusive_minimum"
                    }),
                    format!("the lower bound ({low}) is greater than the upper bound ({high})"),
                )
                .label("no integer can satisfy both")
                .help("make the lower bound <= the upper bound"),
            );
            return None;
        }
        Some(TypeModel::Integer {
            minimum: low,
            maximum: high,
            repr: IntRepr::fitting(low, high),
        })
    }

    /// Merges an inclusive and an exclusive bound of one side into an inclusive bound.
    fn one_bound(
        &mut self,
        inclusive: Option<i64>,
        exclusive: Option<Option<i64>>,
        side: &str,
        path: &ManifestPath,
    ) -> Option<Option<i64>> {
        match (inclusive, exclusive) {
            (Some(_), Some(_)) => {
                self.error(
                    Diagnostic::key(
                        path.key(&format!("exclusive_{side}")),
                        format!("both {side} and exclusive_{side} are given"),
                    )
                    .label("conflicts with the inclusive bound")
                    .help(format!("keep one of {side} and exclusive_{side}")),
                );
                None
            }
            (Some(value), None) => Some(Some(value)),
            (None, Some(Some(value))) => Some(Some(value)),
            (None, Some(None)) => {
                self.error(
                    Diagnostic::value(
                        path.key(&format!("exclusive_{side}")),
                        format!("exclusive_{side} leaves no 64-bit integer"),
                    )
                    .label("out of range")
                    .help("use a bound inside the 64-bit range"),
                );
                None
            }
            (None, None) => Some(None),
        }
    }

    fn number_type(&mut self, spec: &Spec<'_>, path: &ManifestPath) -> Option<TypeModel> {
        let f = |bound: Option<Number>| bound.map(Number::as_f64);
        let (minimum, maximum) = (f(spec.minimum), f(spec.maximum));
        let (exclusive_minimum, exclusive_maximum) =
            (f(spec.exclusive_minimum), f(spec.exclusive_maximum));
        let mut ok = true;
        for (side, inclusive, exclusive) in [
            ("minimum", minimum, exclusive_minimum),
            ("maximum", maximum, exclusive_maximum),
        ] {
            if inclusive.is_some() && exclusive.is_some() {
                ok = false;
                self.one_bound(Some(0), Some(Some(0)), side, path);
            }
        }
        let low = minimum
            .map(|v| (v, false))
            .or(exclusive_minimum.map(|v| (v, true)));
        let high = maximum
            .map(|v| (v, false))
            .or(exclusive_maximum.map(|v| (v, true)));
        if let (Some((low, low_open)), Some((high, high_open))) = (low, high)
            && (low > high || (low == high && (low_open || high_open)))
        {
            ok = false;
            self.error(
                Diagnostic::value(
                    path.key(if minimum.is_some() {
                        "minimum"
                    } else {
                        "exclusive_minimum"
                    }),
                    format!(
                        "the lower bound ({low:?}) does not lie below the upper bound ({high:?})"
                    ),
                )
                .label("no number can satisfy both")
                .help("make the lower bound smaller than the upper bound"),
            );
        }
        ok.then_some(TypeModel::Number {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
        })
    }

    fn enum_type(
        &mut self,
        spec: &Spec<'_>,
        path: &ManifestPath,
        type_name: &str,
    ) -> Option<TypeModel> {
        let Some(values) = spec.values.filter(|values| !values.is_empty()) else {
            self.error(
                Diagnostic::value(path.clone(), "an enum needs `values`")
                    .label("no values")
                    .help("list the allowed strings, e.g. values = [\"summary\", \"signals\"]"),
            );
            return None;
        };
        let mut variants: Vec<(String, String)> = Vec::new();
        let mut ok = true;
        for (index, value) in values.iter().enumerate() {
            let value_path = path.key("values").index(index);
            match ident::camel(value) {
                Err(error) => {
                    self.ident_error(&error, value, &value_path);
                    ok = false;
                }
                Ok(variant) => {
                    if let Some((other, _)) =
                        variants.iter().find(|(v, i)| v == value || *i == variant)
                    {
                        let message = if other == value {
                            format!("duplicate enum value `{value}`")
                        } else {
                            format!(
                                "enum values `{other}` and `{value}` both become the variant `{variant}`"
                            )
                        };
                        self.error(
                            Diagnostic::value(value_path, message)
                                .label("collides")
                                .help("make every value distinct after case conversion"),
                        );
                        ok = false;
                    } else {
                        variants.push((value.clone(), variant));
                    }
                }
            }
        }
        if !ok {
            return None;
        }
        self.claim_type(type_name, "an enum argument", path);
        Some(TypeModel::Enum {
            type_name: type_name.to_owned(),
            variants,
        })
    }

    fn array_type(
        &mut self,
        spec: &Spec<'_>,
        path: &ManifestPath,
        type_name: Option<&str>,
    ) -> Option<TypeModel> {
        let ordered = self.ordered_u64(
            spec.min_items,
            spec.max_items,
            "min_items",
            "max_items",
            path,
        );
        let Some(items) = spec.items else {
            self.error(
                Diagnostic::value(path.clone(), "an array argument needs `items`")
                    .label("no item type")
                    .help("add items = { type = \"string\" } (or another scalar type)"),
            );
            return None;
        };
        let items_path = path.key("items");
        if matches!(items.ty, ArgType::Array | ArgType::Object) {
            self.error(
                Diagnostic::value(items_path.key("type"), format!("array items cannot be of type `{}`", items.ty))
                    .label("not a scalar")
                    .help("items are string, integer, number, boolean or enum; use an object argument for structure"),
            );
            return None;
        }
        let item_type_name = type_name.map(|name| format!("{name}Item"));
        let items = self.type_model(
            &Spec::of_items(items),
            &items_path,
            item_type_name.as_deref(),
        )?;
        ordered.then(|| TypeModel::Array {
            items: Box::new(items),
            min_items: spec.min_items,
            max_items: spec.max_items,
        })
    }
}

/// A tool's guards over the manifest defaults over the built-in defaults.
fn resolve_guards(tool: &Guards, defaults: &Guards) -> GuardPolicy {
    GuardPolicy {
        rate_limit: tool
            .rate_limit
            .or(defaults.rate_limit)
            .map(|limit| (limit.calls, limit.period_seconds.as_f64())),
        timeout_ms: tool.timeout_ms.or(defaults.timeout_ms),
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
        max_chars: tool.max_chars.or(defaults.max_chars),
    }
}

fn builtin_tool(builtin: Builtin, guards: &GuardPolicy) -> ToolModel {
    let name = builtin.name();
    let camel = ident::camel(name).expect("built-in names are identifiers");
    ToolModel {
        name: name.to_owned(),
        module: name.to_owned(),
        args_type: format!("{camel}Args"),
        trait_name: camel,
        title: None,
        description: builtin.description().to_owned(),
        annotations: manifest::Annotations {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        },
        args: Vec::new(),
        guards: guards.clone(),
        builtin: Some(builtin),
    }
}

/// Converts a TOML value into JSON; dates have no JSON form.
pub(crate) fn toml_to_json(value: &toml::Value) -> Result<Value, String> {
    Ok(match value {
        toml::Value::String(text) => Value::String(text.clone()),
        toml::Value::Integer(number) => Value::from(*number),
        toml::Value::Float(number) => serde_json::Number::from_f64(*number)
            .map(Value::Number)
            .ok_or_else(|| format!("{number} is not a finite number"))?,
        toml::Value::Boolean(flag) => Value::Bool(*flag),
        toml::Value::Datetime(_) => return Err("a TOML date has no JSON form".to_owned()),
        toml::Value::Array(items) => {
            Value::Array(items.iter().map(toml_to_json).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(key, value)| Ok((key.clone(), toml_to_json(value)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// Checks a manifest-supplied value (a default) against a type, with the same strict
/// rules as the generated validator; the error completes the sentence "default ...".
pub fn check_value(ty: &TypeModel, value: &Value) -> Result<(), String> {
    match (ty, value) {
        (
            TypeModel::String {
                min_length,
                max_length,
                pattern,
            },
            Value::String(text),
        ) => {
            let length = text.chars().count() as u64;
            if min_length.is_some_and(|min| length < min)
                || max_length.is_some_and(|max| length > max)
            {
                return Err(format!(
                    "{text:?} has {length} characters, outside the allowed length"
                ));
            }
            if let Some(pattern) = pattern {
                let regex =
                    regex::Regex::new(pattern).map_err(|_| "cannot be checked".to_owned())?;
                if !regex.is_match(text) {
                    return Err(format!("{text:?} does not match the pattern {pattern}"));
                }
            }
            Ok(())
        }
        (
            TypeModel::Integer {
                minimum, maximum, ..
            },
            Value::Number(number),
        ) => {
            let Some(integer) = number.as_i64() else {
                return Err(format!("{number} is not an integer"));
            };
            if integer < *minimum || integer > *maximum {
                return Err(format!("{integer} is out of range {minimum}..={maximum}"));
            }
            Ok(())
        }
        (
            TypeModel::Number {
                minimum,
                maximum,
                exclusive_minimum,
                exclusive_maximum,
            },
            Value::Number(number),
        ) => {
            let value = number.as_f64().unwrap_or(f64::NAN);
            let outside = minimum.is_some_and(|min| value < min)
                || maximum.is_some_and(|max| value > max)
                || exclusive_minimum.is_some_and(|min| value <= min)
                || exclusive_maximum.is_some_and(|max| value >= max);
            if outside {
                return Err(format!("{number} is out of range"));
            }
            Ok(())
        }
        (TypeModel::Boolean, Value::Bool(_)) => Ok(()),
        (TypeModel::Enum { variants, .. }, Value::String(text)) => {
            if variants.iter().any(|(member, _)| member == text) {
                Ok(())
            } else {
                let members: Vec<&str> =
                    variants.iter().map(|(member, _)| member.as_str()).collect();
                Err(format!("{text:?} is not one of {members:?}"))
            }
        }
        (
            TypeModel::Array {
                items,
                min_items,
                max_items,
            },
            Value::Array(values),
        ) => {
            let count = values.len() as u64;
            if min_items.is_some_and(|min| count < min) || max_items.is_some_and(|max| count > max)
            {
                return Err(format!("has {count} items, outside the allowed count"));
            }
            values.iter().try_for_each(|item| check_value(items, item))
        }
        (ty, value) => Err(format!("{value} is not {}", type_phrase(ty))),
    }
}

fn type_phrase(ty: &TypeModel) -> &'static str {
    match ty {
        TypeModel::String { .. } => "a string",
        TypeModel::Integer { .. } => "an integer",
        TypeModel::Number { .. } => "a number",
        TypeModel::Boolean => "a boolean",
        TypeModel::Enum { .. } => "a string member of the enum",
        TypeModel::Array { .. } => "an array",
        TypeModel::Object { .. } => "an object",
    }
}
