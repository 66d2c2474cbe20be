//! `call TOOL ARGUMENTS`: one tool call made in-process through the whole server, as a client
//! would make it (initialize, then `tools/call` over the stdio framing, duplicate keys marked),
//! so validation, every guard and the error envelope apply; prints what the model would see.
//! (`--url` makes the same call to a running server: call_remote.rs.)

use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

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
    /// Seconds to wait for a running server's answer.
    #[arg(long, default_value_t = 30)]
    pub(crate) timeout_seconds: u64,
}

/// Makes the call in-process and prints the reply; exit code 1 when the call failed.
pub(crate) fn run<S: GeneratedServer>(server: S, args: CallArgs) -> Result<u8, CliError> {
    let runtime = async_runtime()?;
    server.pipeline().check_setup()?;
    crate::server::check_upstreams(&server)?;
    let pipeline = server.clone();
    let reply = runtime.block_on(call_in_process(server, &args.tool, &args.arguments))?;
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

/// The JSON-RPC response to `tools/call` of `tool` with `arguments` (JSON object text).
pub(crate) async fn call_in_process<H: ServerHandler>(
    handler: H,
    tool: &str,
    arguments: &str,
) -> Result<Value, CallError> {
    let call = tools_call_message(tool, arguments)?;
    // Marked as the stdio transport's ingress marks a client's message.
    let call = mark_duplicate_arguments(call.as_bytes()).unwrap_or_else(|| call.into_bytes());
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "harness-call", "version": env!("CARGO_PKG_VERSION")}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});

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
    let session_error = |error: std::io::Error| CallError::Session(error.to_string());
    let (reader, mut writer) = tokio::io::split(client);
    let mut lines = BufReader::new(reader).lines();
    for message in [
        initialize.to_string().into_bytes(),
        initialized.to_string().into_bytes(),
        call,
    ] {
        writer.write_all(&message).await.map_err(session_error)?;
        writer.write_all(b"\n").await.map_err(session_error)?;
    }
    while let Some(line) = lines.next_line().await.map_err(session_error)? {
        let reply: Value = serde_json::from_str(&line)
            .map_err(|error| CallError::Session(format!("unreadable reply: {error}")))?;
        if reply["id"] == 2 {
            // End of input ends the session, as a client closing stdin would.
            let _ = writer.shutdown().await;
            drop(lines);
            let _ = session.await;
            return Ok(reply);
        }
    }
    match session.await {
        Ok(Err(error)) => Err(error),
        _ => Err(CallError::Session(
            "the server ended without answering".to_owned(),
        )),
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
