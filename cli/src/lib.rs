//! The `harness-codegen` command line: works even when the server crate does not compile yet.
//!
//! [`command`] is its clap definition (the CLI reference is generated from it) and [`main`]
//! runs it; the work itself is the `harness-codegen` library's.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use harness_codegen::import::Selection;
use harness_codegen::model::Model;
use harness_codegen::new_project::{Source, create};
use harness_codegen::scaffold::{Scaffolded, scaffold};
use harness_codegen::{EmitOptions, ManifestErrors, builder};

mod new_gateway;

/// Checks harness.toml, scaffolds tool bodies, and writes what the build generates.
#[derive(Debug, Parser)]
#[command(name = "harness-codegen", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where the manifest and the tool bodies are.
#[derive(Debug, clap::Args)]
struct Project {
    /// The manifest.
    #[arg(long, default_value = "harness.toml")]
    manifest: PathBuf,
    /// Where tool bodies live.
    #[arg(long, default_value = "src/tools")]
    tools_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate the manifest and print every error.
    Check {
        #[command(flatten)]
        project: Project,
    },
    /// Create src/tools/mod.rs and a stub for every missing tool body (never overwrites a file).
    Scaffold {
        #[command(flatten)]
        project: Project,
    },
    /// Write the generated artifacts into a directory, for inspection.
    Generate {
        #[command(flatten)]
        project: Project,
        /// The directory to write into.
        #[arg(long)]
        out: PathBuf,
    },
    /// Print the JSON Schema of harness.toml (commit it as harness.schema.json).
    Schema,
    /// Read what the upstream NAME (an [[upstreams]] entry) offers and pin it in the manifest,
    /// keeping its comments and order: tools as [[tools]], prompts as [[prompts]], resources as
    /// [[resources]], resource templates as [[resource_templates]], skills as [[skills]].
    Import {
        /// The upstream's name in the manifest.
        name: String,
        /// The manifest.
        #[arg(long, default_value = "harness.toml")]
        manifest: PathBuf,
        /// Only these, by the upstream's names (comma-separated: tools and prompts by name,
        /// resources by URI, templates by URI template, skills by SKILL.md URI or name); the
        /// command fails when one of them is not imported. Without it (or --all), only the
        /// tools the upstream annotates as read-only, and every prompt, resource, template and
        /// skill.
        #[arg(long, value_delimiter = ',', conflicts_with = "all")]
        tools: Option<Vec<String>>,
        /// Every tool the upstream offers, write tools included.
        #[arg(long)]
        all: bool,
        /// Replace the pin of an entry whose live definition drifted (nothing else of it).
        #[arg(long)]
        update_pins: bool,
        /// Print the report and the manifest's diff; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Create a runnable server project in DIR: a manifest with one tool, its body, build.rs
    /// and main.rs; or, with --upstream or --upstream-url, a gateway in front of a server you
    /// already run, its read-only tools imported and pinned.
    New {
        /// The project directory (created; its name is the package name).
        dir: PathBuf,
        /// Take the harness crates from this git URL instead of this checkout.
        #[arg(long)]
        git: Option<String>,
        #[command(flatten)]
        upstream: new_gateway::UpstreamArgs,
    },
}

/// The command line's definition, as clap sees it (for generated references and completions).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the process's arguments and runs the command; errors go to stderr.
pub fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Colour only for a terminal, and never when `NO_COLOR` is set (https://no-color.org).
fn render(errors: &ManifestErrors) -> String {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    if !no_color && std::io::stderr().is_terminal() {
        errors.render_styled()
    } else {
        errors.render_plain()
    }
}

/// The manifest's display name and its validated model.
fn load(manifest: &Path) -> Result<(String, Model), String> {
    let source = std::fs::read_to_string(manifest)
        .map_err(|error| format!("error: cannot read {}: {error}", manifest.display()))?;
    let name = manifest.display().to_string();
    let base_dir = manifest
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let model = builder::load(&source, &name, &base_dir).map_err(|errors| render(&errors))?;
    Ok((name, model))
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Schema => {
            print!("{}", harness_codegen::manifest_json_schema());
            Ok(())
        }
        Command::New { dir, git, upstream } => {
            let source = git.map_or_else(Source::this_checkout, Source::Git);
            if new_gateway::create(&dir, &source, &upstream)? {
                return Ok(());
            }
            let files = create(&dir, &source).map_err(|error| format!("error: {error}"))?;
            for file in files {
                println!("created {}", file.display());
            }
            println!(
                "\nNext:\n  cd {dir}\n  cargo run -- call greet '{{\"name\": \"Ada\"}}'   # one call through every guard\n  cargo run -- serve                              # MCP on http://127.0.0.1:8765/mcp",
                dir = dir.display()
            );
            Ok(())
        }
        Command::Import {
            name,
            manifest,
            tools,
            all,
            update_pins,
            dry_run,
        } => import(&harness_codegen::import::ImportRequest {
            manifest,
            upstream: name,
            tools: Selection::from_flags(tools, all),
            update_pins,
            dry_run,
        }),
        Command::Check { project } => {
            let (name, model) = load(&project.manifest)?;
            println!("{name}: ok ({})", tool_counts(&model.tools));
            Ok(())
        }
        Command::Scaffold { project } => {
            let (_, model) = load(&project.manifest)?;
            let report = scaffold(&model, &project.tools_dir).map_err(|error| {
                format!(
                    "error: cannot scaffold {}: {error}",
                    project.tools_dir.display()
                )
            })?;
            for entry in report {
                match entry {
                    Scaffolded::Created(path) => println!("created {}", path.display()),
                    Scaffolded::Kept(path) => println!("kept    {} (exists)", path.display()),
                    Scaffolded::Declared(path, modules) => {
                        println!(
                            "updated {} (declared {})",
                            path.display(),
                            modules.join(", ")
                        )
                    }
                }
            }
            Ok(())
        }
        Command::Generate { project, out } => {
            let (name, model) = load(&project.manifest)?;
            let options = EmitOptions {
                manifest_name: name,
                tools_dir: project.tools_dir.display().to_string(),
                out_prefix: String::new(),
            };
            let artifacts = harness_codegen::emit::emit_all(&model, &options);
            let written = builder::write_artifacts(&out, &artifacts)
                .map_err(|error| format!("error: {error}"))?;
            for path in written.files {
                println!("{}", path.display());
            }
            Ok(())
        }
    }
}

fn import(request: &harness_codegen::import::ImportRequest) -> Result<(), String> {
    let report = harness_codegen::import::import(request).map_err(|error| error.to_string())?;
    print!("{report}");
    if report.needs_attention() {
        return Err(
            "error: the import needs your attention: see the lines marked `!` or `~` above"
                .to_owned(),
        );
    }
    Ok(())
}

/// How many tools a manifest serves, by where their bodies live: "4 tools: 1 with a body in
/// src/tools, 3 built in".
fn tool_counts(tools: &[harness_codegen::model::ToolModel]) -> String {
    let count = |keep: fn(&harness_codegen::model::ToolModel) -> bool| {
        tools.iter().filter(|tool| keep(tool)).count()
    };
    let kinds = [
        (
            count(|tool| tool.has_user_body()),
            "with a body in src/tools",
        ),
        (count(|tool| tool.upstream.is_some()), "from upstreams"),
        (count(|tool| tool.builtin.is_some()), "built in"),
    ];
    let parts: Vec<String> = kinds
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, kind)| format!("{count} {kind}"))
        .collect();
    let total = tools.len();
    let plural = if total == 1 { "" } else { "s" };
    if parts.is_empty() {
        format!("{total} tool{plural}")
    } else {
        format!("{total} tool{plural}: {}", parts.join(", "))
    }
}
