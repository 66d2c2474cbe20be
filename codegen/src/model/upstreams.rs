//! `[[upstreams]]` and the tools they serve: each upstream reachable as its transport says,
//! with nothing secret in the manifest, and each upstream tool bound to an upstream that
//! exists and pinned to the digest of the definition it was imported from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use harness_contract::{ForwardedRequest, OnDrift, UpstreamProtocol, UpstreamTransport};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest;
use crate::manifest_path::ManifestPath;
use crate::model::names::is_env_var_name;

/// Default time limit for connecting to an upstream and for a call no tool timeout bounds.
pub const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 30_000;

/// A validated upstream.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamModel {
    /// Its name in the manifest.
    pub name: String,
    /// How it is reached.
    pub endpoint: EndpointModel,
    /// Connect and call time limit, in milliseconds.
    pub timeout_ms: u64,
    /// Restarts in a row before a stdio child stays down.
    pub max_restarts: u32,
    /// First wait before a restart, in milliseconds.
    pub backoff_ms: u64,
    /// What a changed pinned definition does.
    pub on_drift: OnDrift,
    /// Requests it may start that reach the client, in manifest order.
    pub forward: Vec<ForwardedRequest>,
    /// The protocol revision spoken to it.
    pub protocol: UpstreamProtocol,
}

/// Where an upstream is.
#[derive(Debug, Clone, PartialEq)]
pub enum EndpointModel {
    /// A child process.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its working directory.
        cwd: Option<String>,
        /// Variables it receives from the server's environment (besides `PATH`).
        env: Vec<String>,
    },
    /// A streamable HTTP endpoint.
    StreamableHttp {
        /// The URL.
        url: String,
        /// `(header, variable holding its value)`, sorted by header.
        headers: Vec<(String, String)>,
        /// The PEM text of `ca_file`, checked to hold certificates only.
        ca_pem: Option<String>,
    },
}

/// What binds a tool, prompt, resource or resource template to its upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamBinding {
    /// Index into `Model::upstreams`.
    pub upstream: usize,
    /// The upstream's name for it (a resource's URI, a template's URI template).
    pub remote_name: String,
    /// The pinned digest (lower-case hex sha256).
    pub pin_sha256: String,
}

/// Every upstream that passed, in manifest order (a failed one is left out, and its errors
/// fail the model).
pub(crate) fn upstreams(
    manifest: &manifest::Manifest,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Vec<UpstreamModel> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    manifest
        .upstreams
        .iter()
        .enumerate()
        .filter_map(|(index, upstream)| {
            let path = ManifestPath::root().key("upstreams").index(index);
            if let Some(first) = seen.insert(&upstream.name, index) {
                errors.report(
                    Diagnostic::value(
                        path.key("name"),
                        format!("duplicate upstream `{}`", upstream.name),
                    )
                    .label("already defined")
                    .also_at(
                        ManifestPath::root()
                            .key("upstreams")
                            .index(first)
                            .key("name"),
                        "first defined here",
                    )
                    .help("upstream names must be unique"),
                );
            }
            let errors = errors.child();
            let model = upstream_model(upstream, &path, manifest, base_dir, inputs, &errors);
            errors.unless_failed(model)
        })
        .collect()
}

