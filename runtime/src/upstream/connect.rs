//! Opening one connection to an upstream: a child process with only the environment the
//! manifest allows, or a streamable HTTP client whose headers come from named variables;
//! then MCP's `initialize` (2025-11-25) or `server/discover` (2026-07-28), within the
//! upstream's time limit.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};

use crate::spec::{EndpointSpec, UpstreamProtocol, UpstreamSpec};
use crate::upstream::handler::UpstreamHandler;

/// A live connection: rmcp's client service over the upstream's transport.
pub(crate) type Connection = RunningService<RoleClient, UpstreamHandler>;

/// Why a connection could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConnectError {
    /// The child process did not start.
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        /// The program.
        command: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// A header's variable is unset or not a valid header value.
    #[error("header {header}: {reason}")]
    Header {
        /// The header.
        header: &'static str,
        /// Why.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("HTTP client: {0}")]
    Client(String),
    /// `initialize` failed.
    #[error("initialize failed: {0}")]
    Initialize(String),
    /// `initialize` took longer than the upstream's `timeout_ms`.
    #[error("no answer to initialize within {0} ms")]
    Timeout(u64),
}

/// Opens a connection to `spec` and initializes it.
pub(crate) async fn connect(
    spec: &'static UpstreamSpec,
    handler: UpstreamHandler,
) -> Result<Connection, ConnectError> {
    let limit = Duration::from_millis(spec.timeout_ms);
    // A 2026-07-28 upstream that turns out to speak only 2025-11-25 is an error, not a
    // fallback: the manifest says which protocol the gateway relies on.
    let lifecycle = match spec.protocol {
        UpstreamProtocol::V2025_11_25 => ClientLifecycleMode::Initialize,
        UpstreamProtocol::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let started = async {
        match spec.endpoint {
            EndpointSpec::Stdio {
                command,
                args,
                cwd,
                env,
            } => {
                let (transport, stderr) = child(spec.name, command, args, cwd, env)?;
                match handler.serve_with_lifecycle(transport, lifecycle).await {
                    Ok(connection) => Ok(connection),
                    Err(error) => Err(ConnectError::Initialize(format!(
                        "{error}{}",
                        stderr.after_failure().await
                    ))),
                }
            }
            EndpointSpec::StreamableHttp {
                url,
                headers,
                ca_pem,
            } => {
                // No redirects (a redirect could carry the headers to another host); Mozilla's
                // roots and the manifest's `ca_file`.
                let client = crate::http_client::client(ca_pem)
                    .map_err(|error| ConnectError::Client(error.to_string()))?;
                let transport = http(url, headers, client.clone())?;
                match handler.serve_with_lifecycle(transport, lifecycle).await {
                    Ok(connection) => Ok(connection),
                    Err(error) => Err(ConnectError::Initialize(format!(
                        "{error}{}",
                        why_unreachable(&client, url).await
                    ))),
                }
            }
        }
    };
    tokio::time::timeout(limit, started)
        .await
        .map_err(|_| ConnectError::Timeout(spec.timeout_ms))?
}

/// Why `url` cannot be reached at all, when that is why the connection failed: rmcp's error
/// keeps only "error sending request", and an untrusted certificate or a refused connection
/// should say so in the log and on `/health`. One plain request, made only after a failure.
async fn why_unreachable(client: &reqwest::Client, url: &str) -> String {
    // Bounded apart from the connection's own limit: a server that is reachable but slow to
    // answer a GET must not turn the real error into a timeout.
    let probe = tokio::time::timeout(Duration::from_secs(2), client.get(url).send()).await;
    match probe {
        Ok(Err(error)) if error.is_connect() || error.is_request() => {
            let mut why = String::new();
            let mut cause = std::error::Error::source(&error);
            while let Some(inner) = cause {
                why = inner.to_string();
                cause = inner.source();
            }
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        }
        _ => String::new(),
    }
}

/// The child process: its environment cleared but for `PATH` and the allowed variables (the
/// server's own secrets, such as its bearer token, never reach it), its stderr logged (and
/// its last lines kept, for an error), killed when the connection drops.
fn child(
    upstream: &'static str,
    command: &'static str,
    args: &'static [&'static str],
    cwd: Option<&'static str>,
    env: &'static [&'static str],
) -> Result<(TokioChildProcess, StderrTail), ConnectError> {
    let mut process = tokio::process::Command::new(command);
    process.args(args).env_clear().kill_on_drop(true);
    for name in std::iter::once(&"PATH").chain(env) {
        if let Some(value) = std::env::var_os(name) {
            process.env(name, value);
        }
    }
    if let Some(cwd) = cwd {
        process.current_dir(cwd);
    }
    let (child, stderr) = TokioChildProcess::builder(process)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|source| ConnectError::Spawn { command, source })?;
    let tail = StderrTail::default();
    if let Some(stderr) = stderr {
        tokio::spawn(log_stderr(upstream, stderr, tail.clone()));
    }
    Ok((child, tail))
}

