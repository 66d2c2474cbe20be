//! JSON-RPC batches, which MCP removed in 2025-06-18 and rmcp never read (it answers 415
//! with a line of text). Every HTTP transport answers a batch the same way instead: 400
//! with one JSON-RPC error object, Invalid Request (-32600) without an id, as the
//! streamable HTTP transport says of input the server cannot accept. The body is only
//! looked at up to its first byte that is not whitespace, and the answer is static.

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The answer to every batch.
const ANSWER: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send one message per request"}}"#;

/// True when `body` is a JSON array: its first byte that is not JSON whitespace is `[`.
pub(crate) fn is_batch(body: &[u8]) -> bool {
    body.iter()
        .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|byte| *byte == b'[')
}

/// 400 with one JSON-RPC error object.
pub(crate) fn refusal() -> Response {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(ANSWER),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_are_batches_and_nothing_else_is() {
        for batch in ["[]", " \r\n\t[{\"jsonrpc\":\"2.0\"}]", "[1"] {
            assert!(is_batch(batch.as_bytes()), "{batch:?}");
        }
        for other in ["", "  ", "{\"a\":[1]}", "\"[\"", "x["] {
            assert!(!is_batch(other.as_bytes()), "{other:?}");
        }
    }

    #[test]
    fn the_answer_is_one_json_rpc_error_without_an_id() {
        let answer: serde_json::Value = serde_json::from_str(ANSWER).unwrap();
        assert_eq!(answer["jsonrpc"], "2.0");
        assert_eq!(answer["id"], serde_json::Value::Null);
        assert_eq!(answer["error"]["code"], -32600);
        assert!(answer["error"]["message"].is_string());
    }
}
