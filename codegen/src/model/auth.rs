//! `[auth]` and the tools' `scopes`: the checks no type can express (URLs, algorithm names,
//! scope tokens, variable names, the one-auth-at-a-time rule) and their validated form.

use std::path::{Path, PathBuf};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Manifest};
use crate::manifest_path::ManifestPath;
use crate::model::names::is_env_var_name;

/// Every algorithm a token may be signed with: asymmetric only.
const ACCEPTABLE: &[&str] = &[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

/// The largest leeway: more would accept tokens expired for minutes.
const MAX_LEEWAY_SECONDS: u64 = 300;

/// The longest an introspection answer is reused: a revoked token is accepted until then.
const MAX_INTROSPECTION_CACHE_SECONDS: u64 = 600;

/// The validated `[auth]` table.
#[derive(Debug, Clone)]
pub struct AuthModel {
    /// The issuer identifier.
    pub issuer: String,
    /// This server's resource URI.
    pub audience: String,
    /// The key set's URL, when not discovered.
    pub jwks_uri: Option<String>,
    /// Accepted JWS algorithms.
    pub algorithms: Vec<String>,
    /// Scopes every token must grant.
    pub required_scopes: Vec<String>,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway_seconds: u64,
    /// Seconds between fetches caused by unknown key ids.
    pub jwks_refresh_seconds: u64,
    /// Introspection for opaque tokens.
    pub introspection: Option<manifest::Introspection>,
    /// The PEM text of `ca_file`, checked to hold certificates only.
    pub ca_pem: Option<String>,
    /// Each tool's own scopes (tools without any are left out), in manifest order.
    pub tool_scopes: Vec<(String, Vec<String>)>,
}

/// Checks `[auth]` and every tool's `scopes`; `ca_file` is read relative to `base_dir`.
pub(crate) fn auth(
    manifest: &Manifest,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<AuthModel> {
    let tool_scopes = tool_scopes(manifest, errors);
    audited_subject_needs_auth(manifest, errors);
    subject_limits_need_auth(manifest, errors);
    let auth = manifest.auth.as_ref()?;
    let path = ManifestPath::root().key("auth");
    if manifest.transport.auth_token_env.is_some() {
        errors.report(
            Diagnostic::key(path.clone(), "[auth] and [transport] auth_token_env are both set")
                .also_at(ManifestPath::root().key("transport").key("auth_token_env"), "a static token")
                .label("OAuth 2.1 tokens")
                .help("a server checks one kind of token: keep [auth] (tokens from an authorization server) or auth_token_env (one shared token), not both"),
        );
    }
    check_url(&path.key("issuer"), &auth.issuer, "issuer", errors);
    check_url(&path.key("audience"), &auth.audience, "audience", errors);
    if auth.audience.contains(['?', '#']) {
        errors.report(
            Diagnostic::value(path.key("audience"), "the audience has a query or a fragment")
                .label("not a resource URI")
                .help("RFC 8707: the resource indicator is an absolute URI without a fragment; use the server's MCP URL, e.g. \"https://mcp.example.com/mcp\""),
        );
    }
    if let Some(jwks) = &auth.jwks_uri {
        check_url(&path.key("jwks_uri"), jwks, "jwks_uri", errors);
    }
    check_algorithms(&path, &auth.algorithms, errors);
    for (index, scope) in auth.required_scopes.iter().enumerate() {
        check_scope(&path.key("required_scopes").index(index), scope, errors);
    }
    if auth.leeway_seconds > MAX_LEEWAY_SECONDS {
        errors.report(
            Diagnostic::value(path.key("leeway_seconds"), format!("a leeway of {} s accepts tokens long expired", auth.leeway_seconds))
                .label("out of range")
                .help(format!("leeway covers clock skew, not token lifetime: at most {MAX_LEEWAY_SECONDS}; 60 is usual")),
        );
    }
    if auth.jwks_refresh_seconds == 0 {
        errors.report(
            Diagnostic::value(path.key("jwks_refresh_seconds"), "jwks_refresh_seconds is 0")
                .label("out of range")
                .help("at least 1: with 0 every token naming a made-up key id would make the server fetch the issuer's keys"),
        );
    }
    let ca_pem = auth.ca_file.as_ref().and_then(|file| {
        crate::model::ca_file::read(file, &path.key("ca_file"), base_dir, inputs, errors)
    });
    if let Some(introspection) = &auth.introspection {
        let at = path.key("introspection");
        if introspection.cache_seconds > MAX_INTROSPECTION_CACHE_SECONDS {
            errors.report(
                Diagnostic::value(at.key("cache_seconds"), format!("introspection answers kept {} s", introspection.cache_seconds))
                    .label("out of range")
                    .help(format!("a revoked token is accepted until its answer expires: at most {MAX_INTROSPECTION_CACHE_SECONDS}; 60 is the default, 0 asks on every request")),
            );
        }
        check_url(
            &at.key("endpoint"),
            &introspection.endpoint,
            "introspection endpoint",
            errors,
        );
        for (key, variable) in [
            ("client_id_env", &introspection.client_id_env),
            ("client_secret_env", &introspection.client_secret_env),
        ] {
            if !is_env_var_name(variable) {
                errors.report(
                    Diagnostic::value(at.key(key), format!("`{variable}` is not an environment variable name"))
                        .label("name the variable, not the credential")
                        .help("use uppercase letters, digits and `_`, e.g. \"MCP_INTROSPECTION_SECRET\"; credentials never go in the manifest"),
                );
            }
        }
    }
    Some(AuthModel {
        issuer: auth.issuer.clone(),
        audience: auth.audience.clone(),
        jwks_uri: auth.jwks_uri.clone(),
        algorithms: auth.algorithms.clone(),
        required_scopes: auth.required_scopes.clone(),
        leeway_seconds: auth.leeway_seconds,
        jwks_refresh_seconds: auth.jwks_refresh_seconds,
        introspection: auth.introspection.clone(),
        ca_pem,
        tool_scopes,
    })
}

/// `[audit] extra_fields = ["subject"]` without `[auth]` would write null on every record.
fn audited_subject_needs_auth(manifest: &Manifest, errors: &ErrorSink<'_>) {
    if manifest.auth.is_some() {
        return;
    }
    let subject = manifest
        .audit
        .extra_fields
        .iter()
        .position(|field| *field == manifest::AuditField::Subject);
    if let Some(index) = subject {
        errors.report(
            Diagnostic::value(ManifestPath::root().key("audit").key("extra_fields").index(index), "the audit record's subject needs [auth]")
                .label("no caller has a subject")
                .help("add an [auth] table (OAuth 2.1) so calls carry a token subject, or remove \"subject\""),
        );
    }
}

/// `rate_limit = { per = "subject" }` without `[auth]` would count every caller as one.
fn subject_limits_need_auth(manifest: &Manifest, errors: &ErrorSink<'_>) {
    if manifest.auth.is_some() {
        return;
    }
    let defaults = ManifestPath::root().key("defaults").key("guards");
    let tools = manifest.tools.iter().enumerate().map(|(index, tool)| {
        let path = ManifestPath::root().key("tools").index(index).key("guards");
        (path, &tool.guards)
    });
    for (path, guards) in std::iter::once((defaults, &manifest.defaults.guards)).chain(tools) {
        if guards
            .rate_limit
            .is_some_and(|limit| limit.per == manifest::RateLimitScope::Subject)
        {
            errors.report(
                Diagnostic::value(path.key("rate_limit").key("per"), "a rate limit per subject needs [auth]")
                    .label("no caller has a subject")
                    .help("add an [auth] table (OAuth 2.1) so calls carry a token subject, or count per tool (the default)"),
            );
        }
    }
}

/// The tools' own scopes, each checked; a tool with scopes but no `[auth]` is an error.
fn tool_scopes(manifest: &Manifest, errors: &ErrorSink<'_>) -> Vec<(String, Vec<String>)> {
    let mut scoped = Vec::new();
    for (index, tool) in manifest.tools.iter().enumerate() {
        if tool.scopes.is_empty() {
            continue;
        }
        let path = ManifestPath::root().key("tools").index(index).key("scopes");
        if manifest.auth.is_none() {
            errors.report(
                Diagnostic::value(path.clone(), format!("tool `{}` asks for scopes, but the manifest has no [auth]", tool.name))
                    .label("nothing checks these")
                    .help("add an [auth] table (issuer, audience) so tokens carry scopes, or remove `scopes`"),
            );
        }
        for (at, scope) in tool.scopes.iter().enumerate() {
            check_scope(&path.index(at), scope, errors);
        }
        scoped.push((tool.name.clone(), tool.scopes.clone()));
    }
    scoped
}

/// An absolute http(s) URL with a host; plain http only on loopback (a token's keys fetched
/// in the clear could be swapped by anyone on the path).
fn check_url(path: &ManifestPath, url: &str, what: &str, errors: &ErrorSink<'_>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        errors.report(
            Diagnostic::value(path.clone(), format!("the {what} is not an absolute URL"))
                .label("no scheme")
                .help("write an https URL, e.g. \"https://id.example.com\""),
        );
        return;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_name = host.rsplit_once(':').map_or(host, |(name, _)| name);
    let loopback = matches!(host_name, "localhost" | "[::1]") || host_name.starts_with("127.");
    let bad = match scheme {
        "https" => host.is_empty(),
        "http" => host.is_empty() || !loopback,
        _ => true,
    };
    if bad || url.contains(['"', ' ', '\\']) {
        errors.report(
            Diagnostic::value(path.clone(), format!("the {what} `{url}` is not an https URL"))
                .label("https, or http on loopback only")
                .help("tokens are checked against what this URL serves: fetched in the clear, anyone on the path could swap it"),
        );
    }
}

fn check_algorithms(path: &ManifestPath, algorithms: &[String], errors: &ErrorSink<'_>) {
    if algorithms.is_empty() {
        errors.report(
            Diagnostic::value(path.key("algorithms"), "no algorithm is accepted")
                .label("empty")
                .help("leave `algorithms` out for the RS256/ES256 families, or list the issuer's"),
        );
    }
    for (index, name) in algorithms.iter().enumerate() {
        if ACCEPTABLE.contains(&name.as_str()) {
            continue;
        }
        let (label, help) = if name.eq_ignore_ascii_case("none") {
            (
                "unsigned tokens",
                "`none` means anyone can write a token; it is never accepted".to_owned(),
            )
        } else if name.to_ascii_uppercase().starts_with("HS") {
            ("HMAC over a public key", "HMAC needs a shared secret; with a published key set anyone could sign a token with the public key. Use an asymmetric algorithm".to_owned())
        } else {
            (
                "unknown algorithm",
                format!("one of {}", ACCEPTABLE.join(", ")),
            )
        };
        errors.report(
            Diagnostic::value(
                path.key("algorithms").index(index),
                format!("algorithm `{name}` is not accepted"),
            )
            .label(label)
            .help(help),
        );
    }
}

/// A scope token (RFC 6749 section 3.3): printable ASCII without space, `"` or `\`.
fn check_scope(path: &ManifestPath, scope: &str, errors: &ErrorSink<'_>) {
    let valid = !scope.is_empty()
        && scope
            .bytes()
            .all(|byte| matches!(byte, 0x21 | 0x23..=0x5B | 0x5D..=0x7E));
    if !valid {
        errors.report(
            Diagnostic::value(path.clone(), format!("`{scope}` is not a scope"))
                .label("not a scope token")
                .help("one scope per string, without spaces, quotes or backslashes, e.g. \"tools:write\""),
        );
    }
}