/// Lines of a child's stderr an error quotes, at most, and the characters of each.
const TAIL_LINES: usize = 12;
const TAIL_LINE_CHARS: usize = 300;

/// The last lines a child wrote to stderr, and whether it closed stderr (it exited): what a
/// user needs to see when the upstream fails to start, rather than a bare "connection
/// closed".
#[derive(Clone, Default)]
struct StderrTail(std::sync::Arc<TailState>);

#[derive(Default)]
struct TailState {
    lines: std::sync::Mutex<std::collections::VecDeque<String>>,
    closed: tokio::sync::Notify,
    is_closed: std::sync::atomic::AtomicBool,
}

impl StderrTail {
    fn push(&self, line: &str) {
        let mut lines = self.0.lines.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line.chars().take(TAIL_LINE_CHARS).collect());
    }

    fn close(&self) {
        self.0
            .is_closed
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.0.closed.notify_waiters();
    }

    /// What to add to an error once the connection failed: whether the process is gone, and
    /// the last lines of its stderr. Waits a moment for a dying process's last lines.
    async fn after_failure(&self) -> String {
        let mut closed = std::pin::pin!(self.0.closed.notified());
        closed.as_mut().enable();
        if !self.0.is_closed.load(std::sync::atomic::Ordering::SeqCst) {
            let _ = tokio::time::timeout(Duration::from_millis(500), closed).await;
        }
        let gone = self.0.is_closed.load(std::sync::atomic::Ordering::SeqCst);
        let lines = self.0.lines.lock().unwrap_or_else(|p| p.into_inner());
        let mut why = String::new();
        if gone {
            why.push_str("; the process exited (its stderr closed)");
        }
        if lines.is_empty() {
            why.push_str("; it wrote nothing to stderr");
        } else {
            why.push_str("; the last lines of its stderr:");
            for line in lines.iter() {
                why.push_str("\n    ");
                why.push_str(line);
            }
        }
        why
    }
}

/// Lines of a child's stderr written to the server log per second, at most (a child that
/// floods its stderr cannot flood the log).
const STDERR_LINES_PER_SECOND: u32 = 20;

/// The child's stderr, line by line, into the server log under the upstream's name: stripped
/// like anything else the upstream writes, each line cut at 1,000 characters, at most
/// [`STDERR_LINES_PER_SECOND`] a second (what is dropped is counted before the next line).
/// Every line also goes to `tail`, which is closed when the child closes its stderr.
async fn log_stderr(upstream: &'static str, stderr: tokio::process::ChildStderr, tail: StderrTail) {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let mut window = tokio::time::Instant::now();
    let (mut written, mut dropped) = (0u32, 0u64);
    while let Ok(Some(line)) = lines.next_line().await {
        if window.elapsed() >= std::time::Duration::from_secs(1) {
            window = tokio::time::Instant::now();
            written = 0;
        }
        let line = crate::guards::strip::sanitize(&line, true);
        tail.push(&line);
        if written == STDERR_LINES_PER_SECOND {
            dropped += 1;
            continue;
        }
        written += 1;
        let line: String = line.chars().take(1000).collect();
        if dropped > 0 {
            tracing::warn!(
                upstream,
                dropped,
                "upstream stderr lines dropped (at most 20 a second)"
            );
            dropped = 0;
        }
        tracing::info!(upstream, stderr = %line, "upstream stderr");
    }
    tail.close();
}

/// The streamable HTTP client, with each manifest header's value read from its variable now
/// (a rotated secret is picked up on reconnect).
fn http(
    url: &'static str,
    headers: &'static [(&'static str, &'static str)],
    client: reqwest::Client,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, ConnectError> {
    let mut custom = HashMap::new();
    for &(header, variable) in headers {
        let value = std::env::var(variable).map_err(|_| ConnectError::Header {
            header,
            reason: format!("variable {variable} is not set"),
        })?;
        let name = http::HeaderName::from_bytes(header.as_bytes()).map_err(|error| {
            ConnectError::Header {
                header,
                reason: error.to_string(),
            }
        })?;
        let mut value = http::HeaderValue::from_str(&value).map_err(|_| ConnectError::Header {
            header,
            reason: format!("the value of {variable} is not a valid header value"),
        })?;
        value.set_sensitive(true);
        custom.insert(name, value);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}
