//! `serve`: MCP over the manifest's transport (or `--transport`). Every refusal (a public
//! bind without auth, a missing token or Redis URL, a pinned upstream schema that does not
//! compile) comes before anything is created on disk, and the audit log is open before the
//! first request can arrive.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::builder::{PossibleValuesParser, TypedValueParser};

use crate::audit::AuditLog;
use crate::cli::error::CliError;
use crate::cli::shared::{async_runtime, manifest_bind};
use crate::server::GeneratedServer;
use crate::spec::TransportKind;
use crate::transport::{HttpOptions, HttpTransport, StatelessAnswer, serve_http, serve_stdio};

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Overrides the manifest's transport kind.
    #[arg(long, value_parser = transport_kind())]
    transport: Option<TransportKind>,
    /// Overrides the manifest's HTTP bind address (ADDRESS:PORT or HOST:PORT).
    #[arg(long, value_parser = socket_address)]
    bind: Option<SocketAddr>,
    /// Where the audit log goes [default: $XDG_STATE_HOME/<server>/audit.jsonl, else
    /// ~/.local/state/<server>/audit.jsonl; the bundle passes the manifest's path].
    #[arg(long)]
    audit_path: Option<PathBuf>,
    /// Serves streamable HTTP without sessions, answering with plain JSON (replicas
    /// behind a load balancer), whatever the manifest says.
    #[arg(long)]
    stateless: bool,
    /// Answer every stateless request through rmcp's own per-request service (the fast
    /// path off), to compare the two.
    #[arg(long)]
    rmcp_stateless: bool,
}

/// Serves until the transport ends; exit code 0.
pub(crate) fn run<S: GeneratedServer>(server: S, args: ServeArgs) -> Result<u8, CliError> {
    let ServeArgs {
        transport,
        bind,
        audit_path,
        stateless,
        rmcp_stateless,
    } = args;
    let fast_path = !rmcp_stateless;
    let spec = server.spec();
    let kind = transport.unwrap_or(spec.transport.kind);
    let bind = match bind {
        Some(bind) => bind,
        None => manifest_bind(spec)?,
    };
    let mut transport_spec = spec.transport;
    if stateless {
        transport_spec.stateful = false;
        transport_spec.json_response = true;
    }
    // Every refusal (a public bind without auth, a missing token, a Redis-backed rate limit
    // without its URL, OTLP export that cannot start) comes before anything is created on
    // disk.
    server.pipeline().check_setup()?;
    crate::server::check_upstreams(&server)?;
    let http = match kind {
        TransportKind::Stdio => None,
        TransportKind::StreamableHttp => Some(http_options(
            transport_spec,
            server.auth(),
            HttpTransport::StreamableHttp,
            bind,
        )?),
        TransportKind::Sse => Some(http_options(
            transport_spec,
            server.auth(),
            HttpTransport::Sse,
            bind,
        )?),
    }
    .map(|mut options| {
        #[cfg(feature = "gateway")]
        {
            options.upstreams = server.upstreams();
        }
        options.draining = server.pipeline().subscriptions().closing();
        options
    });
    // The audit file exists before the first request can arrive: "never called" must leave
    // an empty file, and a server that cannot audit must not serve.
    let audit_path = audit_path.unwrap_or_else(|| local_audit_path(spec.name));
    let audit = AuditLog::open(&audit_path, spec.audit)?;
    tracing::info!(path = %audit_path.display(), "audit log ready");
    // A fresh server has no audit log yet; a second one would be a programming error.
    let _ = server.pipeline().install_audit(audit);
    let runtime = async_runtime()?;
    tracing::info!(
        server = spec.name,
        version = spec.version,
        ?kind,
        "starting"
    );
    let served = runtime.block_on(async {
        #[cfg(feature = "gateway")]
        if let Some(upstreams) = server.upstreams() {
            upstreams.start().await;
            relay_resource_updates(server.clone(), upstreams.resource_updates());
        }
        match http {
            None => serve_stdio(server.clone()).await.map_err(CliError::from),
            Some(options) => {
                let fast: Option<Arc<dyn StatelessAnswer>> =
                    fast_path.then(|| Arc::new(server.clone()) as Arc<dyn StatelessAnswer>);
                Ok(serve_http(server.clone(), bind, options, fast).await?)
            }
        }
    });
    server.pipeline().flush_telemetry();
    // Records are written whole as they happen; make them durable before exiting.
    if let Some(audit) = server.pipeline().audit()
        && let Err(error) = audit.sync()
    {
        tracing::error!(%error, "audit log not synced at shutdown");
    }
    served.map(|()| 0)
}

