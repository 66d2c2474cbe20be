//! Tools and their arguments: names (unique, valid MCP names, distinct Rust identifiers),
//! descriptions, fields, presence and defaults, and the built-in tools.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diagnostics::Diagnostic;
use crate::ident;
use crate::manifest::{self, ArgType, Argument, Guards, RateLimitBackend};
use crate::manifest_path::ManifestPath;
use crate::model::ModelBuilder;
use crate::model::guards::{GuardPolicy, resolve_guards};
use crate::model::types::{Constraints, TypeModel};
use crate::model::value::{check_value, toml_to_json};

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
    /// The resolved guard policy.
    pub guards: GuardPolicy,
    /// Set for a built-in tool, whose body lives in harness-runtime.
    pub builtin: Option<Builtin>,
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

/// A validated argument or object field.
#[derive(Debug, Clone)]
pub struct FieldModel {
    /// JSON property name.
    pub name: String,
    /// Rust field name (`snake_case`, unescaped).
    pub ident: String,
    /// Description for the model.
    pub description: Option<String>,
    /// Whether it must be present, may be absent, or has a default.
    pub presence: Presence,
    /// Type and constraints.
    pub ty: TypeModel,
}

/// How a field's absence is handled.
#[derive(Debug, Clone, PartialEq)]
pub enum Presence {
    /// Absent is an error.
    Required,
    /// Absent becomes `None`.
    Optional,
    /// Absent becomes this (already checked) value.
    Default(Value),
}

