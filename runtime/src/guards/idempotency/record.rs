//! What the idempotency store keeps for a key, in memory or in Redis alike.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A finished call's reply, as a replay sends it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Stored {
    /// The reply: `{"result": ...}` (a tool result) or `{"error": ...}` (a JSON-RPC error).
    pub(crate) reply: Value,
    /// The first call's audit outcome and error code.
    pub(crate) outcome: String,
    pub(crate) error_code: Option<String>,
    /// The first call's trace id.
    pub(crate) trace_id: String,
}

/// A key already present: its arguments' digest, and the reply once its call finished.
#[derive(Debug)]
pub(crate) struct Found {
    pub(crate) digest: String,
    pub(crate) stored: Option<Stored>,
}
