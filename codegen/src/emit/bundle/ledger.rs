//! ledger.json: the fairness ledger. Everything that makes "the agent with the
//! tool" a different experimental condition, pinned: the server, its tools and a digest of
//! their definitions (clients can pin it to detect changed tools), each tool's budget, the
//! network policy of each phase, the skills' digests and the image references.

use harness_contract::{canonical_json, sha256_hex};
use serde_json::{Value, json};

use crate::emit::schema::{input_schema, output_schema};
use crate::model::Model;
use crate::model::bundle::BundleModel;
use crate::model::bundle::task::NetworkPolicy;
use crate::model::verifier::CheckModel;

/// The entries of `pairs` that are set, as rmcp writes a struct whose unset optional fields
/// it skips (a `null` inside the inputSchema is data and stays).
fn set_fields(pairs: impl IntoIterator<Item = (&'static str, Option<Value>)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .filter_map(|(key, value)| Some((key.to_owned(), value?)))
            .collect(),
    )
}

/// The tool definitions exactly as `tools/list` publishes them (harness-runtime's
/// `ToolSpec::to_tool`, pinned equal by tests/fixtures/tests/rules_pinned.rs), for a digest a
/// client can recompute: sha256 of the canonical JSON (keys sorted, no spaces) of the `tools`
/// array.
pub fn published_tools(model: &Model) -> Value {
    let flag = |hint: Option<bool>| hint.map(Value::Bool);
    model
        .tools
        .iter()
        .map(|tool| {
            let hints = &tool.annotations;
            let annotations = set_fields([
                ("readOnlyHint", flag(hints.read_only)),
                ("destructiveHint", flag(hints.destructive)),
                ("idempotentHint", flag(hints.idempotent)),
                ("openWorldHint", flag(hints.open_world)),
            ]);
            let any_hint = annotations
                .as_object()
                .is_some_and(|hints| !hints.is_empty());
            set_fields([
                ("name", Some(tool.name.clone().into())),
                ("title", tool.title.clone().map(Value::from)),
                ("description", Some(tool.description.clone().into())),
                ("inputSchema", Some(input_schema(tool))),
                ("outputSchema", output_schema(tool)),
                ("annotations", any_hint.then_some(annotations)),
            ])
        })
        .collect()
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
                "rate_limit": guards.rate_limit.map(|limit| json!({"calls": limit.calls, "period_seconds": limit.period_seconds, "backend": limit.backend.as_str()})),
                "max_chars": guards.max_chars,
                "max_lines": guards.max_lines,
                "tabular": guards.tabular.map(|(rows, action)| json!({"max_rows": rows, "action": action.as_str()})),
            });
            (tool.name.clone(), budget)
        })
        .collect();
    let phase = |policy: &NetworkPolicy| json!({"network_mode": policy.network_mode, "allowed_hosts": policy.allowed_hosts});
    let networks = &bundle.task.networks;
    let sidecar = &bundle.sidecar;
    // Each skill's files as the bundle ships them: the digests a host checks what the
    // server serves against.
    let shipped_text = |name: &str, file: &str| {
        let path = format!("environment/skills/{name}/{file}");
        shipped
            .iter()
            .find(|(shipped, _)| *shipped == path)
            .map(|(_, text)| text.as_str())
    };
    let skill = |skill: &crate::model::SkillModel| {
        let files: Vec<Value> = skill
            .files
            .iter()
            .filter_map(|file| {
                let text = shipped_text(&skill.name, &file.path)?;
                Some(json!({"uri": skill.uri_of(file), "digest": format!("sha256:{}", sha256_hex(text)), "size": text.len()}))
            })
            .collect();
        json!({"name": skill.name, "sha256": shipped_text(&skill.name, "SKILL.md").map(sha256_hex), "files": files})
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
            "bind": (!sidecar.in_main).then(|| sidecar.bind.to_string()),
            "path": (!sidecar.in_main).then_some(&sidecar.mcp_path),
            // On stdio the agent's MCP client starts the server as the agent's user, so the
            // audit is in the agent's reach: a condition a comparison of runs must know.
            "runs_in": if sidecar.in_main { "main, as the agent's user (stdio)" } else { "its own container (the sidecar)" },
            "manifest_sha256": model.manifest_sha256,
        },
        "tools": model.tools.iter().map(|tool| tool.name.clone()).collect::<Vec<_>>(),
        "tools_sha256": sha256_hex(canonical_json(&tools)),
        "budgets": budgets,
        "call_budget": call_budgets,
        "network": {
            "environment": phase(&networks.environment),
            "agent": phase(&networks.agent),
            "verifier": phase(&networks.verifier),
            "verifier_environment": networks.verifier_environment.as_ref().map(phase),
            "egress_overlay": bundle.overlay,
        },
        "skills": bundle.skills.iter().map(skill).collect::<Vec<_>>(),
        // Each run's own row: tests/test.sh has the verifier write it beside the reward.
        "run_ledger": {
            "path": "/logs/verifier/run-ledger.json",
            "holds": ["server", "tools_sha256", "skills", "verdict", "reason", "run.tool_calls", "run.tool_ok", "run.tool_errors", "run.mcp_latency_ms"],
        },
        "images": {
            "main": bundle.main.base_image,
            "sidecar": if sidecar.in_main { None } else { Some(sidecar.image.clone().unwrap_or_else(|| {
                let base = sidecar.base.as_ref().map_or("FROM scratch", |base| base.image.as_str());
                format!("{base} + the bundled static binary environment/{0}/{0}", sidecar.name)
            })) },
            "verifier": bundle.verifier.image,
        },
    });
    let mut text = serde_json::to_string_pretty(&ledger).expect("the ledger is plain JSON");
    text.push('\n');
    text
}
