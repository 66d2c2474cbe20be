//! The baseline: the same `echo` tool on plain rmcp, with no guards, no validator beyond
//! reading the one string, no audit, and no Host/Origin/auth layer. The figures of the
//! generated server are compared against this one.
//!
//! `bench-bare stdio` or `bench-bare http --bind ADDR [--stateless] [--harness-transport]`
//! (the MCP endpoint is `/mcp`; stateless answers with plain JSON, as the generated server's
//! `--stateless` does).
//!
//! `bench-bare http --floor` is the floor: no MCP library at all, one axum route that reads a
//! JSON-RPC `tools/call echo` with serde_json and writes the same reply by hand. What any
//! server on this stack can do at best.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::serve::ListenerExt;
use clap::{Parser, Subcommand};
use harness_runtime::transport::{HttpOptions, HttpTransport, serve_http};
use rmcp::ServerHandler;
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation,
    InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

#[derive(Parser)]
#[command(about = "A bare rmcp server with one `echo` tool (the benchmark baseline)")]
struct Cli {
    #[command(subcommand)]
    transport: Transport,
}

#[derive(Subcommand)]
enum Transport {
    /// One session over stdin/stdout.
    Stdio,
    /// Streamable HTTP at /mcp.
    Http {
        /// Where to listen.
        #[arg(long, default_value = "127.0.0.1:8791")]
        bind: SocketAddr,
        /// No sessions; replies are plain JSON.
        #[arg(long)]
        stateless: bool,
        /// Serve through the generated server's HTTP layer (harness-runtime's `serve_http`:
        /// Host/Origin/bearer checks, health route, graceful shutdown) instead of a plain
        /// rmcp service: separates the transport layer's cost from the guards'.
        #[arg(long)]
        harness_transport: bool,
        /// The hand-rolled axum + serde_json route instead of rmcp (stateless only).
        #[arg(long, conflicts_with = "harness_transport")]
        floor: bool,
    },
}

/// A JSON-RPC request as the floor reads it.
#[derive(serde::Deserialize)]
struct FloorRequest {
    id: Value,
    method: String,
    #[serde(default)]
    params: Option<FloorParams>,
}

#[derive(serde::Deserialize)]
struct FloorParams {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

/// The floor's whole server: `echo` as a JSON-RPC reply, anything else an error.
async fn floor(body: axum::body::Bytes) -> axum::response::Response {
    use axum::response::IntoResponse;
    let reply = match serde_json::from_slice::<FloorRequest>(&body) {
        Ok(request) => {
            let message = request
                .params
                .as_ref()
                .filter(|params| request.method == "tools/call" && params.name == "echo")
                .and_then(|params| params.arguments.as_ref()?.get("message")?.as_str());
            match message {
                Some(message) => {
                    let structured = json!({ "message": message });
                    json!({"jsonrpc": "2.0", "id": request.id, "result": {
                        "content": [{"type": "text", "text": structured.to_string()}],
                        "structuredContent": structured,
                        "isError": false,
                    }})
                }
                None => json!({"jsonrpc": "2.0", "id": request.id,
                    "error": {"code": -32602, "message": "only tools/call echo"}}),
            }
        }
        Err(error) => json!({"jsonrpc": "2.0", "id": null,
            "error": {"code": -32700, "message": error.to_string()}}),
    };
    axum::Json(reply).into_response()
}

/// The `echo` tool and nothing else.
#[derive(Clone)]
struct Echo {
    tool: Tool,
}

impl Echo {
    fn new() -> Self {
        let schema = json!({
            "type": "object",
            "properties": {"message": {"type": "string", "maxLength": 65536}},
            "required": ["message"],
            "additionalProperties": false
        });
        let Value::Object(schema) = schema else {
            unreachable!("the schema literal is an object")
        };
        let tool = Tool::new(
            "echo",
            "Return the message, as structured content.",
            Arc::new(schema),
        );
        Self { tool }
    }
}

impl ServerHandler for Echo {
    fn get_info(&self) -> InitializeResult {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("bench-bare", "0.1.0");
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let message = request
            .arguments
            .as_ref()
            .and_then(|arguments: &JsonObject| arguments.get("message"))
            .and_then(Value::as_str)
            .ok_or_else(|| ErrorData::invalid_params("message must be a string", None))?;
        Ok(CallToolResult::structured(json!({ "message": message })).into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match Cli::parse().transport {
        Transport::Stdio => {
            Echo::new()
                .serve(rmcp::transport::stdio())
                .await?
                .waiting()
                .await?;
        }
        Transport::Http {
            bind,
            stateless,
            floor: true,
            ..
        } => {
            if !stateless {
                return Err("the floor serves stateless JSON only: add --stateless".into());
            }
            serve_router(
                bind,
                axum::Router::new().route("/mcp", axum::routing::post(floor)),
            )
            .await?;
        }
        Transport::Http {
            bind,
            stateless,
            harness_transport: true,
            ..
        } => {
            let mut transport = harness_bench::generated::SERVER.transport;
            transport.stateful = !stateless;
            transport.json_response = stateless;
            let options = HttpOptions::from_manifest(transport, HttpTransport::StreamableHttp)?;
            serve_http(Echo::new(), bind, options, None).await?;
        }
        Transport::Http {
            bind, stateless, ..
        } => {
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(!stateless)
                .with_json_response(stateless)
                .disable_allowed_hosts();
            let echo = Echo::new();
            let service = StreamableHttpService::new(
                move || Ok(echo.clone()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
            serve_router(bind, axum::Router::new().nest_service("/mcp", service)).await?;
        }
    }
    Ok(())
}

/// Serves `router` on `bind` until Ctrl-C.
async fn serve_router(bind: SocketAddr, router: axum::Router) -> std::io::Result<()> {
    // As the generated server does: without TCP_NODELAY, a reply written in several pieces
    // (SSE) waits out the client's delayed ACK, about 40 ms.
    let listener = tokio::net::TcpListener::bind(bind).await?.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
