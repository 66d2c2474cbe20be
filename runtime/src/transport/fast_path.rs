//! Stateless JSON streamable HTTP without rmcp's per-request service: in that mode rmcp builds
//! a one-shot transport, a service and a task for every request, which costs more CPU than
//! the guards and the audit record together. Plain `tools/call` and `tools/list` requests and
//! notifications are answered here instead, on the same handler (the guard pipeline is
//! unchanged) and with rmcp's own model types, so the answers are rmcp's byte for byte.
//!
//! Only what is unambiguous takes this path: a POST whose Accept lists both media types
//! without parameters, whose Content-Type is JSON, whose `MCP-Protocol-Version` (if any) is a
//! known version older than the per-request-metadata protocol, and whose body is one
//! request of those two methods without per-request protocol metadata, or one notification.
//! Everything else (initialize, ping, batches, responses, malformed bodies, unusual headers)
//! goes on to rmcp unchanged. tests/fast_path.rs (examples/incident-monitor) sends one corpus
//! to both paths and compares the answers.
//!
//! The commonest request of all, a `tools/call` with a name, arguments and at most a trace
//! context in `_meta`, is read straight into its parts ([`PlainCall`]) instead of through
//! rmcp's message enum, whose untagged variants buffer the whole message first. The plain
//! form refuses anything it does not know (unknown members, other `_meta` keys, a repeated
//! argument key, which only the marking pass after it may report), and whatever it refuses
//! takes the general path, so it accepts a strict subset of what rmcp accepts and reads it
//! the same way.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, GetMeta, JsonObject, MetaObject,
    ProtocolVersion, RequestId, ServerJsonRpcMessage, ServerResult,
};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::auth::Caller;
use crate::pipeline::call::DUPLICATE_KEYS_META;
use crate::transport::duplicate_keys::UniqueKeysObject;

use crate::pipeline::Call;
use crate::server::GeneratedServer;

/// A server that can answer a stateless request itself (every generated server can).
pub trait StatelessAnswer: Send + Sync + 'static {
    /// The answer to a plain `tools/call` (a name, arguments and at most a trace context; no
    /// other member and no repeated argument key), read from the body as it came, or `None`
    /// for anything else.
    /// `parts` are the request's head and extensions (where the auth layer put the caller).
    fn answer_plain_call(
        &self,
        parts: &Parts,
        body: &Bytes,
    ) -> Option<BoxFuture<'static, Response>>;

    /// The answer to another request this path serves, read from the body with its repeated
    /// argument keys marked (crate::transport::duplicate_keys), or `None` when rmcp must
    /// answer it.
    fn answer(&self, parts: &Parts, body: &Bytes) -> Option<BoxFuture<'static, Response>>;
}

