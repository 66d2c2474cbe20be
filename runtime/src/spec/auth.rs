//! The `[auth]` table: the OAuth 2.1 resource server a generated server is (MCP
//! "Authorization"), and the scopes each tool asks for.

/// The `[auth]` table of the manifest.
#[derive(Debug, Clone, Copy)]
pub struct AuthSpec {
    /// The authorization server's issuer identifier (the `iss` every token must carry).
    pub issuer: &'static str,
    /// This server's resource URI (RFC 8707): the `aud` every token must carry, and the
    /// `resource` of its protected-resource metadata (RFC 9728).
    pub audience: &'static str,
    /// Where the issuer publishes its signing keys; `None` discovers it from the issuer's
    /// metadata (OpenID Connect discovery, then RFC 8414).
    pub jwks_uri: Option<&'static str>,
    /// The JWS algorithms a token may be signed with (asymmetric only: `none` and HMAC are
    /// never accepted).
    pub algorithms: &'static [&'static str],
    /// Scopes every request's token must grant.
    pub required_scopes: &'static [&'static str],
    /// Seconds of clock skew allowed on `exp` and `nbf`.
    pub leeway_seconds: u64,
    /// Seconds between two key-set fetches for a token whose `kid` is unknown: a flood of
    /// made-up key ids costs the issuer one fetch per period.
    pub jwks_refresh_seconds: u64,
    /// RFC 7662 introspection for tokens that are not JWTs.
    pub introspection: Option<IntrospectionSpec>,
    /// Certificates (PEM) trusted for the issuer's endpoints besides Mozilla's roots: the
    /// manifest's `ca_file`, embedded when the server is built.
    pub ca_pem: Option<&'static str>,
    /// The scopes each tool's `tools/call` needs beyond `required_scopes`, by tool name.
    pub tool_scopes: &'static [(&'static str, &'static [&'static str])],
}

/// Where and as whom the server introspects opaque tokens (RFC 7662).
#[derive(Debug, Clone, Copy)]
pub struct IntrospectionSpec {
    /// The introspection endpoint.
    pub endpoint: &'static str,
    /// The environment variable holding this server's client id at the issuer.
    pub client_id_env: &'static str,
    /// The environment variable holding that client's secret (never in the manifest).
    pub client_secret_env: &'static str,
    /// Seconds an active answer is reused for the same token, never past its `exp` (0: ask
    /// on every request).
    pub cache_seconds: u64,
}

impl AuthSpec {
    /// The scopes `tool` needs beyond the server-wide ones.
    pub fn scopes_of(&self, tool: &str) -> &'static [&'static str] {
        self.tool_scopes
            .iter()
            .find(|(name, _)| *name == tool)
            .map_or(&[], |(_, scopes)| scopes)
    }

    /// Every scope the server asks for somewhere, server-wide first, without repeats.
    pub fn all_scopes(&self) -> Vec<&'static str> {
        let mut scopes: Vec<&'static str> = Vec::new();
        let tools = self
            .tool_scopes
            .iter()
            .flat_map(|(_, scopes)| scopes.iter());
        for scope in self.required_scopes.iter().chain(tools) {
            if !scopes.contains(scope) {
                scopes.push(scope);
            }
        }
        scopes
    }
}
