//! What both lanes share about a call: its id (from [`FIRST_ID`] up, far above rmcp's), its
//! request as rmcp writes one, and what its answer is.

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequestParams, ErrorData, NumberOrString, ProgressToken, RequestId, ServerResult,
};
use serde::Serialize;

/// The first id a lane gives a request (2^40: beyond any id rmcp's 32-bit counter reaches,
/// and exact in every JSON number reader, JavaScript's included).
pub(crate) const FIRST_ID: i64 = 1 << 40;

/// What a lane call's reply is, as rmcp's peer would give it.
pub(crate) type Answer = Result<ServerResult, ServiceError>;

/// The ids one lane gives its calls, from [`FIRST_ID`] up.
#[derive(Default)]
pub(crate) struct Ids(AtomicU64);

impl Ids {
    /// The next id.
    pub(crate) fn next(&self) -> i64 {
        let sequence = self.0.fetch_add(1, Ordering::Relaxed);
        FIRST_ID.saturating_add(i64::try_from(sequence).unwrap_or(i64::MAX))
    }
}

/// The progress token of lane call `id`: its id.
pub(crate) fn progress_token(id: i64) -> ProgressToken {
    ProgressToken(NumberOrString::Number(id))
}

/// Whether `id` is one a lane gives (otherwise the message is rmcp's).
pub(crate) fn is_lane_id(id: &RequestId) -> bool {
    matches!(id, RequestId::Number(id) if *id >= FIRST_ID)
}

/// A `tools/call` request as rmcp writes one.
#[derive(Serialize)]
struct CallRequest<'a> {
    jsonrpc: &'static str,
    id: i64,
    method: &'static str,
    params: &'a CallToolRequestParams,
}

/// `params` as `tools/call` number `id`, in JSON, with room for `spare` more bytes.
pub(crate) fn request(
    id: i64,
    params: &CallToolRequestParams,
    spare: usize,
) -> Result<Vec<u8>, ServiceError> {
    let mut json = Vec::with_capacity(256 + spare);
    let request = CallRequest {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params,
    };
    serde_json::to_writer(&mut json, &request).map_err(|error| {
        ServiceError::McpError(ErrorData::internal_error(error.to_string(), None))
    })?;
    Ok(json)
}