impl<S: GeneratedServer + Send + Sync + 'static> StatelessAnswer for S {
    fn answer_plain_call(
        &self,
        parts: &Parts,
        body: &Bytes,
    ) -> Option<BoxFuture<'static, Response>> {
        if parts.method != Method::POST || !plain_headers(&parts.headers) {
            return None;
        }
        let plain = serde_json::from_slice::<PlainCall>(body).ok()?;
        if !plain.params.plain_meta() {
            return None;
        }
        let mut params = CallToolRequestParams::new(plain.params.name);
        params.arguments = plain.params.arguments.map(|arguments| arguments.0);
        let meta = MetaObject(plain.params.meta.unwrap_or_default());
        let caller = Caller::of_request(&parts.extensions);
        Some(call_tool(self.clone(), plain.id, params, meta, caller))
    }

    fn answer(&self, parts: &Parts, body: &Bytes) -> Option<BoxFuture<'static, Response>> {
        if parts.method != Method::POST || !plain_headers(&parts.headers) {
            return None;
        }
        let caller = Caller::of_request(&parts.extensions);
        let message: ClientJsonRpcMessage = match serde_json::from_slice(body) {
            Ok(message) => message,
            Err(_) => return refusal_by_the_spec(body),
        };
        let request = match message {
            ClientJsonRpcMessage::Notification(_) => {
                return Some(Box::pin(async { StatusCode::ACCEPTED.into_response() }));
            }
            ClientJsonRpcMessage::Request(request) => request,
            _ => return None,
        };
        if request.request.get_meta().protocol_version().is_some() {
            return None;
        }
        let mut request = request;
        // The request's `_meta` (traceparent, the ingress's duplicate-key marks), which rmcp's
        // deserializer keeps beside the params.
        let meta = std::mem::take(&mut request.request.get_meta_mut().0);
        let id = request.id;
        match request.request {
            ClientRequest::CallToolRequest(call) => {
                Some(call_tool(self.clone(), id, call.params, meta, caller))
            }
            ClientRequest::ListToolsRequest(_) => {
                let tools = self
                    .pipeline()
                    .catalog()
                    .list_tools(self.tool_definitions());
                let message = ServerJsonRpcMessage::response(
                    for_legacy_peer(ServerResult::ListToolsResult(tools)),
                    id,
                );
                Some(Box::pin(async move { json_response(&message) }))
            }
            ClientRequest::CustomRequest(custom) if custom.method == "tools/call" => {
                Some(invalid_call_params(id, custom.params))
            }
            _ => None,
        }
    }
}

/// `{"jsonrpc":"2.0","id":...,"method":"tools/call","params":{"name":...,"arguments":{...}}}`
/// and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainCall {
    #[serde(rename = "jsonrpc")]
    _version: Version,
    id: RequestId,
    #[serde(rename = "method")]
    _method: ToolsCall,
    params: PlainCallParams,
}

/// The only version [`PlainCall`] reads (rmcp's own type reads the text into a `String`
/// first: an allocation a call).
#[derive(Deserialize)]
enum Version {
    #[serde(rename = "2.0")]
    V2,
}

/// The only method [`PlainCall`] reads.
#[derive(Deserialize)]
enum ToolsCall {
    #[serde(rename = "tools/call")]
    ToolsCall,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainCallParams {
    name: String,
    /// Read with a check for repeated keys: a call with one is not plain.
    #[serde(default)]
    arguments: Option<UniqueKeysObject>,
    #[serde(rename = "_meta", default)]
    meta: Option<JsonObject>,
}

impl PlainCallParams {
    /// `_meta` holds only a trace context and the ingress's duplicate-key marks: nothing
    /// (a protocol version, a progress token) that would make rmcp answer differently.
    fn plain_meta(&self) -> bool {
        self.meta.as_ref().is_none_or(|meta| {
            meta.keys().all(|key| {
                matches!(
                    key.as_str(),
                    "traceparent" | "tracestate" | DUPLICATE_KEYS_META
                )
            })
        })
    }
}

/// Runs a `tools/call` through the server's dispatcher and answers it as rmcp would.
fn call_tool<S: GeneratedServer + Send + Sync + 'static>(
    server: S,
    id: RequestId,
    params: CallToolRequestParams,
    meta: MetaObject,
    caller: Option<Arc<Caller>>,
) -> BoxFuture<'static, Response> {
    Box::pin(async move {
        // A client that goes away cancels its call, as rmcp's path does.
        let cancellation = CancellationToken::new();
        let _cancel_on_drop = cancellation.clone().drop_guard();
        let (name, call) = Call::from_request(params, &meta, cancellation);
        let call = call.with_caller(caller);
        let message = match server.dispatch(&name, call).await {
            Ok(response) => {
                ServerJsonRpcMessage::response(for_legacy_peer(ServerResult::from(response)), id)
            }
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        };
        json_response(&message)
    })
}

/// A body that is not JSON: 400 with a JSON-RPC parse error (-32700, no id), as the
/// specification says, where rmcp answers 415 with text. Other bodies rmcp could not read
/// (batches, wrong members) are rmcp's to answer.
fn refusal_by_the_spec(body: &Bytes) -> Option<BoxFuture<'static, Response>> {
    let error = serde_json::from_slice::<serde_json::Value>(body).err()?;
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32700, "message": format!("Parse error: {error}")}});
    Some(Box::pin(async move {
        (StatusCode::BAD_REQUEST, axum::Json(answer)).into_response()
    }))
}

