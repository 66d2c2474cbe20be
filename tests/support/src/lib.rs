//! Test helpers shared by the end-to-end tests of every generated server: start the binary
//! over stdio or streamable HTTP with its own audit file, connect rmcp's real MCP client,
//! and call tools; and [`strip_oracle`], what the tag strip promises, for the runtime's tests
//! and the fuzz target.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::Value;

mod child_log;
mod net;
mod redis;
mod stateless;
pub mod strip_oracle;
pub mod tls;

pub use child_log::ChildLog;
pub use net::{ClosedPort, Relay};
pub use redis::RedisServer;
pub use stateless::{RpcError, StatelessClient};

/// The bearer token test servers get (as `OPS_AGENT_TOKEN`) and test clients send; servers
/// without auth ignore it.
pub const TEST_TOKEN: &str = "test-token-0123456789";

/// A connected MCP client.
pub type Client = RunningService<RoleClient, ()>;

/// A fresh, empty directory for one test, removed with everything in it when dropped, so
/// test runs leave nothing behind in the system's temp directory (bundles there are hundreds
/// of megabytes). Set `HARNESS_KEEP_SCRATCH=1` to keep them for a post-mortem.
pub struct ScratchDir(tempfile::TempDir);

impl std::ops::Deref for ScratchDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for ScratchDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

/// A path for one file in its own scratch directory, which goes when this is dropped.
pub struct ScratchFile {
    path: PathBuf,
    _dir: ScratchDir,
}

