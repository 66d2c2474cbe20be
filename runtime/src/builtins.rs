//! The built-in tools (`[server] register_builtins`): `health`, `ping` and `diagnostics`.
//! They are read-only and go through the same guard pipeline as every other tool.

use serde_json::Value;

use crate::error::ToolError;
use crate::pipeline::Pipeline;

/// `health`: `{"status":"ok"}` while the server serves.
pub async fn health() -> Result<Value, ToolError> {
    Ok(serde_json::json!({"status": "ok"}))
}

/// `ping`: `pong`.
pub async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

/// `diagnostics`: uptime, version, per-tool counters and the manifest digest.
pub async fn diagnostics(pipeline: &Pipeline) -> Result<Value, ToolError> {
    Ok(pipeline.diagnostics())
}