/// A `tools/call` whose params do not fit (rmcp reads it as a custom request and answers
/// "method not found", -32601): invalid params (-32602) with its id, as the specification
/// says.
fn invalid_call_params(
    id: rmcp::model::RequestId,
    params: Option<serde_json::Value>,
) -> BoxFuture<'static, Response> {
    let problem =
        serde_json::from_value::<rmcp::model::CallToolRequestParams>(params.unwrap_or_default())
            .err()
            .map_or_else(
                || "unreadable request".to_owned(),
                |error| error.to_string(),
            );
    let error = rmcp::model::ErrorData::invalid_params(format!("Invalid params: {problem}"), None);
    let message = ServerJsonRpcMessage::error(error, Some(id));
    Box::pin(async move { json_response(&message) })
}

/// What rmcp's handler does to every result for a peer before 2026-07-28 (the only ones this
/// path serves): no `resultType`, no non-object tool output.
fn for_legacy_peer(mut result: ServerResult) -> ServerResult {
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    result
}

/// Headers under which rmcp's checks all pass and add nothing to the answer.
fn plain_headers(headers: &HeaderMap) -> bool {
    let mut accepts_json = false;
    let mut accepts_sse = false;
    let mut accepts = headers.get_all(header::ACCEPT).iter();
    let (Some(accept), None) = (accepts.next(), accepts.next()) else {
        return false;
    };
    let Ok(accept) = accept.to_str() else {
        return false;
    };
    for entry in accept.split(',') {
        // Parameters (quality weights, quoted strings) are rmcp's to weigh.
        if entry.contains([';', '"']) {
            return false;
        }
        let essence = entry.trim();
        accepts_json |= essence.eq_ignore_ascii_case("application/json");
        accepts_sse |= essence.eq_ignore_ascii_case("text/event-stream");
    }
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        });
    // A name built once: looked up by a string, the header name is parsed on every request.
    const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
    let plain_version = match headers.get(&PROTOCOL_VERSION) {
        None => true,
        Some(value) => value.to_str().is_ok_and(|version| {
            ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .any(|known| known.as_str() == version)
                && version < ProtocolVersion::STANDARD_HEADERS.as_str()
                && version < ProtocolVersion::V_2026_07_28.as_str()
        }),
    };
    accepts_json && accepts_sse && json_body && plain_version
}

/// 200 with the message as JSON, as rmcp's stateless JSON mode answers.
fn json_response(message: &ServerJsonRpcMessage) -> Response {
    // Room for a typical reply in one allocation (`to_vec` starts at 128 bytes and grows).
    let mut body = Vec::with_capacity(512);
    match serde_json::to_writer(&mut body, message) {
        Ok(()) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            axum::body::Body::from(body),
        )
            .into_response(),
        Err(error) => {
            tracing::error!(%error, "cannot serialize a response");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(body: &str) -> Option<PlainCall> {
        serde_json::from_str::<PlainCall>(body)
            .ok()
            .filter(|call| call.params.plain_meta())
    }

    #[test]
    fn the_plain_form_reads_a_plain_call_and_refuses_everything_else() {
        let call = plain(
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t","arguments":{"x":1},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}"#,
        )
        .expect("plain");
        assert_eq!(call.id, RequestId::String("a".into()));
        assert_eq!(call.params.name, "t");
        assert_eq!(call.params.arguments.unwrap().0["x"], 1);
        for other in [
            // Another method, member, version or `_meta` key: the general path's to read.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"x":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":"s"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}"#,
            // A repeated argument key: the general path's, after the marking pass.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":{"b":1,"b":2}}}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#,
        ] {
            assert!(plain(other).is_none(), "{other}");
        }
    }
}
