//! Writes user-owned files: a stub per tool body, and `src/tools/mod.rs` declaring one module
//! per tool (plain `mod` items, so rustfmt and rust-analyzer see the bodies). Never overwrites
//! a file: a stub is created only where none exists, and `mod.rs` only gains the declarations
//! of new tools, appended.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::model::{FieldModel, Model, Presence, ToolModel};

/// What a scaffold run did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scaffolded {
    /// The file was created.
    Created(PathBuf),
    /// The file already existed and was left alone.
    Kept(PathBuf),
    /// `mod.rs` existed and the module declarations of these tools were appended to it.
    Declared(PathBuf, Vec<String>),
}

/// Creates `tools_dir/mod.rs` and one stub per tool where they are missing, and declares in
/// an existing `mod.rs` the modules of tools it does not declare yet.
pub fn scaffold(model: &Model, tools_dir: &Path) -> io::Result<Vec<Scaffolded>> {
    fs::create_dir_all(tools_dir)?;
    let modules: Vec<&str> = user_tools(model).map(|tool| tool.module.as_str()).collect();
    let mod_rs = tools_dir.join("mod.rs");
    let mut report = vec![
        match create_new(&mod_rs, &rustfmt(&mod_rs_text(&modules)))? {
            Scaffolded::Kept(path) => declare_missing(&path, &modules)?,
            created => created,
        },
    ];
    for tool in user_tools(model) {
        let path = tools_dir.join(format!("{}.rs", tool.module));
        report.push(create_new(&path, &rustfmt(&stub(tool)))?);
    }
    Ok(report)
}

fn user_tools(model: &Model) -> impl Iterator<Item = &ToolModel> {
    model.tools.iter().filter(|tool| tool.has_user_body())
}

/// The tool modules `mod_rs` (its text) does not declare; none when it uses the generated
/// `tool_modules!()` macro, which declares them all.
pub fn undeclared_modules<'a>(mod_rs: &str, modules: &[&'a str]) -> Vec<&'a str> {
    if mod_rs.contains("tool_modules!") {
        return Vec::new();
    }
    modules
        .iter()
        .copied()
        .filter(|module| {
            !mod_rs.lines().any(|line| {
                let line = line.trim();
                let item = line
                    .strip_prefix("pub(crate) ")
                    .or_else(|| line.strip_prefix("pub "))
                    .unwrap_or(line);
                item.strip_prefix("mod ")
                    .and_then(|rest| rest.strip_suffix(';'))
                    .is_some_and(|name| name.trim().trim_start_matches("r#") == *module)
            })
        })
        .collect()
}

fn declare_missing(mod_rs: &Path, modules: &[&str]) -> io::Result<Scaffolded> {
    let text = fs::read_to_string(mod_rs)?;
    let missing = undeclared_modules(&text, modules);
    if missing.is_empty() {
        return Ok(Scaffolded::Kept(mod_rs.to_owned()));
    }
    let mut file = OpenOptions::new().append(true).open(mod_rs)?;
    let separator = if text.ends_with('\n') { "" } else { "\n" };
    let declarations: String = missing
        .iter()
        .map(|module| format!("pub(crate) mod {};\n", crate::ident::to_ident(module)))
        .collect();
    file.write_all(format!("{separator}{declarations}").as_bytes())?;
    Ok(Scaffolded::Declared(
        mod_rs.to_owned(),
        missing.iter().map(|module| (*module).to_owned()).collect(),
    ))
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

/// `text` as rustfmt writes it, so a new file is already formatted; unchanged when rustfmt is
/// not installed or refuses it.
fn rustfmt(text: &str) -> String {
    use std::process::{Command, Stdio};
    let child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return text.to_owned();
    };
    if let Some(mut stdin) = child.stdin.take()
        && stdin.write_all(text.as_bytes()).is_err()
    {
        return text.to_owned();
    }
    match child.wait_with_output() {
        Ok(output) if output.status.success() && !output.stdout.is_empty() => {
            String::from_utf8(output.stdout).unwrap_or_else(|_| text.to_owned())
        }
        _ => text.to_owned(),
    }
}

