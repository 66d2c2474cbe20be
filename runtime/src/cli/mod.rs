//! The command line every generated server shares: `serve`, `tools`, `call`, `bundle`, `verify`, `health`.

mod bundle;
mod call;
mod call_remote;
mod health_probe;
mod run_ledger;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub use self::bundle::BundleError;
use self::bundle::write_bundle;
pub use self::call::CallError;
pub use self::health_probe::HealthError;
use harness_contract::transport::local_address_of;

use crate::audit::{AuditError, AuditLog};
use crate::server::GeneratedServer;
use crate::spec::{ServerSpec, ToolSpec, TransportKind};
use crate::transport::{
    HttpOptions, HttpTransport, ServeError, StatelessAnswer, serve_http, serve_stdio,
};
use crate::verify::{Evidence, Verdict, verify};

#[derive(Debug, Parser)]
#[command(
    version,
    about = "A hardened MCP tool server generated from harness.toml",
    args_override_self = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP (logs go to stderr; stdout belongs to the stdio transport).
    Serve {
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
    },
    /// Print the `tools/list` result as JSON.
    Tools,
    /// Write the Harbor task directory generated from the manifest, with this binary in it.
    Bundle {
        /// The directory to write.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite the bundle's files in a non-empty directory.
        #[arg(long)]
        force: bool,
        /// The server binary to ship (default: this executable). It must be static.
        #[arg(long)]
        binary: Option<PathBuf>,
        /// Write the bundle with a dynamically linked binary (for inspection only: the
        /// FROM scratch sidecar cannot run it).
        #[arg(long)]
        allow_dynamic: bool,
    },
    /// Run the manifest's checks on a finished run: exit 0 pass, 10 candidate failure,
    /// anything else infrastructure failure (with a one-line reason on stderr).
    Verify {
        /// A Harbor artifacts directory (files at their destinations).
        #[arg(long, conflicts_with = "root", required_unless_present = "root")]
        artifacts: Option<PathBuf>,
        /// A root where artifacts are restored at their source paths (`/` in the verifier).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Print the report as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Also write the run's ledger row (the ledger's pins, the verdict, the calls by
        /// outcome and their latency from the audit) to this file.
        #[arg(long, value_name = "FILE")]
        run_ledger: Option<PathBuf>,
    },
    /// Call one tool in-process through the whole server (validation, guards, envelope) and
    /// print what the model would see; exit 1 when the call failed.
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
        /// Print the whole JSON-RPC response instead.
        #[arg(long)]
        json: bool,
        /// Call a running server over streamable HTTP instead [URL default: the manifest's
        /// bind and MCP path]; the bearer token comes from the manifest's auth_token_env.
        #[arg(long, value_name = "URL")]
        url: Option<Option<String>>,
        /// Seconds to wait for a running server's answer.
        #[arg(long, default_value_t = 30)]
        timeout_seconds: u64,
    },
    /// Exit 0 when URL answers 200 {"status":"ok"} (the image's HEALTHCHECK).
    Health {
        /// The health endpoint [default: the manifest's bind and health_path, on loopback when
        /// the bind is every interface].
        #[arg(long)]
        url: Option<String>,
        /// Seconds to wait.
        #[arg(long, default_value_t = 2)]
        timeout_seconds: u64,
    },
}

