//! Tools: names (unique, valid MCP names, distinct Rust identifiers), descriptions, their
//! arguments (checked in `model::arguments`), declared results (`model::results`) and guards,
//! and the built-in tools.

use std::collections::BTreeMap;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::ident;
use crate::manifest;
use crate::manifest_path::ManifestPath;
use crate::model::arguments::fields;
use crate::model::forms::{FormModel, forms};
use crate::model::guards::{GuardDefaults, GuardPolicy, check_guards};
use crate::model::names::{TypeNames, rust_names};
use crate::model::results::{ResultModel, results};
use crate::model::tasks::{self, TaskPolicy};
use crate::model::types::FieldModel;
use crate::model::upstreams::{UpstreamBinding, binding};
use crate::model::write::{self, WritePolicy};

/// The built-in tools `register_builtins` adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `health`
    Health,
    /// `ping`
    Ping,
    /// `diagnostics`
    Diagnostics,
}

impl Builtin {
    /// Every built-in, in `tools/list` order.
    pub const ALL: [Builtin; 3] = [Builtin::Health, Builtin::Ping, Builtin::Diagnostics];

    /// The MCP tool name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Health => "health",
            Builtin::Ping => "ping",
            Builtin::Diagnostics => "diagnostics",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Builtin::Health => "Report whether the server is serving: {\"status\":\"ok\"}.",
            Builtin::Ping => "Answer pong; checks the round trip.",
            Builtin::Diagnostics => {
                "Uptime, version, per-tool counters of calls, errors and rate-limited calls, and the manifest digest."
            }
        }
    }
}

/// A validated tool.
#[derive(Debug, Clone)]
pub struct ToolModel {
    /// MCP tool name.
    pub name: String,
    /// Module and method name (`snake_case`, unescaped).
    pub module: String,
    /// Name of the tool's body trait (`UpperCamelCase`).
    pub trait_name: String,
    /// Name of the arguments struct.
    pub args_type: String,
    /// Display name.
    pub title: Option<String>,
    /// Description for the model.
    pub description: String,
    /// Behaviour hints.
    pub annotations: Annotations,
    /// Arguments in manifest order.
    pub args: Vec<FieldModel>,
    /// The declared result (`[[tools.results]]`), if any.
    pub results: Option<ResultModel>,
    /// The resolved guard policy.
    pub guards: GuardPolicy,
    /// Set for a built-in tool, whose body lives in harness-runtime.
    pub builtin: Option<Builtin>,
    /// Set for a tool an upstream serves (the gateway): it has no body of its own.
    pub upstream: Option<UpstreamBinding>,
    /// The pinned JSON Schema (made strict) that validates its arguments instead of `args`.
    pub pinned_schema: Option<serde_json::Value>,
    /// Confirmation before the body runs.
    pub write: WritePolicy,
    /// The forms its body may put to the user (`[[tools.forms]]`).
    pub forms: Vec<FormModel>,
    /// Its calls as tasks (`[tools.task]`), unless they never are.
    pub task: Option<TaskPolicy>,
}

impl ToolModel {
    /// Whether the tool's body is the user's (`src/tools/<module>.rs`): neither built in nor
    /// served by an upstream.
    pub fn has_user_body(&self) -> bool {
        self.builtin.is_none() && self.upstream.is_none()
    }
}

/// MCP tool annotations as the manifest states them (hints, not permissions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

/// Every `[[tools]]` entry that passed, in manifest order; `defaults` resolve each tool's
/// guards.
pub(crate) fn tools(
    tools: &[manifest::Tool],
    upstreams: &[manifest::Upstream],
    defaults: &GuardDefaults<'_>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Vec<ToolModel> {
    let mut seen_names: BTreeMap<&str, usize> = BTreeMap::new();
    let mut seen_modules: BTreeMap<String, (String, ManifestPath)> = BTreeMap::new();
    let mut models = Vec::new();
    for (index, tool) in tools.iter().enumerate() {
        let path = ManifestPath::root().key("tools").index(index);
        if let Some(first) = seen_names.insert(&tool.name, index) {
            errors.report(
                Diagnostic::value(path.key("name"), format!("duplicate tool `{}`", tool.name))
                    .label("already defined")
                    .also_at(
                        ManifestPath::root().key("tools").index(first).key("name"),
                        "first defined here",
                    )
                    .help("tool names must be unique"),
            );
            // The rest of the tool is still checked, so fixing the name shows no new
            // errors; its Rust names are the first tool's, so only its content is.
            check_guards(&tool.guards, &path.key("guards"), errors);
            check_description(tool, &path, errors);
            let _ = fields(
                &tool.arguments,
                &path.key("arguments"),
                None,
                type_names,
                errors,
            );
            let _ = results(tool, &path, None, None, type_names, errors);
            continue;
        }
        check_guards(&tool.guards, &path.key("guards"), errors);
        let seen = &mut seen_modules;
        let bound = binding(tool, &path, upstreams, errors);
        if let Some(mut model) = tool_model(tool, &path, seen, defaults, type_names, errors) {
            model.upstream = bound;
            models.push(model);
        }
    }
    models
}

