//! `call TOOL ARGUMENTS --url URL`: the same call as `call`, made to a running server over
//! streamable HTTP as an MCP client makes it (initialize, the session id and negotiated
//! protocol version on every later request, `notifications/initialized`, `tools/call`, and
//! the session deleted at the end), JSON or SSE answers alike. The arguments go out as typed,
//! so the server's own ingress sees repeated keys. A `[tools.task]` tool's call is a task
//! instead, polled until it ends (call_task.rs), in self-contained 2026-07-28 requests.

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use crate::cli::call::{CallArgs, is_task_tool, print_reply, tools_call_message};
use crate::cli::call_task::{self, Outgoing, Requests, TASK_PROTOCOL_VERSION, call_as_task};
use crate::cli::error::{CallError, CliError};
use crate::cli::health_probe::split_http_url;
use crate::cli::shared::{async_runtime, manifest_url};
use crate::server::GeneratedServer;

/// Makes the call to the running server `--url` names (the manifest's MCP endpoint when it
/// names none) and prints the reply; exit code 1 when the call failed.
pub(crate) fn run<S: GeneratedServer>(server: &S, args: CallArgs) -> Result<u8, CliError> {
    let runtime = async_runtime()?;
    let spec = server.spec();
    let remote = Remote {
        url: match args.url.flatten() {
            Some(url) => url,
            None => manifest_url(spec, spec.transport.path)?,
        },
        token: spec
            .transport
            .auth_token_env
            .and_then(|name| std::env::var(name).ok())
            .filter(|token| !token.is_empty()),
        timeout: Duration::from_secs(args.timeout_seconds),
    };
    let reply = if is_task_tool(server.tool_specs(), &args.tool) {
        runtime.block_on(call_remote_task(&remote, &args.tool, &args.arguments))?
    } else {
        runtime.block_on(call_remote(&remote, &args.tool, &args.arguments))?
    };
    print_reply(&reply, args.json)
}

/// What a remote call needs besides the tool and its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    /// The MCP endpoint, `http://HOST:PORT/PATH`.
    pub url: String,
    /// Sent as `Authorization: Bearer ...` when set.
    pub token: Option<String>,
    /// For the whole exchange.
    pub timeout: Duration,
}

/// An answer: its status, the headers a client reads, and its body.
struct Answer {
    status: StatusCode,
    session_id: Option<String>,
    content_type: String,
    body: Bytes,
}

/// The JSON-RPC response of `tools/call` of `tool` with `arguments` (JSON object text), from
/// the server at `remote.url`.
pub(crate) async fn call_remote(
    remote: &Remote,
    tool: &str,
    arguments: &str,
) -> Result<Value, CallError> {
    let call = tools_call_message(tool, arguments)?;
    tokio::time::timeout(remote.timeout, exchange(remote, call))
        .await
        .map_err(|_| {
            CallError::Remote(format!(
                "no answer from {} within {} s",
                remote.url,
                remote.timeout.as_secs()
            ))
        })?
}

/// The JSON-RPC response of a `[tools.task]` tool's call, made as a task and polled until it
/// ends: each request a self-contained 2026-07-28 one, no session; a task still running at
/// `remote.timeout` is cancelled.
async fn call_remote_task(
    remote: &Remote,
    tool: &str,
    arguments: &str,
) -> Result<Value, CallError> {
    tools_call_message(tool, arguments)?;
    let deadline = tokio::time::Instant::now() + remote.timeout;
    let call = call_task::tools_call(tool, arguments);
    call_as_task(&mut TaskRequests(remote), call, Some(deadline)).await
}

/// The 2026-07-28 requests of a task, each with its routing headers.
struct TaskRequests<'r>(&'r Remote);

impl Requests for TaskRequests<'_> {
    async fn send(&mut self, request: Outgoing) -> Result<Value, CallError> {
        let headers = [
            ("mcp-protocol-version", TASK_PROTOCOL_VERSION.to_owned()),
            ("mcp-method", request.method.to_owned()),
            ("mcp-name", request.name),
        ];
        let answer = post(self.0, &headers, request.message).await?;
        reply_with_id(&answer, request.id)
    }
}

async fn exchange(remote: &Remote, call: String) -> Result<Value, CallError> {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": crate::cli::call::PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "harness-call", "version": env!("CARGO_PKG_VERSION")}}});
    let opened = post(remote, &[], initialize.to_string()).await?;
    let init = reply_with_id(&opened, 1)?;
    if let Some(error) = init.get("error") {
        return Err(CallError::Remote(format!(
            "initialize was refused: {error}"
        )));
    }
    let version = init["result"]["protocolVersion"]
        .as_str()
        .unwrap_or(crate::cli::call::PROTOCOL_VERSION)
        .to_owned();
    let mut session = vec![("mcp-protocol-version", version)];
    if let Some(id) = &opened.session_id {
        session.push(("mcp-session-id", id.clone()));
    }
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let acknowledged = post(remote, &session, initialized.to_string()).await?;
    if !acknowledged.status.is_success() {
        return Err(unexpected("notifications/initialized", &acknowledged));
    }
    let answered = post(remote, &session, call).await?;
    let reply = reply_with_id(&answered, 2);
    if opened.session_id.is_some() {
        // Courtesy: the server would otherwise keep the session until it idles out.
        let _ = send(remote, Method::DELETE, &session, String::new()).await;
    }
    reply
}

async fn post(
    remote: &Remote,
    headers: &[(&str, String)],
    body: String,
) -> Result<Answer, CallError> {
    send(remote, Method::POST, headers, body).await
}

async fn send(
    remote: &Remote,
    method: Method,
    headers: &[(&str, String)],
    body: String,
) -> Result<Answer, CallError> {
    let url = &remote.url;
    let (authority, path) = split_http_url(url).ok_or_else(|| {
        CallError::Remote(format!(
            "unsupported url {url:?}: expected http://HOST:PORT/PATH"
        ))
    })?;
    let failed = |error: &dyn std::fmt::Display| CallError::Remote(format!("{url}: {error}"));
    let stream = tokio::net::TcpStream::connect(authority)
        .await
        .map_err(|error| failed(&error))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| failed(&error))?;
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", authority)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(token) = &remote.token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request
        .body(Full::new(Bytes::from(body)))
        .map_err(|error| failed(&error))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|error| failed(&error))?;
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let status = response.status();
    let session_id = header("mcp-session-id");
    let content_type = header("content-type").unwrap_or_default();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|error| failed(&error))?
        .to_bytes();
    Ok(Answer {
        status,
        session_id,
        content_type,
        body,
    })
}

/// The JSON-RPC message with `id` in a JSON body or among an SSE stream's `data:` events.
fn reply_with_id(answer: &Answer, id: u64) -> Result<Value, CallError> {
    if !answer.status.is_success() {
        return Err(unexpected("the request", answer));
    }
    let text = String::from_utf8_lossy(&answer.body);
    let messages: Vec<Value> = if answer.content_type.starts_with("text/event-stream") {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    } else {
        let body: Value = serde_json::from_str(&text)
            .map_err(|error| CallError::Remote(format!("unreadable answer: {error}: {text}")))?;
        match body {
            Value::Array(batch) => batch,
            single => vec![single],
        }
    };
    messages
        .into_iter()
        .find(|message| message["id"] == id)
        .ok_or_else(|| CallError::Remote(format!("no answer to request {id} in: {text}")))
}

fn unexpected(what: &str, answer: &Answer) -> CallError {
    let body = String::from_utf8_lossy(&answer.body);
    CallError::Remote(format!(
        "{what} got HTTP {}: {}",
        answer.status,
        body.trim()
    ))
}
