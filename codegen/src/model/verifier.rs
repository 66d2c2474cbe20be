//! The validated `[[verifier.checks]]`: arguments checked against the tool and completed with
//! their defaults at build time (so a check compares the same args_sha256 the server
//! writes), state-file expectations checked against the declared fields, and every path an
//! artifact the verifier will actually have.

use harness_contract::{HarnessOutcome, canonical_json, sha256_hex};
use serde_json::{Map, Value};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Manifest;
use crate::manifest::bundle::{Check, CheckKind, FieldType};
use crate::manifest_path::ManifestPath;
use crate::model::tools::ToolModel;
use crate::model::types::{FieldModel, Presence, TypeModel};
use crate::model::value::{check_value, toml_to_json};

/// Longest audit duration the verifier accepts when no tool has a longer timeout.
pub const DEFAULT_MAX_DURATION_MS: u64 = 60_000;

/// The verifier's view of the manifest.
#[derive(Debug, Clone)]
pub struct VerifierModel {
    /// Outcomes a record may have.
    pub outcomes: Vec<String>,
    /// Largest plausible `duration_ms`.
    pub max_duration_ms: u64,
    /// `(source, destination)` of every artifact.
    pub artifacts: Vec<(String, String)>,
    /// The checks.
    pub checks: Vec<CheckModel>,
}

/// One validated check.
#[derive(Debug, Clone)]
pub enum CheckModel {
    /// See `CheckKind::AuditCall`.
    AuditCall {
        /// Tool.
        tool: String,
        /// Canonical JSON of the completed arguments.
        arguments: String,
        /// Its sha256.
        args_sha256: String,
        /// Outcome.
        outcome: String,
    },
    /// See `CheckKind::StateFile`.
    StateFile {
        /// Path.
        path: String,
        /// Exact fields.
        fields: Vec<(String, FieldType)>,
        /// Trust conditions (JSON text).
        require: Vec<(String, String)>,
        /// Candidate conditions (JSON text).
        expect: Vec<(String, String)>,
    },
    /// See `CheckKind::FileExists`.
    FileExists {
        /// Path.
        path: String,
    },
    /// See `CheckKind::CallBudget`.
    CallBudget {
        /// Most calls.
        max_calls: Option<u64>,
        /// Forbidden outcomes.
        forbid_outcomes: Vec<String>,
    },
}

/// Validates `given` against `fields` as the server would, applying defaults; the value is
/// what the server's validated arguments serialize to.
fn complete_arguments(fields: &[FieldModel], given: &Map<String, Value>) -> Result<Value, String> {
    if let Some(unknown) = given
        .keys()
        .find(|key| !fields.iter().any(|field| &field.name == *key))
    {
        return Err(format!("unknown argument `{unknown}`"));
    }
    let mut completed = Map::new();
    for field in fields {
        let value = match (given.get(&field.name), &field.presence) {
            (Some(value), _) => value.clone(),
            (None, Presence::Default(default)) => default.clone(),
            (None, Presence::Optional) => continue,
            (None, Presence::Required) => {
                return Err(format!("missing required argument `{}`", field.name));
            }
        };
        let value = match (&field.ty, value) {
            (TypeModel::Object { fields, .. }, Value::Object(object)) => {
                complete_arguments(fields, &object)?
            }
            (TypeModel::Object { .. }, other) => {
                return Err(format!("`{}`: {other} is not an object", field.name));
            }
            // The server holds numbers as f64, which serialize with a fraction part.
            (TypeModel::Number { .. }, Value::Number(number)) => {
                check_value(&field.ty, &Value::Number(number.clone()))
                    .map_err(|e| format!("`{}`: {e}", field.name))?;
                serde_json::Number::from_f64(number.as_f64().unwrap_or(f64::NAN))
                    .map(Value::Number)
                    .ok_or("not finite")?
            }
            (ty, value) => {
                check_value(ty, &value)
                    .map_err(|problem| format!("`{}`: {problem}", field.name))?;
                value
            }
        };
        completed.insert(field.name.clone(), value);
    }
    Ok(Value::Object(completed))
}

