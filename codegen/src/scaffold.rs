//! Writes user-owned files once: a stub per tool body, and `src/tools/mod.rs`. Never
//! overwrites an existing file (files are opened with `create_new`).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::model::{FieldModel, Model, ToolModel};

/// What a scaffold run did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scaffolded {
    /// The file was created.
    Created(PathBuf),
    /// The file already existed and was left alone.
    Kept(PathBuf),
}

/// Creates `tools_dir/mod.rs` and one stub per tool where they are missing.
pub fn scaffold(model: &Model, tools_dir: &Path) -> io::Result<Vec<Scaffolded>> {
    fs::create_dir_all(tools_dir)?;
    let mut report = vec![create_new(&tools_dir.join("mod.rs"), MOD_RS)?];
    for tool in model.tools.iter().filter(|tool| tool.builtin.is_none()) {
        let path = tools_dir.join(format!("{}.rs", tool.module));
        report.push(create_new(&path, &stub(tool))?);
    }
    Ok(report)
}

fn create_new(path: &Path, text: &str) -> io::Result<Scaffolded> {
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut file) => {
            file.write_all(text.as_bytes())?;
            Ok(Scaffolded::Created(path.to_owned()))
        }
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            Ok(Scaffolded::Kept(path.to_owned()))
        }
        Err(error) => Err(error),
    }
}

const MOD_RS: &str = "\
//! Tool bodies: one module per tool of harness.toml. This file and the modules are yours;
//! `scaffold` creates them once and never overwrites them.

crate::generated::tool_modules!();

/// The state every tool body can use (connection pools, clients, fixtures...).
#[derive(Debug, Default)]
pub(crate) struct Toolbox;
";

/// The stub of one tool body.
pub fn stub(tool: &ToolModel) -> String {
    let fields: Vec<String> = tool.args.iter().map(describe_field).collect();
    format!(
        "\
//! Body of tool `{name}`.

use harness_runtime::{{CallContext, ToolError}};
use serde_json::Value;

use crate::generated::{{{args}, {trait_name}}};
use crate::tools::Toolbox;

impl {trait_name} for Toolbox {{
    type Output = Value;

    async fn {method}(&self, args: {args}, ctx: CallContext) -> Result<Value, ToolError> {{
        // Arguments (already validated): {fields}
        let _ = (args, ctx);
        Err(ToolError::new(\"NotImplemented\", \"{name} is not implemented yet\"))
    }}
}}
",
        name = tool.name,
        args = tool.args_type,
        trait_name = tool.trait_name,
        method = crate::ident::to_ident(&tool.module),
        fields = if fields.is_empty() {
            "none".to_owned()
        } else {
            fields.join(", ")
        },
    )
}

fn describe_field(field: &FieldModel) -> String {
    format!("args.{}", crate::ident::to_ident(&field.ident))
}
