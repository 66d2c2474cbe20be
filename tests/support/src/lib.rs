//! Test helpers shared by the end-to-end tests of every generated server: start the binary
//! over stdio or streamable HTTP with its own audit file, connect rmcp's real MCP client,
//! and call tools; and [`strip_oracle`], what the tag strip promises, for the runtime's tests
//! and the fuzz target.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::Value;

pub mod strip_oracle;

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

/// A server process on a free loopback port, killed when dropped.
pub struct HttpServer {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
}

impl HttpServer {
    /// Starts `binary serve --transport streamable-http` on a free port and waits for
    /// `/health`.
    pub fn start(binary: &str, audit: &Path) -> Self {
        Self::start_with(binary, audit, &[])
    }

    /// [`HttpServer::start`] with more arguments for `serve` (e.g. `--stateless`).
    pub fn start_with(binary: &str, audit: &Path, extra: &[&str]) -> Self {
        Self::start_with_env(binary, audit, extra, &[])
    }

    /// [`HttpServer::start_with`] with more environment variables.
    pub fn start_with_env(
        binary: &str,
        audit: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let port = free_port();
        let child = std::process::Command::new(binary)
            .args(["serve", "--transport", "streamable-http", "--bind"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--audit-path")
            .arg(audit)
            .args(extra)
            .env("OPS_AGENT_TOKEN", TEST_TOKEN)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("server starts");
        let server = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        while server.get("/health").is_none() {
            assert!(Instant::now() < deadline, "server never became healthy");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
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

/// Initializes a streamable HTTP client against the MCP endpoint at `uri`, with the test
/// token.
pub async fn http_client(uri: &str) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(uri).auth_header(TEST_TOKEN);
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

/// A `redis-server` on a free loopback port, without persistence, killed when dropped.
/// Debian's `redis-server` package provides it; `scripts/test.sh` installs it.
pub struct RedisServer {
    child: Option<std::process::Child>,
    /// The port it listens on (kept across [`RedisServer::stop`] and [`RedisServer::start`]).
    pub port: u16,
}

impl RedisServer {
    /// Starts Redis on a free port and waits until it answers PING.
    pub fn start_new() -> Self {
        let port = free_port();
        let mut redis = Self { child: None, port };
        redis.start();
        redis
    }

    /// `redis://127.0.0.1:<port>/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Starts (again) on the same port, with an empty dataset.
    pub fn start(&mut self) {
        assert!(self.child.is_none(), "Redis is already running");
        let child = std::process::Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .args(["--save", "", "--appendonly", "no", "--protected-mode", "yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start redis-server ({error}): install it (apt-get install -y redis-server) or run scripts/test.sh, which does")
            });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.answers_ping() {
            assert!(
                Instant::now() < deadline,
                "redis-server never answered PING"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills Redis (as a crash would) and waits for the process to exit.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let mut reply = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A loopback port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}
