//! The `[auth]` table: the server as an OAuth 2.1 resource server (MCP "Authorization"),
//! beside `[transport] auth_token_env`'s one static token. Secrets (introspection's client
//! secret) are named by environment variable, never written here.

use schemars::JsonSchema;
use serde::Deserialize;

/// The `[auth]` table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Auth {
    /// The authorization server's issuer identifier, e.g. `https://id.example.com/realms/tools`:
    /// every token's `iss`, and where its metadata is discovered.
    pub issuer: String,
    /// This server's resource URI (RFC 8707), e.g. `https://mcp.example.com/mcp`: every
    /// token's `aud`, and the `resource` of the protected-resource metadata (RFC 9728).
    pub audience: String,
    /// The issuer's key set (JWKS); without it, found in the issuer's metadata
    /// (`/.well-known/openid-configuration`, then `/.well-known/oauth-authorization-server`).
    pub jwks_uri: Option<String>,
    /// JWS algorithms a token may be signed with: RS256, RS384, RS512, PS256, PS384, PS512,
    /// ES256, ES384 or EdDSA. Never `none`, never HMAC (the keys are public).
    #[serde(default = "default_algorithms")]
    pub algorithms: Vec<String>,
    /// Scopes every request's token must grant.
    #[serde(default)]
    pub required_scopes: Vec<String>,
    /// Seconds of clock skew allowed on `exp` and `nbf` (at most 300).
    #[serde(default = "default_leeway")]
    pub leeway_seconds: u64,
    /// Seconds between two key-set fetches caused by tokens naming an unknown key id (at
    /// least 1): a rotation is picked up at its first token, a flood of made-up ids costs one
    /// fetch per period.
    #[serde(default = "default_jwks_refresh")]
    pub jwks_refresh_seconds: u64,
    /// A PEM file of CA certificates (relative to the manifest) trusted for the issuer's
    /// endpoints besides Mozilla's roots: a provider behind a private CA. Embedded in the
    /// server when it is built.
    pub ca_file: Option<String>,
    /// RFC 7662 introspection for tokens that are not JWTs.
    pub introspection: Option<Introspection>,
}

/// `[auth.introspection]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Introspection {
    /// The introspection endpoint, e.g. `https://id.example.com/token/introspect`.
    pub endpoint: String,
    /// The environment variable holding this server's client id at the issuer.
    pub client_id_env: String,
    /// The environment variable holding that client's secret.
    pub client_secret_env: String,
    /// Seconds an active answer is reused for the same token (never past its `exp`; at most
    /// 600; 0 asks the endpoint on every request). Inactive answers are not kept.
    #[serde(default = "default_introspection_cache")]
    pub cache_seconds: u64,
}

/// The asymmetric families every common provider signs with (Keycloak, Auth0 and Entra ID
/// default to RS256; ES256 is the compact choice).
pub(crate) const DEFAULT_ALGORITHMS: &[&str] = &[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
];

fn default_algorithms() -> Vec<String> {
    DEFAULT_ALGORITHMS
        .iter()
        .map(|name| (*name).to_owned())
        .collect()
}

fn default_leeway() -> u64 {
    60
}

fn default_jwks_refresh() -> u64 {
    30
}

fn default_introspection_cache() -> u64 {
    60
}