/// Builds the verifier model; problems go to `errors`.
pub(crate) fn build(
    manifest: &Manifest,
    tools: &[ToolModel],
    errors: &ErrorSink<'_>,
) -> VerifierModel {
    let outcomes: Vec<String> = manifest.audit.outcomes.clone().unwrap_or_else(|| {
        HarnessOutcome::ALL
            .iter()
            .map(|outcome| outcome.as_str().to_owned())
            .collect()
    });
    let max_duration_ms = tools
        .iter()
        .filter_map(|tool| tool.guards.timeout_ms)
        .map(|ms| ms.saturating_add(1000))
        .fold(DEFAULT_MAX_DURATION_MS, u64::max);
    let artifacts: Vec<(String, String)> = manifest
        .artifacts
        .iter()
        .map(|a| (a.source.clone(), a.destination.clone()))
        .collect();
    let base = ManifestPath::root().key("verifier").key("checks");
    let checks = manifest
        .verifier
        .as_ref()
        .map_or(&[][..], |verifier| verifier.checks.as_slice());
    let mut models = Vec::new();
    let mut audit_reported = false;
    for (index, check) in checks.iter().enumerate() {
        let path = base.index(index);
        let error = |key: Option<&str>, message: String, help: &str| {
            let at = key.map_or_else(|| path.clone(), |key| path.key(key));
            errors.report(
                Diagnostic::value(at, message)
                    .label("invalid check")
                    .help(help.to_owned()),
            );
        };
        let allowed: &[&str] = match check.kind {
            CheckKind::AuditCall => &["tool", "arguments", "outcome"],
            CheckKind::StateFile => &["path", "fields", "require", "expect"],
            CheckKind::FileExists => &["path"],
            CheckKind::CallBudget => &["max_calls", "forbid_outcomes"],
        };
        let present = [
            ("tool", check.tool.is_some()),
            ("arguments", check.arguments.is_some()),
            ("outcome", check.outcome.is_some()),
            ("path", check.path.is_some()),
            ("fields", check.fields.is_some()),
            ("require", check.require.is_some()),
            ("expect", check.expect.is_some()),
            ("max_calls", check.max_calls.is_some()),
            ("forbid_outcomes", check.forbid_outcomes.is_some()),
        ];
        let stray: Vec<&str> = present
            .iter()
            .filter(|(key, set)| *set && !allowed.contains(key))
            .map(|(key, _)| *key)
            .collect();
        for key in &stray {
            error(
                Some(key),
                format!("`{key}` does not apply to kind `{}`", kind_name(check.kind)),
                &format!("this kind takes: {}", allowed.join(", ")),
            );
        }
        if !stray.is_empty() {
            continue;
        }
        if let Some(check_path) = &check.path
            && manifest.task.is_some()
            && !artifacts.iter().any(|(source, _)| source == check_path)
        {
            error(
                Some("path"),
                format!("{check_path} is not collected as an artifact"),
                "add an [[artifacts]] entry with this source, or the verifier will never see the file",
            );
        }
        let needs_audit = matches!(check.kind, CheckKind::AuditCall | CheckKind::CallBudget);
        if needs_audit
            && !std::mem::replace(&mut audit_reported, true)
            && manifest.task.is_some()
            && !artifacts
                .iter()
                .any(|(source, _)| *source == manifest.audit.path)
        {
            error(
                None,
                "the audit log is not collected as an artifact".to_owned(),
                "add an [[artifacts]] entry whose source is [audit] path",
            );
        }
        let model = match check.kind {
            CheckKind::AuditCall => audit_call(check, tools, &outcomes, &error),
            CheckKind::StateFile => state_file(check, &error),
            CheckKind::FileExists => match &check.path {
                Some(path) => Some(CheckModel::FileExists { path: path.clone() }),
                None => {
                    error(
                        None,
                        "a file_exists check needs `path`".to_owned(),
                        "add path = \"/workspace/...\"",
                    );
                    None
                }
            },
            CheckKind::CallBudget => {
                let forbid = check.forbid_outcomes.clone().unwrap_or_default();
                if let Some(unknown) = forbid.iter().find(|outcome| !outcomes.contains(outcome)) {
                    error(
                        Some("forbid_outcomes"),
                        format!("unknown outcome `{unknown}`"),
                        &format!("outcomes are: {}", outcomes.join(", ")),
                    );
                }
                Some(CheckModel::CallBudget {
                    max_calls: check.max_calls,
                    forbid_outcomes: forbid,
                })
            }
        };
        models.extend(model);
    }
    VerifierModel {
        outcomes,
        max_duration_ms,
        artifacts,
        checks: models,
    }
}

