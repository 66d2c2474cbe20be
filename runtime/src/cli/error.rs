//! Every error the command line reports: [`CliError`], and the errors of the commands that
//! have their own (`bundle`, `call`, `health`), which it wraps. They are kept apart from the
//! commands so that a command can answer with a [`CliError`] while the error wraps the
//! command's own, without the two modules naming each other.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::audit::AuditError;
use crate::transport::ServeError;

/// A failure of the command line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The manifest's bind address does not parse (codegen checks it, so this is a bug).
    #[error("invalid bind address {0:?} in the manifest")]
    Bind(String),
    /// Serving failed.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// The audit log could not be created; the server does not start without it.
    #[error(transparent)]
    Audit(#[from] AuditError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// Writing to stdout failed.
    #[error("cannot write to stdout: {0}")]
    Stdout(std::io::Error),
    /// The bundle could not be written.
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// The health check failed.
    #[error(transparent)]
    Health(#[from] HealthError),
    /// `call` could not make the call.
    #[error(transparent)]
    Call(#[from] CallError),
    /// This executable's path is unknown.
    #[error("cannot find this executable: {0}")]
    CurrentExe(std::io::Error),
    /// The manifest turns auth on but the token's variable is unset or empty.
    #[error(transparent)]
    MissingToken(#[from] crate::transport::MissingToken),
    /// A rate limit kept in Redis has no usable Redis URL, or OTLP export cannot start.
    #[error(transparent)]
    Setup(#[from] crate::pipeline::SetupError),
    /// `[auth]` cannot start (introspection's credentials are missing).
    #[error(transparent)]
    Auth(#[from] crate::auth::AuthSetupError),
    /// A non-loopback bind without auth that the manifest does not allow.
    #[error(
        "refusing to serve {0} without auth: add an [auth] table (OAuth 2.1) or set [transport] auth_token_env, or allow_public_bind = true to accept the risk"
    )]
    PublicBind(SocketAddr),
}

/// Why the bundle could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// The manifest has no `[task]`.
    #[error("this server was generated without a [task] section, so it has no bundle")]
    NoBundle,
    /// The target holds files already.
    #[error("{0} is not empty; pass --force to overwrite the bundle's files in it")]
    NotEmpty(PathBuf),
    /// The binary would not run on the sidecar's `FROM scratch` image.
    #[error(
        "{0} is dynamically linked, so it cannot run on the sidecar's FROM scratch image; build a static binary with \
         `RUSTFLAGS=\"-C target-feature=+crt-static\" cargo build --release --target x86_64-unknown-linux-gnu` \
         (or `make bundle`), or pass --allow-dynamic to write the bundle anyway"
    )]
    Dynamic(PathBuf),
    /// The binary is not an ELF executable.
    #[error("{0} is not a 64-bit little-endian ELF executable")]
    NotElf(PathBuf),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Why a call could not be made (a refused call is an answer, not this).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The arguments are not a JSON object.
    #[error("the arguments are not a JSON object: {0}")]
    Arguments(String),
    /// The in-process session failed.
    #[error("the in-process session failed: {0}")]
    Session(String),
    /// The running server could not be reached or gave no answer to the call.
    #[error("{0}")]
    Remote(String),
    /// The call became a task that did not end with an answer `call` can print.
    #[error("{0}")]
    Task(String),
}

/// Why the health check failed.
#[derive(Debug, thiserror::Error)]
pub enum HealthError {
    /// Only `http://host:port/path` is supported.
    #[error("unsupported health url {0:?}: expected http://HOST:PORT/PATH")]
    Url(String),
    /// Connecting, writing or reading failed.
    #[error("health check failed: {0}")]
    Io(#[from] std::io::Error),
    /// The answer was not 200 `{"status":"ok"}`.
    #[error("unhealthy: {0}")]
    Unhealthy(String),
}
