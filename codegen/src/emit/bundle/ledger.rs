//! ledger.json: the fairness ledger. Everything that makes "the agent with the
//! tool" a different experimental condition, pinned: the server, its tools and a digest of
//! their definitions (clients can pin it to detect changed tools), each tool's budget, the
//! network policy of each phase, the skills' digests and the image references.

use harness_contract::{canonical_json, sha256_hex};
use serde_json::{Value, json};

use crate::emit::schema::input_schema;
use crate::model::Model;
use crate::model::bundle::BundleModel;
use crate::model::bundle::task_config::NetworkPolicy;

use crate::model::verifier::CheckModel;

/// Drops nulls, as rmcp omits unset optional fields.
fn without_nulls(value: Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::Object(object) => Some(Value::Object(
            object
                .into_iter()
                .filter_map(|(k, v)| Some((k, without_nulls(v)?)))
                .collect(),
        )),
        Value::Array(items) => Some(Value::Array(
            items.into_iter().filter_map(without_nulls).collect(),
        )),
        other => Some(other),
    }
}

/// The tool definitions exactly as `tools/list` publishes them, for a digest a client can
/// recompute: sha256 of the canonical JSON (keys sorted, no spaces) of the `tools` array.
fn published_tools(model: &Model) -> Value {
    let tools = Value::Array(
        model
            .tools
            .iter()
            .map(|tool| {
                let hints = &tool.annotations;
                let any_hint = [
                    hints.read_only,
                    hints.destructive,
                    hints.idempotent,
                    hints.open_world,
                ]
                .iter()
                .any(Option::is_some);
                json!({
                    "name": tool.name,
                    "title": tool.title,
                    "description": tool.description,
                    "inputSchema": input_schema(tool),
                    "annotations": any_hint.then(|| json!({
                        "readOnlyHint": hints.read_only,
                        "destructiveHint": hints.destructive,
                        "idempotentHint": hints.idempotent,
                        "openWorldHint": hints.open_world,
                    })),
                })
            })
            .collect(),
    );
    without_nulls(tools).unwrap_or(Value::Array(Vec::new()))
}

/// The text of ledger.json. `shipped` holds the bundle's other files, so each skill's digest
/// is of the SKILL.md the agent reads. `bundle --out` adds the sidecar binary's digest, which
/// is known only once the binary is built.
pub(super) fn ledger_json(
    model: &Model,
    bundle: &BundleModel,
    shipped: &[(String, String)],
) -> String {
    let tools = published_tools(model);
    let budgets: serde_json::Map<String, Value> = model
        .tools
        .iter()
        .map(|tool| {
            let guards = &tool.guards;
            // The retry rule the task's skill states: a read-only tool may be retried once, and only after a
            // connection reset or a transient 5xx; anything else is never retried.
            let read_only = tool.annotations.read_only == Some(true);
            let budget = json!({
                "timeout_ms": guards.timeout_ms,
                "retries_allowed": u8::from(read_only),
                "retry_on": if read_only { json!(["connection_reset", "http_5xx"]) } else { json!([]) },
                "rate_limit": guards.rate_limit.map(|(calls, period)| json!({"calls": calls, "period_seconds": period})),
                "max_chars": guards.max_chars,
                "max_lines": guards.max_lines,
                "tabular": guards.tabular.map(|(rows, action)| json!({"max_rows": rows, "action": action.as_str()})),
            });
            (tool.name.clone(), budget)
        })
        .collect();
    let phase = |policy: &NetworkPolicy| json!({"network_mode": policy.network_mode, "allowed_hosts": policy.allowed_hosts});
    let config = &bundle.task_config;
    let sidecar = &bundle.sidecar;
    let skill_digest = |name: &str| {
        let path = format!("environment/skills/{name}/SKILL.md");
        shipped
            .iter()
            .find(|(shipped, _)| *shipped == path)
            .map(|(_, text)| sha256_hex(text))
    };
    // The call budget the verifier enforces (its call_budget checks), so a run's
    // conditions can be compared without reading the verifier.
    let call_budgets: Vec<Value> = model
        .verifier
        .checks
        .iter()
        .filter_map(|check| match check {
            CheckModel::CallBudget {
                max_calls,
                forbid_outcomes,
            } => Some(json!({"max_calls": max_calls, "forbid_outcomes": forbid_outcomes})),
            _ => None,
        })
        .collect();
    let ledger = json!({
        "schema_version": 1,
        "server": {
            "name": model.server.name,
            "version": model.server.version,
            "transport": sidecar.transport,
            "bind": sidecar.bind.to_string(),
            "path": sidecar.mcp_path,
            "manifest_sha256": model.manifest_sha256,
        },
        "tools": model.tools.iter().map(|tool| tool.name.clone()).collect::<Vec<_>>(),
        "tools_sha256": sha256_hex(canonical_json(&tools)),
        "budgets": budgets,
        "call_budget": call_budgets,
        "network": {
            "environment": phase(&config.environment.network),
            "agent": phase(&config.agent.network),
            "verifier": phase(&config.verifier.network),
            "verifier_environment": config.verifier.environment.as_ref().map(|env| phase(&env.network)),
            "egress_overlay": bundle.overlay,
        },
        "skills": bundle.skills.iter().map(|skill| json!({"name": skill.name, "sha256": skill_digest(&skill.name)})).collect::<Vec<_>>(),
        "images": {
            "main": bundle.main.base_image,
            "sidecar": sidecar.image.clone().unwrap_or_else(|| format!("FROM scratch + the bundled static binary environment/{0}/{0}", sidecar.name)),
            "verifier": bundle.verifier.image,
        },
    });
    let mut text = serde_json::to_string_pretty(&ledger).expect("the ledger is plain JSON");
    text.push('\n');
    text
}