fn kind_name(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::AuditCall => "audit_call",
        CheckKind::StateFile => "state_file",
        CheckKind::FileExists => "file_exists",
        CheckKind::CallBudget => "call_budget",
    }
}

fn audit_call(
    check: &Check,
    tools: &[ToolModel],
    outcomes: &[String],
    error: &impl Fn(Option<&str>, String, &str),
) -> Option<CheckModel> {
    let Some(name) = &check.tool else {
        error(
            None,
            "an audit_call check needs `tool`".to_owned(),
            "add tool = \"<a tool of this manifest>\"",
        );
        return None;
    };
    let Some(tool) = tools.iter().find(|tool| &tool.name == name) else {
        error(
            Some("tool"),
            format!("unknown tool `{name}`"),
            "name a tool of this manifest",
        );
        return None;
    };
    let given = match check
        .arguments
        .as_ref()
        .map(|table| toml_to_json(&toml::Value::Table(table.clone())))
    {
        None => Map::new(),
        Some(Ok(Value::Object(object))) => object,
        Some(_) => {
            error(
                Some("arguments"),
                "arguments are not plain JSON values".to_owned(),
                "use strings, numbers, booleans, arrays and tables",
            );
            return None;
        }
    };
    let completed = match complete_arguments(&tool.args, &given) {
        Ok(completed) => completed,
        Err(problem) => {
            error(
                Some("arguments"),
                format!("the server would refuse these arguments: {problem}"),
                "give arguments the tool's validator accepts",
            );
            return None;
        }
    };
    let outcome = check.outcome.clone().unwrap_or_else(|| "ok".to_owned());
    if !outcomes.contains(&outcome) {
        error(
            Some("outcome"),
            format!("unknown outcome `{outcome}`"),
            &format!("outcomes are: {}", outcomes.join(", ")),
        );
        return None;
    }
    let arguments = canonical_json(&completed);
    Some(CheckModel::AuditCall {
        tool: name.clone(),
        args_sha256: sha256_hex(&arguments),
        arguments,
        outcome,
    })
}

fn state_file(check: &Check, error: &impl Fn(Option<&str>, String, &str)) -> Option<CheckModel> {
    let (Some(path), Some(fields)) = (&check.path, &check.fields) else {
        error(
            None,
            "a state_file check needs `path` and `fields`".to_owned(),
            "add path = \"...\" and fields = { name = \"integer\" }",
        );
        return None;
    };
    let fields: Vec<(String, FieldType)> = fields
        .iter()
        .map(|(name, ty)| (name.clone(), *ty))
        .collect();
    let conditions = |key: &str, table: &Option<toml::Table>| -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        for (name, value) in table.iter().flatten() {
            let Some((_, ty)) = fields.iter().find(|(field, _)| field == name) else {
                error(
                    Some(key),
                    format!("`{name}` is not one of the declared fields"),
                    "declare it in `fields`",
                );
                return None;
            };
            match toml_to_json(value) {
                Ok(json) if ty.admits(&json) => out.push((name.clone(), json.to_string())),
                _ => {
                    error(
                        Some(key),
                        format!("`{name}` = {value} is not of type {ty}"),
                        "match the field's declared type",
                    );
                    return None;
                }
            }
        }
        Some(out)
    };
    let require = conditions("require", &check.require)?;
    let expect = conditions("expect", &check.expect)?;
    Some(CheckModel::StateFile {
        path: path.clone(),
        fields,
        require,
        expect,
    })
}