/// `--transport`, accepting the manifest's names of [`TransportKind`].
fn transport_kind() -> impl TypedValueParser<Value = TransportKind> {
    PossibleValuesParser::new(TransportKind::ALL.iter().map(|kind| kind.as_str()))
        .map(|name| name.parse().expect("clap admits only the listed names"))
}

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
    Call(#[from] self::call::CallError),
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

/// The command line every generated server shares, as clap defines it (the book's reference).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the command line, runs it against `server`, and turns the result into the exit
/// code (errors are printed on stderr).
pub fn main<S: GeneratedServer>(server: S) -> std::process::ExitCode {
    match run(server) {
        Ok(code) => std::process::ExitCode::from(code),
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Parses the command line and runs it against `server`; returns the exit code.
pub fn run<S: GeneratedServer>(server: S) -> Result<u8, CliError> {
    // `--version` and `--help` name the generated server, not this library.
    let spec = server.spec();
    let command = Cli::command().name(spec.name).version(spec.version);
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    init_logging();
    // Before any HTTP client exists: reqwest has no rustls provider of its own here, and a
    // client built outside the runtime (rmcp's, the OTLP exporter's, a body's) needs one.
    #[cfg(any(feature = "gateway", feature = "oauth", feature = "otel"))]
    crate::http_client::install_default_provider();
    let done = Ok(0);
    match cli.command {
        Command::Serve {
            transport,
            bind,
            audit_path,
            stateless,
            rmcp_stateless,
        } => serve(
            server,
            transport,
            bind,
            audit_path,
            stateless,
            !rmcp_stateless,
        )
        .and(done),
        Command::Tools => {
            let tools: Vec<_> = server.tool_specs().iter().map(ToolSpec::to_tool).collect();
            let listing = serde_json::json!({ "tools": tools });
            print_line(&serde_json::to_string_pretty(&listing).expect("tools serialize"))?;
            done
        }
        Command::Verify {
            artifacts,
            root,
            json,
            run_ledger,
        } => {
            let evidence = match (artifacts, root) {
                (Some(dir), _) => Evidence::Artifacts(dir),
                (None, Some(root)) => Evidence::Root(root),
                (None, None) => unreachable!("clap requires one of them"),
            };
            let report = verify(server.verifier(), &evidence);
            if json {
                print_line(
                    &serde_json::to_string_pretty(&report).expect("the report is plain JSON"),
                )?;
            }
            if let Some(path) = run_ledger {
                // The row goes where the reward goes: failing to write it is the
                // infrastructure's failure, never a verdict on the candidate.
                let row = run_ledger::row(server.bundle(), &report);
                if let Err(error) = run_ledger::write(&path, &row) {
                    eprintln!(
                        "infrastructure failure: cannot write the run ledger {}: {error}",
                        path.display()
                    );
                    return Ok(1);
                }
            }
            match &report.verdict {
                Verdict::Pass => {}
                Verdict::CandidateFailure(reason) => eprintln!("candidate failure: {reason}"),
                Verdict::InfrastructureFailure(reason) => {
                    eprintln!("infrastructure failure: {reason}")
                }
            }
            Ok(report.verdict.exit_code())
        }
        Command::Bundle {
            out,
            force,
            binary,
            allow_dynamic,
        } => {
            let binary = match binary {
                Some(binary) => binary,
                None => std::env::current_exe().map_err(CliError::CurrentExe)?,
            };
            let written = write_bundle(server.bundle(), &out, &binary, force, allow_dynamic)?;
            for path in written {
                print_line(&path.display().to_string())?;
            }
            // The paths go to stdout (for scripts); what to do next goes to stderr.
            eprintln!(
                "\nThe Harbor task is in {dir}. Next:\n  \
                 harbor trial start -p {dir} -a <agent> -e docker   # one trial with Harbor 0.18\n  \
                 harbor run -p {dir} -a <agent> -e docker -o jobs -y  # a job\n\
                 Its images pin registry bases; where no registry is reachable, set \
                 HARNESS_MAIN_BASE_IMAGE for main and build tests/ with --build-arg \
                 VERIFIER_BASE_IMAGE=<image>, or run ./scripts/compose-proof.sh, which does.",
                dir = out.display()
            );
            done
        }
        Command::Call {
            tool,
            arguments,
            json,
            url,
            timeout_seconds,
        } => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(CliError::Runtime)?;
            let reply = match url {
                None => {
                    server.pipeline().check_setup()?;
                    crate::server::check_upstreams(&server)?;
                    let pipeline = server.clone();
                    let reply =
                        runtime.block_on(self::call::call_in_process(server, &tool, &arguments))?;
                    pipeline.pipeline().flush_telemetry();
                    reply
                }
                Some(url) => {
                    let spec = server.spec();
                    let remote = self::call_remote::Remote {
                        url: match url {
                            Some(url) => url,
                            None => manifest_url(spec, spec.transport.path)?,
                        },
                        token: spec
                            .transport
                            .auth_token_env
                            .and_then(|name| std::env::var(name).ok())
                            .filter(|token| !token.is_empty()),
                        timeout: std::time::Duration::from_secs(timeout_seconds),
                    };
                    runtime.block_on(self::call_remote::call_remote(&remote, &tool, &arguments))?
                }
            };
            let (text, failed) = self::call::model_view(&reply);
            if json {
                print_line(&serde_json::to_string_pretty(&reply).expect("plain JSON"))?;
            } else {
                print_line(&text)?;
            }
            Ok(u8::from(failed))
        }
        Command::Health {
            url,
            timeout_seconds,
        } => {
            let url = match url {
                Some(url) => url,
                None => {
                    let spec = server.spec();
                    manifest_url(spec, spec.transport.health_path)?
                }
            };
            self::health_probe::check(&url, std::time::Duration::from_secs(timeout_seconds))?;
            done
        }
    }
}

fn serve<S: GeneratedServer>(
    server: S,
    transport: Option<TransportKind>,
    bind: Option<SocketAddr>,
    audit_path: Option<PathBuf>,
    stateless: bool,
    fast_path: bool,
) -> Result<(), CliError> {
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
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
    served
}

/// `path` on the manifest's bind address, on loopback when the bind is every interface (the
/// bundle's healthcheck reaches the sidecar the same way).
fn manifest_url(spec: &ServerSpec, path: &str) -> Result<String, CliError> {
    let address = local_address_of(manifest_bind(spec)?);
    Ok(format!("http://{address}{path}"))
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

/// The manifest's bind address (codegen checked that it parses).
fn manifest_bind(spec: &ServerSpec) -> Result<SocketAddr, CliError> {
    spec.transport
        .bind
        .parse()
        .map_err(|_| CliError::Bind(spec.transport.bind.to_owned()))
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

/// Writes one line to stdout; a closed pipe (`tools | head`) ends the output quietly.
fn print_line(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    match writeln!(std::io::stdout(), "{text}") {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Stdout(error))
        }
        _ => Ok(()),
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

/// The log filter when RUST_LOG is unset: rmcp logs every stateless request's session start
/// and end at info level (three lines per call, one with the whole client info), which
/// buries the server's own lines and costs more CPU than the call.
const DEFAULT_LOG_FILTER: &str = "info,rmcp=warn";

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER));
    // Ignore a second initialisation (tests may call `run` twice in one process).
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
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