/// Where `serve` writes the audit log without `--audit-path`: the user's state directory
/// (`$XDG_STATE_HOME/<server>/audit.jsonl`, else `~/.local/state/<server>/audit.jsonl`), which
/// a local run can write. The manifest's `[audit] path` is the container's: the bundle and the
/// Dockerfile pass it explicitly.
fn local_audit_path(server_name: &str) -> PathBuf {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let state = set("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".local/state")));
    match state {
        Some(dir) => dir.join(server_name).join("audit.jsonl"),
        None => PathBuf::from(format!("{server_name}-audit.jsonl")),
    }
}

/// The HTTP options of the manifest, refusing a public bind without auth (a static token or
/// `[auth]`) unless the manifest allows it.
fn http_options(
    transport: crate::spec::TransportSpec,
    auth: Option<&'static crate::spec::AuthSpec>,
    kind: HttpTransport,
    bind: SocketAddr,
) -> Result<HttpOptions, CliError> {
    let options = HttpOptions::from_manifest(transport, kind)?.with_auth(auth)?;
    let authenticated = options.security.token.is_some() || options.has_oauth();
    if !bind.ip().is_loopback() && !authenticated {
        if !transport.allow_public_bind {
            return Err(CliError::PublicBind(bind));
        }
        tracing::warn!(%bind, "serving a non-loopback address without auth (allow_public_bind = true)");
    }
    Ok(options)
}

/// `--transport`, accepting the manifest's names of [`TransportKind`].
fn transport_kind() -> impl TypedValueParser<Value = TransportKind> {
    PossibleValuesParser::new(TransportKind::ALL.iter().map(|kind| kind.as_str()))
        .map(|name| name.parse().expect("clap admits only the listed names"))
}

/// `--bind`: an IP address or a host name (`localhost:9999`), with a port; a name is resolved
/// and its first address taken.
fn socket_address(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    if let Ok(address) = text.parse() {
        return Ok(address);
    }
    text.to_socket_addrs()
        .map_err(|error| format!("not ADDRESS:PORT or HOST:PORT ({error})"))?
        .next()
        .ok_or_else(|| format!("{text} resolves to no address"))
}

/// Passes each update of a resource an upstream serves on to the server's own subscribers,
/// for as long as the server runs.
#[cfg(feature = "gateway")]
fn relay_resource_updates<S: GeneratedServer>(
    server: S,
    mut updates: tokio::sync::broadcast::Receiver<String>,
) {
    use tokio::sync::broadcast::error::RecvError;
    tokio::spawn(async move {
        loop {
            match updates.recv().await {
                Ok(uri) => {
                    if let Err(error) = server.pipeline().subscriptions().resource_updated(&uri) {
                        tracing::debug!(%error, "an upstream's update not passed on");
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(
                        missed,
                        "upstream resource updates came faster than they were passed on; some were dropped"
                    );
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_accepts_addresses_and_names_with_a_port() {
        assert_eq!(
            socket_address("127.0.0.1:1").unwrap(),
            "127.0.0.1:1".parse().unwrap()
        );
        assert!(socket_address("localhost:9999").unwrap().ip().is_loopback());
        assert!(socket_address("localhost").is_err(), "a port is required");
    }
}