/// One tool that is not a duplicate; `seen_modules` holds the Rust module names the tools
/// before it took, with the tool and place that took each.
fn tool_model(
    tool: &manifest::Tool,
    path: &ManifestPath,
    seen_modules: &mut BTreeMap<String, (String, ManifestPath)>,
    defaults: &GuardDefaults<'_>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<ToolModel> {
    let name_ok = !tool.name.is_empty()
        && tool.name.len() <= 128
        && tool
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !name_ok {
        errors.report(
            Diagnostic::value(
                path.key("name"),
                format!("invalid tool name `{}`", tool.name),
            )
            .label("not a valid MCP tool name")
            .help("use 1 to 128 ASCII letters, digits, `_`, `-` or `.`"),
        );
        return None;
    }
    check_description(tool, path, errors);
    let names = rust_names(&tool.name, &path.key("name"), errors);
    let args = fields(
        &tool.arguments,
        &path.key("arguments"),
        names.as_ref().map(|(_, camel)| camel.as_str()),
        type_names,
        errors,
    );
    let guards = defaults.resolve(&tool.guards);
    let write = write::policy(tool, path, args.as_deref(), defaults.store_backend, errors);
    let camel_name = names.as_ref().map(|(_, camel)| camel.as_str());
    let declared = results(tool, path, camel_name, Some(&guards), type_names, errors);
    let forms = forms(tool, path, camel_name, type_names, errors);
    let task = tasks::policy(tool, path, &forms, defaults.store_backend, errors);
    if !tool.results.is_empty() && declared.is_none() {
        return None;
    }
    let (module, camel) = names?;
    if let Some((other, other_path)) =
        seen_modules.insert(module.clone(), (tool.name.clone(), path.key("name")))
    {
        errors.report(
            Diagnostic::value(
                path.key("name"),
                format!(
                    "tools `{other}` and `{}` both become `{module}` in Rust",
                    tool.name
                ),
            )
            .label("collides after case conversion")
            .also_at(other_path, format!("`{other}` becomes `{module}` too"))
            .help("rename one of them so their snake_case forms differ"),
        );
        return None;
    }
    let args_type = format!("{camel}Args");
    type_names.claim(&camel, &tool.name, &path.key("name"));
    type_names.claim(&args_type, &tool.name, &path.key("name"));
    Some(ToolModel {
        name: tool.name.clone(),
        module,
        trait_name: camel,
        args_type,
        title: tool.title.clone(),
        description: tool.description.clone(),
        annotations: Annotations {
            read_only: tool.annotations.read_only,
            destructive: tool.annotations.destructive,
            idempotent: tool.annotations.idempotent,
            open_world: tool.annotations.open_world,
        },
        args: args?,
        results: declared,
        guards,
        builtin: None,
        upstream: None,
        pinned_schema: None,
        write,
        forms,
        task,
    })
}

fn check_description(tool: &manifest::Tool, path: &ManifestPath, errors: &ErrorSink<'_>) {
    if tool.description.trim().is_empty() {
        errors.report(
            Diagnostic::value(path.key("description"), "tool description is empty")
                .label("empty")
                .help("the model chooses tools by their description; say what it does"),
        );
    }
}

/// Reports every tool named like a built-in one (when the built-ins are registered).
pub(crate) fn check_builtin_clashes(tools: &[manifest::Tool], errors: &ErrorSink<'_>) {
    for (index, tool) in tools.iter().enumerate() {
        if Builtin::ALL
            .iter()
            .any(|builtin| builtin.name() == tool.name)
        {
            errors.report(
                Diagnostic::value(
                    ManifestPath::root().key("tools").index(index).key("name"),
                    format!(
                        "tool `{}` clashes with the built-in tool of that name",
                        tool.name
                    ),
                )
                .label("a built-in tool")
                .help("rename the tool, or set `register_builtins = false` in [server]"),
            );
        }
    }
}

/// The model of a built-in tool, with the manifest's default guards.
pub(crate) fn builtin_tool(builtin: Builtin, guards: &GuardPolicy) -> ToolModel {
    let name = builtin.name();
    let camel = ident::camel(name).expect("built-in names are identifiers");
    ToolModel {
        name: name.to_owned(),
        module: name.to_owned(),
        args_type: format!("{camel}Args"),
        trait_name: camel,
        title: None,
        description: builtin.description().to_owned(),
        annotations: Annotations {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        },
        args: Vec::new(),
        results: None,
        guards: guards.clone(),
        builtin: Some(builtin),
        upstream: None,
        pinned_schema: None,
        write: WritePolicy::default(),
        forms: Vec::new(),
        task: None,
    }
}
