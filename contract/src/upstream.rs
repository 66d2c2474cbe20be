//! The gateway's vocabulary: how an upstream is reached, what a changed pinned definition
//! does, and the digest a pin records (computed by `harness-codegen import` and by the
//! runtime on every `tools/list` of the upstream, so both must hash the same bytes).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::digest::{canonical_json, sha256_hex};
use crate::enums::contract_enum;

/// How the gateway reaches an upstream MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum UpstreamTransport {
    /// A child process speaking MCP over its stdin and stdout.
    Stdio,
    /// An MCP endpoint over streamable HTTP.
    StreamableHttp,
}

contract_enum!(UpstreamTransport {
    Stdio => "stdio",
    StreamableHttp => "streamable-http",
});

/// What the gateway does when an upstream's live definition of a pinned tool differs from the
/// pin (a "rug pull"). The manifest's definition is the one published either way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OnDrift {
    /// Keep the tool listed and refuse its calls with `UpstreamDrift` until the upstream
    /// serves the pinned definition again.
    #[default]
    Refuse,
    /// Take the tool out of `tools/list`; calls are refused with `UpstreamDrift`.
    Drop,
    /// Log a warning and keep serving the call through the pinned definition.
    Warn,
}

contract_enum!(OnDrift {
    Refuse => "refuse",
    Drop => "drop",
    Warn => "warn",
});

/// The protocol revision the gateway speaks to an upstream. A 2025-11-25 upstream is
/// initialized once and asks for input by requests in the session while a call runs; a
/// 2026-07-28 upstream is discovered (`server/discover`), and a call that needs input ends
/// with an input-required result the gateway passes on and answers in the next round.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum UpstreamProtocol {
    /// `initialize`, then a session (what most MCP servers speak today).
    #[default]
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// `server/discover`, then requests that carry their own metadata.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

contract_enum!(UpstreamProtocol {
    V2025_11_25 => "2025-11-25",
    V2026_07_28 => "2026-07-28",
});

/// A request an upstream may start while it serves a call, which the gateway passes on to
/// the client that made the call only where the upstream's `forward` list names it (every
/// other one is refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ForwardedRequest {
    /// `sampling/createMessage`: the client's model writes a reply.
    Sampling,
    /// `elicitation/create` (form mode): the user fills in a form.
    Elicitation,
    /// `roots/list`: the client's workspace roots.
    Roots,
}

contract_enum!(ForwardedRequest {
    Sampling => "sampling",
    Elicitation => "elicitation",
    Roots => "roots",
});

/// The parts of a tool definition a pin covers, as MCP names them.
const PINNED_FIELDS: &[&str] = &[
    "name",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// The pinned part of `tool` (a `tools/list` entry): name, description, input and output
/// schema, annotations; absent fields and `null` are the same.
pub fn pinned_definition(tool: &Value) -> Value {
    let mut pinned = Map::new();
    for field in PINNED_FIELDS {
        if let Some(value) = tool.get(*field).filter(|value| !value.is_null()) {
            pinned.insert((*field).to_owned(), value.clone());
        }
    }
    Value::Object(pinned)
}

/// Lower-case hex sha256 of the canonical JSON of the pinned part of `tool`.
pub fn definition_sha256(tool: &Value) -> String {
    sha256_hex(canonical_json(&pinned_definition(tool)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_digest_covers_the_pinned_fields_only_in_any_key_order() {
        let tool = json!({
            "name": "echo",
            "description": "Echoes back the input",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}},
            "title": "Echo",
            "_meta": {"anything": 1},
            "outputSchema": null,
        });
        let reordered = json!({
            "inputSchema": {"properties": {"message": {"type": "string"}}, "type": "object"},
            "description": "Echoes back the input",
            "name": "echo",
        });
        assert_eq!(definition_sha256(&tool), definition_sha256(&reordered));
        // hashlib.sha256(json.dumps({...}, sort_keys=True, separators=(",", ":")).encode())
        assert_eq!(
            definition_sha256(&reordered),
            sha256_hex(
                r#"{"description":"Echoes back the input","inputSchema":{"properties":{"message":{"type":"string"}},"type":"object"},"name":"echo"}"#
            )
        );
    }

    #[test]
    fn a_changed_description_schema_or_annotation_changes_the_digest() {
        let tool = json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}});
        let base = definition_sha256(&tool);
        for changed in [
            json!({"name": "t", "description": "d!", "inputSchema": {"type": "object"}}),
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "required": ["x"]}}),
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": true}}),
        ] {
            assert_ne!(definition_sha256(&changed), base, "{changed}");
        }
    }
}
