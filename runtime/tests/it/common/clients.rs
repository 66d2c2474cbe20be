//! Calls as a transport hands them to the pipeline, from a client that answers elicitation:
//! in a 2025-11-25 session (a real rmcp client over an in-memory pipe, answering every form
//! the same way) or as 2026-07-28 requests (answers and sealed state in the request).

use std::sync::{Arc, Mutex};

use harness_runtime::Call;
use rmcp::model::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, ErrorData, InitializeRequestParams,
    NumberOrString, RequestMetaObject,
};
use rmcp::service::{Peer, RequestContext, RoleClient, RoleServer, RunningService};
use serde_json::{Value, json};

/// A server that answers nothing: it only lends calls a peer.
pub(crate) struct Idle;

impl rmcp::ServerHandler for Idle {}

/// A client that answers every form with `answer` (never, when it is `null`) and keeps the
/// messages it was asked.
pub(crate) struct Answering {
    pub(crate) answer: Value,
    pub(crate) asked: Arc<Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for Answering {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = serde_json::to_value(request).unwrap();
        self.asked
            .lock()
            .unwrap()
            .push(request["message"].as_str().unwrap_or_default().to_owned());
        if self.answer.is_null() {
            std::future::pending::<()>().await;
        }
        Ok(serde_json::from_value(self.answer.clone()).unwrap())
    }
}

/// One 2025-11-25 session: the server's peer, with the client at the other end.
pub(crate) struct Session {
    server: RunningService<RoleServer, Idle>,
    _client: RunningService<RoleClient, Answering>,
    /// The messages of the forms the client was asked.
    pub(crate) asked: Arc<Mutex<Vec<String>>>,
}

impl Session {
    /// A session whose client declares `capabilities` and answers every form with `answer`.
    pub(crate) fn new(capabilities: Value, answer: Value) -> Self {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let info: InitializeRequestParams = serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "test", "version": "0"},
        }))
        .unwrap();
        let server = rmcp::service::serve_directly(Idle, server_io, Some(info));
        let asked = Arc::default();
        let handler = Answering {
            answer,
            asked: Arc::clone(&asked),
        };
        let client = rmcp::service::serve_directly(handler, client_io, None);
        Self {
            server,
            _client: client,
            asked,
        }
    }

    fn peer(&self) -> Peer<RoleServer> {
        self.server.peer().clone()
    }

    /// A `tools/call` of `tool` in this session.
    pub(crate) fn call(&self, tool: &str, arguments: Value) -> Call {
        let request: CallToolRequestParams =
            serde_json::from_value(json!({"name": tool, "arguments": arguments})).unwrap();
        Call::split(request, self.context(), None).1
    }

    /// A 2026-07-28 `tools/call` of `tool` from a client declaring `capabilities`, with these
    /// answers and this sealed state (the peer is never used on that revision).
    pub(crate) fn stateless(
        &self,
        tool: &str,
        arguments: Value,
        capabilities: Value,
        responses: Option<Value>,
        state: Option<&str>,
    ) -> Call {
        let mut params = json!({"name": tool, "arguments": arguments});
        if let Some(responses) = responses {
            params["inputResponses"] = responses;
        }
        if let Some(state) = state {
            params["requestState"] = json!(state);
        }
        let request: CallToolRequestParams = serde_json::from_value(params).unwrap();
        Call::split(request, self.stateless_context(capabilities), None).1
    }

    /// The context of a request in this session, as rmcp hands it to a handler.
    pub(crate) fn context(&self) -> RequestContext<RoleServer> {
        RequestContext::new(NumberOrString::Number(1), self.peer())
    }

    /// The context of a 2026-07-28 request from a client declaring `capabilities` (the peer
    /// is never used on that revision).
    pub(crate) fn stateless_context(&self, capabilities: Value) -> RequestContext<RoleServer> {
        let mut context = self.context();
        context.meta = serde_json::from_value::<RequestMetaObject>(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        }))
        .unwrap();
        context
    }
}

/// Serves `handler` on an in-memory pipe, initializes a 2025-11-25 session as a raw client
/// would, sends `request` (a JSON-RPC request with id 2), and returns every message the
/// server wrote up to and including its reply: the notifications the request caused come
/// before the reply.
pub(crate) async fn exchange<H: rmcp::ServerHandler>(handler: H, request: Value) -> Vec<Value> {
    use rmcp::ServiceExt;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (server_io, client_io) = tokio::io::duplex(1024 * 1024);
    let server = tokio::spawn(async move {
        let running = handler.serve(tokio::io::split(server_io)).await.unwrap();
        running.waiting().await.unwrap();
    });
    let (read, mut write) = tokio::io::split(client_io);
    let mut lines = BufReader::new(read).lines();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw-client", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request,
    ] {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut seen = Vec::new();
    loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        let done = message["id"] == 2;
        seen.push(message);
        if done {
            break;
        }
    }
    drop((write, lines));
    server.await.unwrap();
    seen
}
