//! `call TOOL ARGUMENTS`: one tool call made in-process through the whole server, as a client
//! would make it (initialize, then `tools/call` over the stdio framing, duplicate keys marked),
//! so validation, every guard and the error envelope apply; prints what the model would see.
//! (`--url` makes the same call to a running server: call_remote.rs; a `[tools.task]` tool's
//! call becomes a task that is polled until it ends: call_task.rs.)

use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

use crate::cli::call_task::{self, CALL_ID, Outgoing, Requests, call_as_task};
use crate::cli::error::{CallError, CliError};
use crate::cli::shared::{async_runtime, print_line};
use crate::server::GeneratedServer;
use crate::transport::duplicate_keys::mark_duplicate_arguments;

#[derive(Debug, clap::Args)]
pub(crate) struct CallArgs {
    /// The tool's name.
    pub(crate) tool: String,
    /// The arguments, a JSON object.
    #[arg(default_value = "{}")]
    pub(crate) arguments: String,
    /// Print the whole JSON-RPC response instead.
    #[arg(long)]
    pub(crate) json: bool,
    /// Call a running server over streamable HTTP instead [URL default: the manifest's
    /// bind and MCP path]; the bearer token comes from the manifest's auth_token_env.
    #[arg(long, value_name = "URL")]
    pub(crate) url: Option<Option<String>>,
    /// Seconds to wait for a running server's answer; a task still running then is
    /// cancelled.
    #[arg(long, default_value_t = 30)]
    pub(crate) timeout_seconds: u64,
}

/// Makes the call in-process and prints the reply; exit code 1 when the call failed.
pub(crate) fn run<S: GeneratedServer>(server: S, args: CallArgs) -> Result<u8, CliError> {
    let runtime = async_runtime()?;
    server.pipeline().check_setup()?;
    crate::server::check_upstreams(&server)?;
    let pipeline = server.clone();
    let as_task = is_task_tool(server.tool_specs(), &args.tool);
    let reply = runtime.block_on(call_in_process(
        server,
        &args.tool,
        &args.arguments,
        as_task,
    ))?;
    pipeline.pipeline().flush_telemetry();
    print_reply(&reply, args.json)
}

/// Prints what the model would see (or, with `json`, the whole response); exit code 1 when
/// the call failed.
pub(crate) fn print_reply(reply: &Value, json: bool) -> Result<u8, CliError> {
    let (text, failed) = model_view(reply);
    if json {
        print_line(&serde_json::to_string_pretty(reply).expect("plain JSON"))?;
    } else {
        print_line(&text)?;
    }
    Ok(u8::from(failed))
}

/// Whether `tool`'s calls may become tasks (`[tools.task]`): `call` then makes it as a task
/// and waits for its end.
pub(crate) fn is_task_tool(tools: &[crate::spec::ToolSpec], tool: &str) -> bool {
    tools
        .iter()
        .find(|candidate| candidate.name == tool)
        .and_then(|candidate| candidate.task)
        .is_some_and(|task| task.support != crate::spec::TaskSupport::Forbidden)
}

/// The protocol version `call` asks for.
pub(crate) const PROTOCOL_VERSION: &str = "2025-06-18";

/// The `tools/call` request (id 2) with the arguments' text as given, so repeated keys reach
/// the server's ingress; refused when the arguments are not a JSON object.
pub(crate) fn tools_call_message(tool: &str, arguments: &str) -> Result<String, CallError> {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(_)) => {}
        Ok(other) => return Err(CallError::Arguments(format!("got {other}"))),
        Err(error) => return Err(CallError::Arguments(error.to_string())),
    }
    let name = serde_json::to_string(tool).expect("a string serializes");
    Ok(format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":{name},"arguments":{arguments}}}}}"#
    ))
}

/// The JSON-RPC response to `tools/call` of `tool` with `arguments` (JSON object text); as a
/// task, polled until it ends, when `as_task` (a `[tools.task]` tool).
pub(crate) async fn call_in_process<H: ServerHandler>(
    handler: H,
    tool: &str,
    arguments: &str,
    as_task: bool,
) -> Result<Value, CallError> {
    let call = tools_call_message(tool, arguments)?;
    let mut session = InProcess::open(handler).await?;
    let reply = if as_task {
        call_as_task(&mut session, call_task::tools_call(tool, arguments), None).await
    } else {
        let call = Outgoing {
            id: CALL_ID,
            method: "tools/call",
            name: tool.to_owned(),
            message: call,
        };
        session.send(call).await
    };
    session.close().await;
    reply
}

/// A client's session with the server in this process, over the stdio framing.
struct InProcess {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    session: tokio::task::JoinHandle<Result<rmcp::service::QuitReason, CallError>>,
}

fn session_error(error: std::io::Error) -> CallError {
    CallError::Session(error.to_string())
}

impl InProcess {
    /// Serves `handler` on one end of a pipe and initializes a session from the other.
    async fn open<H: ServerHandler>(handler: H) -> Result<Self, CallError> {
        let (client, server) = tokio::io::duplex(1 << 20);
        let session = tokio::spawn(async move {
            let running = handler
                .serve(tokio::io::split(server))
                .await
                .map_err(|error| CallError::Session(error.to_string()))?;
            running
                .waiting()
                .await
                .map_err(|error| CallError::Session(error.to_string()))
        });
        let (reader, writer) = tokio::io::split(client);
        let mut opened = Self {
            writer,
            lines: BufReader::new(reader).lines(),
            session,
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "harness-call", "version": env!("CARGO_PKG_VERSION")}}});
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        opened.write(initialize.to_string().as_bytes()).await?;
        opened.write(initialized.to_string().as_bytes()).await?;
        Ok(opened)
    }

    async fn write(&mut self, message: &[u8]) -> Result<(), CallError> {
        self.writer
            .write_all(message)
            .await
            .map_err(session_error)?;
        self.writer.write_all(b"\n").await.map_err(session_error)
    }

    /// End of input ends the session, as a client closing stdin would.
    async fn close(mut self) {
        let _ = self.writer.shutdown().await;
        drop(self.lines);
        let _ = self.session.await;
    }
}

impl Requests for InProcess {
    async fn send(&mut self, request: Outgoing) -> Result<Value, CallError> {
        // Marked as the stdio transport's ingress marks a client's message.
        let message = mark_duplicate_arguments(request.message.as_bytes())
            .unwrap_or_else(|| request.message.into_bytes());
        self.write(&message).await?;
        while let Some(line) = self.lines.next_line().await.map_err(session_error)? {
            let reply: Value = serde_json::from_str(&line)
                .map_err(|error| CallError::Session(format!("unreadable reply: {error}")))?;
            if reply["id"] == request.id {
                return Ok(reply);
            }
        }
        match (&mut self.session).await {
            Ok(Err(error)) => Err(error),
            _ => Err(CallError::Session(
                "the server ended without answering".to_owned(),
            )),
        }
    }
}

/// What the model reads of a `tools/call` response: the text of each content item (a JSON
/// result is its JSON text), or the JSON-RPC error; and whether the call failed.
pub(crate) fn model_view(reply: &Value) -> (String, bool) {
    if let Some(error) = reply.get("error") {
        return (
            format!("JSON-RPC error {}: {}", error["code"], error["message"]),
            true,
        );
    }
    let result = &reply["result"];
    let text: Vec<&str> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["text"].as_str())
        .collect();
    (text.join("\n"), result["isError"] == true)
}
