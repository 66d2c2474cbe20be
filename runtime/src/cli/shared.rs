//! What several commands share: the manifest's address, the async runtime, and writing a
//! line to stdout.

use std::net::SocketAddr;

use harness_contract::transport::local_address_of;

use crate::cli::error::CliError;
use crate::spec::ServerSpec;

/// `path` on the manifest's bind address, on loopback when the bind is every interface (the
/// bundle's healthcheck reaches the sidecar the same way).
pub(crate) fn manifest_url(spec: &ServerSpec, path: &str) -> Result<String, CliError> {
    let address = local_address_of(manifest_bind(spec)?);
    Ok(format!("http://{address}{path}"))
}

/// The manifest's bind address (codegen checked that it parses).
pub(crate) fn manifest_bind(spec: &ServerSpec) -> Result<SocketAddr, CliError> {
    spec.transport
        .bind
        .parse()
        .map_err(|_| CliError::Bind(spec.transport.bind.to_owned()))
}

/// Writes one line to stdout; a closed pipe (`tools | head`) ends the output quietly.
pub(crate) fn print_line(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    match writeln!(std::io::stdout(), "{text}") {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Stdout(error))
        }
        _ => Ok(()),
    }
}

/// The multi-threaded runtime a command's async work runs on.
pub(crate) fn async_runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{AuditSpec, FsyncPolicy};
    use crate::spec::{RateLimitStoreSpec, TransportSpec};

    fn spec(bind: &'static str) -> ServerSpec {
        ServerSpec {
            name: "test",
            version: "0",
            title: None,
            instructions: None,
            transport: TransportSpec {
                bind,
                ..TransportSpec::stdio()
            },
            audit: AuditSpec {
                path: "audit.jsonl",
                schema_version: 1,
                trace_id: false,
                error_code: false,
                subject: false,
                fsync: FsyncPolicy::Never,
            },
            rate_limit_store: RateLimitStoreSpec::DEFAULT,
            manifest_sha256: "",
            catalog: crate::catalog::CatalogSpec::EMPTY,
            request_state_key_env: None,
            max_in_flight: None,
        }
    }

    #[test]
    fn health_and_call_default_to_the_manifest_address_on_loopback() {
        assert_eq!(
            manifest_url(&spec("127.0.0.1:8765"), "/health").unwrap(),
            "http://127.0.0.1:8765/health"
        );
        assert_eq!(
            manifest_url(&spec("0.0.0.0:8080"), "/mcp").unwrap(),
            "http://127.0.0.1:8080/mcp"
        );
        assert_eq!(
            manifest_url(&spec("[::]:8080"), "/health").unwrap(),
            "http://[::1]:8080/health"
        );
    }
}
