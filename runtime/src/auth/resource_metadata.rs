//! The protected-resource metadata (RFC 9728) a client reads to find the authorization
//! server: served at `/.well-known/oauth-protected-resource` and at the same path suffixed
//! with the resource's own path (`/.well-known/oauth-protected-resource/mcp`), the location
//! RFC 9728 section 3.1 derives from the resource identifier and the one the 401's
//! `resource_metadata` names.

use serde_json::{Value, json};

use crate::spec::AuthSpec;

/// The well-known path of RFC 9728.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document.
pub(crate) fn document(spec: &AuthSpec) -> Value {
    json!({
        "resource": spec.audience,
        "authorization_servers": [spec.issuer],
        "scopes_supported": spec.all_scopes(),
        "bearer_methods_supported": ["header"],
    })
}

/// The resource identifier split into its origin and path: `https://h/mcp` -> (`https://h`,
/// `/mcp`); a bare origin has the path "".
fn split(resource: &str) -> (&str, &str) {
    let after_scheme = resource.find("://").map_or(0, |at| at + 3);
    match resource[after_scheme..].find('/') {
        Some(slash) => resource.split_at(after_scheme + slash),
        None => (resource, ""),
    }
}

/// Where clients fetch the metadata (absolute): the well-known path inserted between the
/// resource's origin and its path.
pub(crate) fn url(spec: &AuthSpec) -> String {
    let (origin, path) = split(spec.audience.trim_end_matches('/'));
    format!("{origin}{WELL_KNOWN}{path}")
}

/// The paths this server answers with the metadata: the bare well-known path, and the one
/// suffixed with the resource's path (when it has one).
pub(crate) fn paths(spec: &AuthSpec) -> Vec<String> {
    let (_, path) = split(spec.audience.trim_end_matches('/'));
    let mut paths = vec![WELL_KNOWN.to_owned()];
    if !path.is_empty() {
        paths.push(format!("{WELL_KNOWN}{path}"));
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: AuthSpec = AuthSpec {
        issuer: "https://id.example",
        audience: "https://mcp.example/mcp",
        jwks_uri: None,
        algorithms: &["RS256"],
        required_scopes: &["mcp"],
        leeway_seconds: 60,
        jwks_refresh_seconds: 30,
        introspection: None,
        ca_pem: None,
        tool_scopes: &[("restart", &["tools:write", "mcp"])],
    };

    #[test]
    fn the_metadata_sits_between_the_origin_and_the_resource_path() {
        assert_eq!(
            url(&SPEC),
            "https://mcp.example/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            paths(&SPEC),
            [WELL_KNOWN, "/.well-known/oauth-protected-resource/mcp"]
        );
        let document = document(&SPEC);
        assert_eq!(document["resource"], "https://mcp.example/mcp");
        assert_eq!(
            document["authorization_servers"],
            json!(["https://id.example"])
        );
        assert_eq!(document["scopes_supported"], json!(["mcp", "tools:write"]));
    }
}
