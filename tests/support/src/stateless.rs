//! A 2026-07-28 client over streamable HTTP without a session: each request carries its own
//! protocol metadata and client capabilities in `_meta`, and the routing headers
//! (`Mcp-Method`, `Mcp-Name`) the revision asks for. What the tasks extension is spoken over.

use serde_json::{Value, json};

/// Requests to one MCP endpoint, each self-contained.
pub struct StatelessClient {
    url: String,
    http: reqwest::Client,
    capabilities: Value,
    token: Option<String>,
    next_id: std::sync::atomic::AtomicU64,
}

/// A JSON-RPC error as answered: its code, message and data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// The message.
    pub message: String,
    /// `data`, if any.
    pub data: Option<Value>,
}

impl StatelessClient {
    /// A client of `url` declaring `capabilities` on every request.
    pub fn new(url: &str, capabilities: Value) -> Self {
        crate::install_tls_provider();
        Self {
            url: url.to_owned(),
            http: reqwest::Client::new(),
            capabilities,
            token: None,
            next_id: std::sync::atomic::AtomicU64::new(1),
        }
    }

    /// The same client sending `Authorization: Bearer <token>`.
    pub fn with_token(mut self, token: &str) -> Self {
        self.token = Some(token.to_owned());
        self
    }

    /// The same client declaring the tasks extension besides what it declared.
    pub fn declaring_tasks(mut self) -> Self {
        self.capabilities["extensions"]["io.modelcontextprotocol/tasks"] = json!({});
        self
    }

    /// Sends `method` with `params` (its `_meta` completed with the protocol metadata) and
    /// returns the result, or the JSON-RPC error.
    pub async fn request(&self, method: &str, mut params: Value) -> Result<Value, RpcError> {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let meta = params
            .as_object_mut()
            .expect("params are an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        meta["io.modelcontextprotocol/clientInfo"] =
            json!({"name": "harness-tests", "version": "1.0.0"});
        meta["io.modelcontextprotocol/clientCapabilities"] = self.capabilities.clone();
        let name = ["name", "uri", "taskId"]
            .iter()
            .find_map(|key| params.get(*key).and_then(Value::as_str))
            .map(str::to_owned);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut request = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .body(body.to_string());
        if let Some(name) = name {
            request = request.header("Mcp-Name", name);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("the server answers");
        let text = response.text().await.expect("a body");
        let message = reply(&text, id)
            .unwrap_or_else(|| panic!("no JSON-RPC reply with id {id} in {text:?}"));
        match (message.get("result"), message.get("error")) {
            (Some(result), _) => Ok(result.clone()),
            (None, Some(error)) => Err(RpcError {
                code: error["code"].as_i64().expect("an error code"),
                message: error["message"].as_str().unwrap_or_default().to_owned(),
                data: error.get("data").cloned(),
            }),
            _ => panic!("neither result nor error: {message}"),
        }
    }

    /// `tools/call` of `name` with `arguments`.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<Value, RpcError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// `tasks/get` of `task_id`.
    pub async fn get_task(&self, task_id: &str) -> Result<Value, RpcError> {
        self.request("tasks/get", json!({"taskId": task_id})).await
    }

    /// `tasks/get` every 20 ms until the task's status is `status` or terminal (at most 10 s).
    pub async fn wait_for(&self, task_id: &str, status: &str) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let task = self.get_task(task_id).await.expect("the task is readable");
            let now = task["status"].as_str().unwrap_or_default();
            if now == status || ["completed", "failed", "cancelled"].contains(&now) {
                return task;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "task {task_id} still {now} after 10 s, waiting for {status}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

/// The reply with `id` in a JSON body or an SSE stream's events.
fn reply(text: &str, id: u64) -> Option<Value> {
    let is_reply = |value: &Value| value.get("id") == Some(&json!(id));
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return is_reply(&value).then_some(value);
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(is_reply)
}
