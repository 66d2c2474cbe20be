//! Why `[auth]` cannot start: compiled with or without the `oauth` feature, so that a server
//! built without it still refuses an `[auth]` it cannot enforce, with the reason.

/// Why `[auth]` cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthSetupError {
    /// Introspection's client credentials are missing from the environment.
    #[error(transparent)]
    MissingCredential(#[from] MissingCredential),
    /// The HTTP client for the issuer cannot be built (a CA in `ca_file` that cannot be
    /// trusted, say).
    #[error("[auth]: {0}")]
    Client(String),
    /// The server has an `[auth]` but was built without harness-runtime's `oauth` feature,
    /// so it could not check a token (generated code stops such a build; a server written
    /// by hand meets this instead).
    #[error(
        "[auth]: this server was built without harness-runtime's `oauth` feature and cannot check tokens: enable it in Cargo.toml"
    )]
    FeatureOff,
}

/// A variable the manifest names for introspection is unset or empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[auth] introspection needs the client credentials in ${0}, which is not set (or empty)")]
pub struct MissingCredential(pub &'static str);