fn upstream_model(
    upstream: &manifest::Upstream,
    path: &ManifestPath,
    manifest: &manifest::Manifest,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> UpstreamModel {
    let name_ok = !upstream.name.is_empty()
        && upstream.name.len() <= 64
        && upstream
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_'));
    if !name_ok {
        errors.report(
            Diagnostic::value(
                path.key("name"),
                format!("invalid upstream name `{}`", upstream.name),
            )
            .label("not a name")
            .help("use 1 to 64 lowercase ASCII letters, digits, `-` or `_`"),
        );
    }
    let endpoint = match upstream.transport {
        UpstreamTransport::Stdio => stdio(upstream, path, manifest, errors),
        UpstreamTransport::StreamableHttp => {
            let ca_pem = upstream.ca_file.as_ref().and_then(|file| {
                crate::model::ca_file::read(file, &path.key("ca_file"), base_dir, inputs, errors)
            });
            http(upstream, path, ca_pem, errors)
        }
    };
    let timeout_ms = upstream.timeout_ms.unwrap_or(DEFAULT_UPSTREAM_TIMEOUT_MS);
    if timeout_ms == 0 {
        errors.report(
            Diagnostic::value(
                path.key("timeout_ms"),
                "timeout_ms = 0 allows no time at all",
            )
            .label("zero")
            .help("give the upstream at least a few hundred milliseconds, e.g. 30000"),
        );
    }
    if upstream.restart.backoff_ms == 0 && upstream.restart.max_restarts > 0 {
        errors.report(
            Diagnostic::value(
                path.key("restart").key("backoff_ms"),
                "a restart without backoff spins on a child that exits at once",
            )
            .label("zero")
            .help("wait at least a few milliseconds, e.g. backoff_ms = 500"),
        );
    }
    if upstream.protocol == UpstreamProtocol::V2026_07_28
        && !upstream.forward.is_empty()
        && manifest.server.request_state_key_env.is_none()
    {
        errors.report(
            Diagnostic::value(
                path.key("protocol"),
                "a 2026-07-28 upstream that asks for input needs sealed request state",
            )
            .label("asks by input-required result")
            .help("its questions and its own state travel between rounds in a state this server seals: set [server] request_state_key_env"),
        );
    }
    for (index, request) in upstream.forward.iter().enumerate() {
        if upstream.forward[..index].contains(request) {
            errors.report(
                Diagnostic::value(
                    path.key("forward").index(index),
                    format!("`{}` is listed twice", request.as_str()),
                )
                .label("repeated")
                .help("list each request once"),
            );
        }
    }
    UpstreamModel {
        name: upstream.name.clone(),
        endpoint,
        timeout_ms,
        max_restarts: upstream.restart.max_restarts,
        backoff_ms: upstream.restart.backoff_ms,
        on_drift: upstream.on_drift,
        forward: upstream.forward.clone(),
        protocol: upstream.protocol,
    }
}

/// Reports `key` as set on a transport that does not use it.
fn not_for(path: &ManifestPath, key: &str, transport: &str, errors: &ErrorSink<'_>) {
    errors.report(
        Diagnostic::key(path.key(key), format!("`{key}` is not used by {transport}"))
            .label(format!("not a setting of {transport}"))
            .help("remove it, or change `transport`"),
    );
}

fn stdio(
    upstream: &manifest::Upstream,
    path: &ManifestPath,
    manifest: &manifest::Manifest,
    errors: &ErrorSink<'_>,
) -> EndpointModel {
    if upstream.url.is_some() {
        not_for(path, "url", "a stdio upstream", errors);
    }
    if !upstream.headers.is_empty() {
        not_for(path, "headers", "a stdio upstream", errors);
    }
    if upstream.ca_file.is_some() {
        not_for(path, "ca_file", "a stdio upstream", errors);
    }
    let command = upstream.command.clone().unwrap_or_default();
    if command.trim().is_empty() {
        errors.report(
            Diagnostic::value(path.key("name"), "a stdio upstream needs `command`")
                .label("no command")
                .help("name the program to start, e.g. command = \"npx\""),
        );
    }
    for (index, variable) in upstream.env.iter().enumerate() {
        let at = path.key("env").index(index);
        if !is_env_var_name(variable) {
            errors.report(
                Diagnostic::value(
                    at,
                    format!("`{variable}` is not an environment variable name"),
                )
                .label("not a variable name")
                .help("list variable names such as HOME, not values"),
            );
        } else if manifest.transport.auth_token_env.as_deref() == Some(variable) {
            errors.report(
                Diagnostic::value(
                    at,
                    format!("`{variable}` holds the clients' bearer token (`[transport] auth_token_env`)"),
                )
                .label("the clients' credential")
                .help("an upstream never receives the clients' credentials: give it a variable of its own"),
            );
        }
    }
    EndpointModel::Stdio {
        command,
        args: upstream.args.clone(),
        cwd: upstream.cwd.clone(),
        env: upstream.env.clone(),
    }
}

fn http(
    upstream: &manifest::Upstream,
    path: &ManifestPath,
    ca_pem: Option<String>,
    errors: &ErrorSink<'_>,
) -> EndpointModel {
    for (key, set) in [
        ("command", upstream.command.is_some()),
        ("args", !upstream.args.is_empty()),
        ("cwd", upstream.cwd.is_some()),
        ("env", !upstream.env.is_empty()),
    ] {
        if set {
            not_for(path, key, "a streamable-http upstream", errors);
        }
    }
    let url = upstream.url.clone().unwrap_or_default();
    let well_formed = ["http://", "https://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme))
        .is_some_and(|rest| {
            !rest.is_empty() && !rest.starts_with('/') && !rest.contains(char::is_whitespace)
        });
    if !well_formed {
        let at = if upstream.url.is_some() {
            path.key("url")
        } else {
            path.key("name")
        };
        errors.report(
            Diagnostic::value(at, format!("`{url}` is not an http:// or https:// URL"))
                .label("needs the MCP endpoint's URL")
                .help("e.g. url = \"http://127.0.0.1:9000/mcp\""),
        );
    }
    for (header, variable) in &upstream.headers {
        let at = path.key("headers").key(header);
        let header_ok = !header.is_empty()
            && header
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !header_ok {
            errors.report(
                Diagnostic::key(at.clone(), format!("`{header}` is not an HTTP header name"))
                    .label("not a header name")
                    .help("use a token such as Authorization or X-Api-Key"),
            );
        }
        if !is_env_var_name(variable) {
            errors.report(
                Diagnostic::value(
                    at,
                    format!("`{variable}` is not an environment variable name"),
                )
                .label("a header's value comes from a variable")
                .help("name the variable holding the value, e.g. { Authorization = \"UPSTREAM_TOKEN\" }; values never go in the manifest"),
            );
        }
    }
    EndpointModel::StreamableHttp {
        url,
        headers: upstream
            .headers
            .iter()
            .map(|(header, variable)| (header.clone(), variable.clone()))
            .collect(),
        ca_pem,
    }
}

/// The binding of a tool that names an upstream (`None` for a local tool, which must not
/// set a pin either).
pub(crate) fn binding(
    tool: &manifest::Tool,
    path: &ManifestPath,
    upstreams: &[manifest::Upstream],
    errors: &ErrorSink<'_>,
) -> Option<UpstreamBinding> {
    bind(
        Served {
            what: "tool",
            upstream: tool.upstream.as_deref(),
            renamed: Some(("upstream_tool", tool.upstream_tool.as_deref())),
            pin_sha256: tool.pin_sha256.as_deref(),
            local_name: &tool.name,
        },
        path,
        upstreams,
        errors,
    )
}

/// What a `[[tools]]`, `[[prompts]]`, `[[resources]]` or `[[resource_templates]]` entry says
/// about the upstream that serves it.
pub(crate) struct Served<'m> {
    /// What the entry is, for messages: `tool`, `prompt`, `resource`, `resource template`.
    pub(crate) what: &'static str,
    /// `upstream`.
    pub(crate) upstream: Option<&'m str>,
    /// The key that renames it and its value (`upstream_tool`, `upstream_prompt`), where the
    /// entry may be renamed; resources and templates keep the upstream's URI.
    pub(crate) renamed: Option<(&'static str, Option<&'m str>)>,
    /// `pin_sha256`.
    pub(crate) pin_sha256: Option<&'m str>,
    /// How this server publishes it (the upstream's name unless renamed).
    pub(crate) local_name: &'m str,
}

/// The binding of an entry that names an upstream (`None` for a local one, which must not
/// set a pin or a rename either): the upstream must exist and the pin be a sha256.
pub(crate) fn bind(
    served: Served<'_>,
    path: &ManifestPath,
    upstreams: &[manifest::Upstream],
    errors: &ErrorSink<'_>,
) -> Option<UpstreamBinding> {
    let Some(name) = served.upstream else {
        let renamed = served.renamed.and_then(|(key, value)| value.map(|_| key));
        let stray = renamed
            .into_iter()
            .chain(served.pin_sha256.map(|_| "pin_sha256"));
        for key in stray {
            errors.report(
                Diagnostic::key(path.key(key), format!("`{key}` without `upstream`"))
                    .label(format!("only for a {} an upstream serves", served.what))
                    .help("add upstream = \"NAME\", or remove it"),
            );
        }
        return None;
    };
    let Some(upstream) = upstreams.iter().position(|u| u.name == name) else {
        let known: std::collections::BTreeSet<&str> =
            upstreams.iter().map(|u| u.name.as_str()).collect();
        errors.report(
            Diagnostic::value(
                path.key("upstream"),
                format!("no upstream is named `{name}`"),
            )
            .label("unknown upstream")
            .help(if known.is_empty() {
                "declare it in an [[upstreams]] table".to_owned()
            } else {
                format!("declared upstreams: {}", Vec::from_iter(known).join(", "))
            }),
        );
        return None;
    };
    let pin = served.pin_sha256.unwrap_or_default();
    if pin.len() != 64 || !pin.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        errors.report(
            Diagnostic::value(
                if served.pin_sha256.is_some() {
                    path.key("pin_sha256")
                } else {
                    path.key("upstream")
                },
                format!(
                    "an upstream {} needs `pin_sha256`: 64 lower-case hex digits",
                    served.what
                ),
            )
            .label("no pin")
            .help("`harness-codegen import NAME` pins everything it imports"),
        );
        return None;
    }
    Some(UpstreamBinding {
        upstream,
        remote_name: served
            .renamed
            .and_then(|(_, value)| value)
            .unwrap_or(served.local_name)
            .to_owned(),
        pin_sha256: pin.to_owned(),
    })
}

/// A Harbor bundle's sidecar is `FROM scratch` unless `[compose.sidecar] base_image` is set:
/// a stdio upstream's program (python3, npx...) can run only on a base image that has it.
/// HTTP upstreams need nothing in the image.
pub(crate) fn check_bundle(manifest: &manifest::Manifest, errors: &ErrorSink<'_>) {
    if manifest.task.is_none() {
        return;
    }
    let based = manifest
        .compose
        .as_ref()
        .is_some_and(|compose| compose.sidecar.base_image.is_some());
    for (index, upstream) in manifest.upstreams.iter().enumerate() {
        if upstream.transport == UpstreamTransport::Stdio && !based {
            errors.report(
                Diagnostic::value(
                    ManifestPath::root().key("upstreams").index(index).key("transport"),
                    format!("upstream `{}` would start a program the sidecar image does not have", upstream.name),
                )
                .label("the sidecar is FROM scratch: only the server's static binary")
                .help("set [compose.sidecar] base_image (pinned) with what the command needs, build_files for its files and setup to install the rest"),
            );
        }
    }
}