impl ModelBuilder {
    pub(super) fn tools(
        &mut self,
        tools: &[manifest::Tool],
        defaults: &Guards,
        store_backend: RateLimitBackend,
    ) -> Vec<ToolModel> {
        let mut seen_names: BTreeMap<&str, usize> = BTreeMap::new();
        let mut seen_modules: BTreeMap<String, (String, ManifestPath)> = BTreeMap::new();
        let mut models = Vec::new();
        for (index, tool) in tools.iter().enumerate() {
            let path = ManifestPath::root().key("tools").index(index);
            if let Some(first) = seen_names.insert(&tool.name, index) {
                self.diagnostics.report(
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
                self.check_guards(&tool.guards, &path.key("guards"));
                self.check_description(tool, &path);
                let _ = self.fields(&tool.arguments, &path.key("arguments"), None);
                continue;
            }
            self.check_guards(&tool.guards, &path.key("guards"));
            if let Some(model) = self.tool(tool, &path, &mut seen_modules, defaults, store_backend)
            {
                models.push(model);
            }
        }
        models
    }

    pub(super) fn tool(
        &mut self,
        tool: &manifest::Tool,
        path: &ManifestPath,
        seen_modules: &mut BTreeMap<String, (String, ManifestPath)>,
        defaults: &Guards,
        store_backend: RateLimitBackend,
    ) -> Option<ToolModel> {
        let name_ok = !tool.name.is_empty()
            && tool.name.len() <= 128
            && tool
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !name_ok {
            self.diagnostics.report(
                Diagnostic::value(
                    path.key("name"),
                    format!("invalid tool name `{}`", tool.name),
                )
                .label("not a valid MCP tool name")
                .help("use 1 to 128 ASCII letters, digits, `_`, `-` or `.`"),
            );
            return None;
        }
        self.check_description(tool, path);
        let names = self.names(&tool.name, &path.key("name"));
        let args = self.fields(
            &tool.arguments,
            &path.key("arguments"),
            names.as_ref().map(|(_, camel)| camel.as_str()),
        );
        let (module, camel) = names?;
        if let Some((other, other_path)) =
            seen_modules.insert(module.clone(), (tool.name.clone(), path.key("name")))
        {
            self.diagnostics.report(
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
        self.claim_type(&camel, &tool.name, &path.key("name"));
        self.claim_type(&args_type, &tool.name, &path.key("name"));
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
            guards: resolve_guards(&tool.guards, defaults, store_backend),
            builtin: None,
        })
    }

    fn check_description(&mut self, tool: &manifest::Tool, path: &ManifestPath) {
        if tool.description.trim().is_empty() {
            self.diagnostics.report(
                Diagnostic::value(path.key("description"), "tool description is empty")
                    .label("empty")
                    .help("the model chooses tools by their description; say what it does"),
            );
        }
    }

    pub(super) fn fields(
        &mut self,
        arguments: &[Argument],
        path: &ManifestPath,
        type_prefix: Option<&str>,
    ) -> Option<Vec<FieldModel>> {
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut idents: BTreeMap<String, (String, usize)> = BTreeMap::new();
        let mut fields = Vec::new();
        let mut ok = true;
        let list = path;
        for (index, argument) in arguments.iter().enumerate() {
            let path = list.index(index);
            if let Some(first) = seen.insert(&argument.name, index) {
                self.diagnostics.report(
                    Diagnostic::value(
                        path.key("name"),
                        format!("duplicate argument `{}`", argument.name),
                    )
                    .label("already defined")
                    .also_at(list.index(first).key("name"), "first defined here")
                    .help("argument names must be unique"),
                );
                ok = false;
                continue;
            }
            match self.field(argument, &path, type_prefix) {
                Some(field) => {
                    if let Some((other, other_index)) =
                        idents.insert(field.ident.clone(), (argument.name.clone(), index))
                    {
                        self.diagnostics.report(
                            Diagnostic::value(
                                path.key("name"),
                                format!(
                                    "arguments `{other}` and `{}` both become the field `{}` in Rust",
                                    argument.name, field.ident
                                ),
                            )
                            .label("collides after case conversion")
                            .also_at(
                                list.index(other_index).key("name"),
                                format!("`{other}` becomes `{}` too", field.ident),
                            )
                            .help("rename one of them so their snake_case forms differ"),
                        );
                        ok = false;
                    }
                    fields.push(field);
                }
                None => ok = false,
            }
        }
        ok.then_some(fields)
    }

    pub(super) fn field(
        &mut self,
        argument: &Argument,
        path: &ManifestPath,
        type_prefix: Option<&str>,
    ) -> Option<FieldModel> {
        let names = self.names(&argument.name, &path.key("name"));
        let type_name = match (type_prefix, &names) {
            (Some(prefix), Some((_, camel))) => Some(format!("{prefix}{camel}")),
            _ => None,
        };
        let ty = self.type_model(
            &Constraints::of_argument(argument),
            path,
            type_name.as_deref(),
        );
        let presence = self.presence(argument, ty.as_ref(), path);
        let (ident, _) = names?;
        Some(FieldModel {
            name: argument.name.clone(),
            ident,
            description: argument.description.clone(),
            presence: presence?,
            ty: ty?,
        })
    }

    pub(super) fn presence(
        &mut self,
        argument: &Argument,
        ty: Option<&TypeModel>,
        path: &ManifestPath,
    ) -> Option<Presence> {
        let Some(default) = &argument.default else {
            return Some(if argument.required == Some(false) {
                Presence::Optional
            } else {
                Presence::Required
            });
        };
        let default_path = path.key("default");
        if argument.required == Some(true) {
            self.diagnostics.report(
                Diagnostic::value(
                    path.key("required"),
                    "a required argument cannot have a default",
                )
                .label("required = true")
                .help(
                    "remove `required` (a default makes the argument optional) or remove `default`",
                ),
            );
            return None;
        }
        if argument.ty == ArgType::Object {
            self.diagnostics.report(
                Diagnostic::value(default_path, "an object argument cannot have a default")
                    .label("not supported")
                    .help("give defaults to the object's fields instead"),
            );
            return None;
        }
        let value = match toml_to_json(default) {
            Ok(value) => value,
            Err(message) => {
                self.diagnostics.report(
                    Diagnostic::value(default_path, message)
                        .label("not a JSON value")
                        .help("use a string, number, boolean or array"),
                );
                return None;
            }
        };
        // Without a valid type there is nothing to check the default against; that error
        // is already reported.
        let ty = ty?;
        if let Err(problem) = check_value(ty, &value) {
            self.diagnostics.report(
                Diagnostic::value(default_path, format!("default {problem}"))
                    .label("invalid default")
                    .help("the default must satisfy the argument's own type and constraints"),
            );
            return None;
        }
        Some(Presence::Default(value))
    }
}

pub(super) fn builtin_tool(builtin: Builtin, guards: &GuardPolicy) -> ToolModel {
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
        guards: guards.clone(),
        builtin: Some(builtin),
    }
}