impl std::ops::Deref for ScratchFile {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for ScratchFile {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for ScratchFile {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

/// `file` (not yet created) in a fresh scratch directory named after the test.
pub fn scratch_file(name: &str, file: &str) -> ScratchFile {
    let dir = scratch_dir(name);
    ScratchFile {
        path: dir.join(file),
        _dir: dir,
    }
}

/// A fresh, empty directory for one test, named after it.
pub fn scratch_dir(name: &str) -> ScratchDir {
    let keep = std::env::var_os("HARNESS_KEEP_SCRATCH").is_some_and(|value| value == "1");
    let dir = tempfile::Builder::new()
        .prefix(&format!("harness-test-{name}-"))
        .disable_cleanup(keep)
        .tempdir()
        .expect("temp dir is writable");
    ScratchDir(dir)
}

/// Starts `binary serve --transport stdio --audit-path AUDIT` and initializes a client.
pub async fn stdio_client(binary: &str, audit: &Path) -> Client {
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(binary).configure(|command| {
            command
                .args(["serve", "--transport", "stdio", "--audit-path"])
                .arg(audit)
                .env("OPS_AGENT_TOKEN", TEST_TOKEN)
                .stderr(Stdio::null());
        }))
        .expect("server starts");
    ().serve(transport).await.expect("initialize over stdio")
}

/// A server process on a loopback port it picked itself, killed when dropped.
pub struct HttpServer {
    child: std::process::Child,
    log: ChildLog,
    /// The port it listens on.
    pub port: u16,
}

/// The log filter test servers get unless the test names another: the server's own default,
/// which includes the line that says where it listens.
const SERVER_LOG_FILTER: &str = "info,rmcp=warn";

/// How long a server may take to start. A gateway serves only once its upstreams had their
/// first try, and `npx` starting server-everything took over 20 s on a loaded two-core CI
/// machine (a cold CI run failed two gateway tests so); a healthy start is far quicker, and
/// this bounds only a server that never starts.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// `command.spawn()`, again while it fails with ETXTBSY: an executable a test has just
/// written is "busy" while another test's fork (between fork and exec) still holds the
/// descriptor it was written through, which ends as soon as that child execs. A CI run
/// failed on it (`a_server_that_exits_fails_the_test_at_once_with_its_stderr`).
fn spawn_past_text_file_busy(
    command: &mut std::process::Command,
) -> std::io::Result<std::process::Child> {
    let mut attempts = 0;
    loop {
        match command.spawn() {
            Err(error)
                if error.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 100 =>
            {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            spawned => return spawned,
        }
    }
}

impl HttpServer {
    /// Starts `binary serve --transport streamable-http` on a port of its own choosing and
    /// waits for `/health`.
    pub fn start(binary: &str, audit: &Path) -> Self {
        Self::start_with(binary, audit, &[])
    }

    /// [`HttpServer::start`] with more arguments for `serve` (e.g. `--stateless`).
    pub fn start_with(binary: &str, audit: &Path, extra: &[&str]) -> Self {
        Self::start_with_env(binary, audit, extra, &[])
    }

    /// [`HttpServer::start_with`] with more environment variables (`RUST_LOG` among them
    /// overrides the filter the server logs with by default; the server must still log where
    /// it listens).
    ///
    /// The server binds port 0, so the kernel picks a port nobody holds, and logs the
    /// address it got; that is the port used. No port is picked here and released for a
    /// parallel test to take first. A server that exits before it is healthy fails the test
    /// at once, with its stderr.
    pub fn start_with_env(
        binary: &str,
        audit: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let mut command = std::process::Command::new(binary);
        command
            .args(["serve", "--transport", "streamable-http"])
            .args(["--bind", "127.0.0.1:0", "--audit-path"])
            .arg(audit)
            .args(extra)
            .env("OPS_AGENT_TOKEN", TEST_TOKEN)
            .env("RUST_LOG", SERVER_LOG_FILTER)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = spawn_past_text_file_busy(&mut command).expect("server starts");
        let log = ChildLog::capture(child.stderr.take().expect("stderr is piped"));
        let listening = log.wait_for_line(START_TIMEOUT, |line| line.contains("serving HTTP"));
        let mut server = Self {
            port: 0,
            child,
            log,
        };
        let Some(line) = listening else {
            server.fail("never said where it listens");
        };
        server.port = bound_address(&line)
            .unwrap_or_else(|| panic!("no addr=IP:PORT in {line:?}"))
            .port();
        let deadline = Instant::now() + START_TIMEOUT;
        while server.get("/health").is_none() {
            if Instant::now() >= deadline {
                server.fail("never became healthy");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// Fails the test with the server's exit status (when it exited) and stderr.
    fn fail(&mut self, what: &str) -> ! {
        // A child whose stderr has ended is exiting, but may not have been reaped yet: wait
        // for its status rather than report it running.
        let exited = match self.child.try_wait() {
            Ok(None) if self.log.ended() => self.child.wait().ok(),
            Ok(status) => status,
            Err(_) => None,
        };
        let status = match exited {
            Some(status) => format!("exited ({status})"),
            None => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                "still running".to_owned()
            }
        };
        panic!(
            "the server {what}: {status}; its stderr:\n{}",
            self.log.text()
        );
    }

    /// What the server wrote to stderr so far, and a way to wait for a line of it.
    pub fn log(&self) -> &ChildLog {
        &self.log
    }

    /// A plain HTTP/1.1 GET, returning (status line, body).
    pub fn get(&self, path: &str) -> Option<(String, String)> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        .ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        let (head, body) = response.split_once("\r\n\r\n")?;
        Some((head.lines().next()?.to_owned(), body.to_owned()))
    }

    /// Initializes a client against the MCP endpoint at `path`.
    pub async fn client(&self, path: &str) -> Client {
        http_client(&format!("http://127.0.0.1:{}{path}", self.port)).await
    }
}

/// Makes ring the process-wide rustls provider (once; later calls do nothing). reqwest is
/// built without a provider of its own here, so a test must call this before it builds any
/// reqwest client that does not come from the runtime: rmcp's default one included.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Initializes a streamable HTTP client against the MCP endpoint at `uri`, with the test
/// token.
pub async fn http_client(uri: &str) -> Client {
    http_client_with_token(uri, TEST_TOKEN).await
}

/// [`http_client`] sending `Authorization: Bearer <token>` (an OAuth access token, say).
pub async fn http_client_with_token(uri: &str, token: &str) -> Client {
    install_tls_provider();
    let config = StreamableHttpClientTransportConfig::with_uri(uri).auth_header(token);
    let transport = StreamableHttpClientTransport::from_config(config);
    ().serve(transport)
        .await
        .expect("initialize over streamable HTTP")
}

impl HttpServer {
    /// Sends SIGTERM and waits for the process to exit (at most `within`); returns whether
    /// it exited successfully in time.
    pub fn terminate(&mut self, within: Duration) -> bool {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + within;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.success(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => return false,
            }
        }
    }
}

/// The address in a `serving HTTP addr=127.0.0.1:PORT ...` log line.
fn bound_address(line: &str) -> Option<SocketAddr> {
    let (_, after) = line.split_once(" addr=")?;
    after.split_whitespace().next()?.parse().ok()
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Calls `tool` with `arguments` (an object, or anything else for none).
pub async fn call(
    client: &Client,
    tool: &str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(arguments) = arguments {
        params = params.with_arguments(arguments);
    }
    client.call_tool(params).await
}

/// The text of the first content block.
pub fn text(result: &CallToolResult) -> &str {
    &result.content[0].as_text().expect("text content").text
}

/// Asserts `value["trace_id"]` has the `mcp-xxxxxxxx` form.
pub fn assert_trace_id(envelope: &Value) {
    let trace = envelope["trace_id"].as_str().expect("trace_id");
    assert!(
        trace.len() == 12
            && trace.starts_with("mcp-")
            && trace[4..].chars().all(|c| c.is_ascii_hexdigit()),
        "{trace}"
    );
}

/// The audit file's records, each checked to be one JSON object per line.
pub fn audit_records(path: &Path) -> Vec<serde_json::Map<String, Value>> {
    let text = std::fs::read_to_string(path).expect("audit file exists");
    text.lines()
        .map(|line| match serde_json::from_str(line) {
            Ok(Value::Object(record)) => record,
            other => panic!("not a JSON object line: {line:?} ({other:?})"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn a_server_that_exits_fails_the_test_at_once_with_its_stderr() {
        let dir = scratch_dir("exits");
        let script = dir.join("server");
        std::fs::write(
            &script,
            "#!/bin/sh\necho 'boom: no such manifest' >&2\nexit 3\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let started = Instant::now();
        let failure = std::panic::catch_unwind(|| {
            HttpServer::start(script.to_str().unwrap(), &dir.join("audit.jsonl"))
        })
        .err()
        .expect("a server that exits never starts");
        let message = failure
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| {
                failure
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
            })
            .unwrap_or_else(|| format!("a panic payload of another type: {failure:?}"));
        assert!(message.contains("exited"), "{message}");
        assert!(message.contains("boom: no such manifest"), "{message}");
        assert!(started.elapsed() < Duration::from_secs(10), "not at once");
    }

    #[test]
    fn the_bound_address_is_read_from_the_servers_log_line() {
        let line = "2026-12-01T00:00:00Z  INFO harness_runtime::serve: serving HTTP addr=127.0.0.1:43117 path=/mcp health=/health";
        assert_eq!(
            bound_address(line),
            Some("127.0.0.1:43117".parse().unwrap())
        );
        assert_eq!(bound_address("serving HTTP"), None);
    }

    #[test]
    fn a_closed_port_refuses_connections_and_cannot_be_taken() {
        let closed = ClosedPort::reserve();
        let refused = TcpStream::connect(("127.0.0.1", closed.port)).unwrap_err();
        assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
        assert!(
            TcpListener::bind(("127.0.0.1", closed.port)).is_err(),
            "a parallel test's server took the port"
        );
    }

    #[test]
    fn the_relay_holds_what_clients_send_until_released_and_cut_refuses() {
        let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = upstream.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in upstream.incoming() {
                let mut stream = stream.unwrap();
                std::thread::spawn(move || {
                    let mut buffer = [0u8; 64];
                    while let Ok(read @ 1..) = stream.read(&mut buffer) {
                        let _ = stream.write_all(&buffer[..read]);
                    }
                });
            }
        });
        let relay = Relay::start(address);
        let mut client = TcpStream::connect(("127.0.0.1", relay.port())).unwrap();
        let mut echo = [0u8; 4];
        client.write_all(b"ping").unwrap();
        client.read_exact(&mut echo).unwrap();
        assert_eq!(&echo, b"ping");

        relay.hold();
        client.write_all(b"held").unwrap();
        assert!(relay.wait_held(1, Duration::from_secs(10)));
        relay.release();
        client.read_exact(&mut echo).unwrap();
        assert_eq!(&echo, b"held");

        relay.cut();
        let mut refused = TcpStream::connect(("127.0.0.1", relay.port())).unwrap();
        refused
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        assert_eq!(refused.read(&mut echo).unwrap(), 0, "closed at once");
    }

    #[test]
    fn a_child_log_finds_lines_and_ends_with_the_child() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "echo one >&2; echo 'two: ready' >&2"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = ChildLog::capture(child.stderr.take().unwrap());
        let found = log.wait_for_line(Duration::from_secs(10), |line| line.contains("ready"));
        assert_eq!(found.as_deref(), Some("two: ready"));
        assert_eq!(
            log.wait_for_line(Duration::from_secs(10), |line| line.contains("never")),
            None
        );
        child.wait().unwrap();
    }
}