fn mod_rs_text(modules: &[&str]) -> String {
    let declarations: String = modules
        .iter()
        .map(|module| format!("pub(crate) mod {};\n", crate::ident::to_ident(module)))
        .collect();
    format!(
        "\
//! Tool bodies: one module per tool of harness.toml. This file and the modules are yours;
//! `harness-codegen scaffold` creates them once, never overwrites them, and appends the
//! declaration of each new tool here.

{declarations}
/// The state every tool body can use (connection pools, clients, fixtures...).
#[derive(Debug, Default)]
pub(crate) struct Toolbox;
"
    )
}

/// The stub of one tool body.
pub fn stub(tool: &ToolModel) -> String {
    let arguments: String = if tool.args.is_empty() {
        "        // No arguments.\n".to_owned()
    } else {
        let mut lines = String::from("        // The arguments, already validated:\n");
        for field in &tool.args {
            lines.push_str(&format!("        // - {}\n", describe_field(field)));
        }
        lines
    };
    // A tool with declared results returns its result struct; any other, any JSON value.
    let (output, imports, results) = match &tool.results {
        Some(results) => {
            let mut lines = format!(
                "        // The result to return, a `{}` (held to the published outputSchema):\n",
                results.type_name
            );
            for field in &results.fields {
                let line = describe_field(field).replacen("args.", "", 1);
                lines.push_str(&format!("        // - {line}\n"));
            }
            let imports = format!(
                "{}, {}, {}",
                tool.args_type, results.type_name, tool.trait_name
            );
            (results.type_name.clone(), imports, lines)
        }
        None => (
            "Value".to_owned(),
            format!("{}, {}", tool.args_type, tool.trait_name),
            String::new(),
        ),
    };
    let value_import = if tool.results.is_none() {
        "use serde_json::Value;\n"
    } else {
        ""
    };
    format!(
        "\
//! Body of tool `{name}`.

use harness_runtime::{{CallContext, ToolError}};
{value_import}
use crate::generated::{{{imports}}};
use crate::tools::Toolbox;

impl {trait_name} for Toolbox {{
    type Output = {output};

    async fn {method}(&self, args: {args}, ctx: CallContext) -> Result<{output}, ToolError> {{
{arguments}{results}        let _ = (args, ctx);
        Err(ToolError::new(\"NotImplemented\", \"{name} is not implemented yet\"))
    }}
}}
",
        name = tool.name,
        args = tool.args_type,
        trait_name = tool.trait_name,
        method = crate::ident::to_ident(&tool.module),
    )
}

/// `args.limit: u16 (default 50)`: how a body reads the field, its Rust type and presence.
fn describe_field(field: &FieldModel) -> String {
    let ty = field.ty.rust_type();
    let access = format!("args.{}", crate::ident::to_ident(&field.ident));
    match &field.presence {
        Presence::Required => format!("{access}: {ty}"),
        Presence::Optional => format!("{access}: Option<{ty}>"),
        Presence::Default(value) => format!("{access}: {ty} (default {value})"),
    }
}

#[cfg(test)]
mod tests {
    use super::{stub, undeclared_modules};

    #[test]
    fn a_tool_with_declared_results_gets_a_stub_returning_its_result_struct() {
        let manifest = r#"
            [server]
            name = "s"
            version = "0"
            [[tools]]
            name = "get_snapshot"
            description = "d"
            [[tools.results]]
            name = "id"
            type = "string"
            [[tools.results]]
            name = "owner"
            type = "string"
            required = false
        "#;
        let model = crate::load(manifest, "harness.toml", std::path::Path::new("."))
            .expect("a valid manifest");
        let text = stub(&model.tools[0]);
        assert!(text.contains("type Output = GetSnapshotResult;"), "{text}");
        assert!(
            text.contains("-> Result<GetSnapshotResult, ToolError>"),
            "{text}"
        );
        assert!(
            text.contains(
                "use crate::generated::{GetSnapshotArgs, GetSnapshotResult, GetSnapshot};"
            ),
            "{text}"
        );
        assert!(text.contains("// - owner: Option<String>"), "{text}");
        assert!(!text.contains("serde_json"), "{text}");
    }

    #[test]
    fn declarations_are_found_in_every_visibility_and_the_macro_declares_all() {
        let mod_rs = "pub(crate) mod alpha;\npub mod beta;\nmod r#type;\n// mod gamma;\n";
        assert_eq!(
            undeclared_modules(mod_rs, &["alpha", "beta", "type", "gamma"]),
            ["gamma"]
        );
        assert!(undeclared_modules("crate::generated::tool_modules!();", &["alpha"]).is_empty());
    }
}
