//! Why a transport stopped serving.

use std::net::SocketAddr;

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The stdio session could not start (e.g. the client sent no `initialize`).
    #[error("stdio session failed to start: {0}")]
    StdioInit(String),
    /// The stdio session ended abnormally.
    #[error("stdio session failed: {0}")]
    Stdio(String),
    /// The HTTP listener could not bind.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
    /// The HTTP server failed.
    #[error("HTTP server failed: {0}")]
    Http(std::io::Error),
}
