//! harness-codegen's small CLI: works even when the server crate does not compile yet.

use std::path::PathBuf;
use std::process::ExitCode;

use harness_codegen::scaffold::{Scaffolded, scaffold};
use harness_codegen::{EmitOptions, builder};

const USAGE: &str = "\
usage: harness-codegen <command> [--manifest PATH] [--tools-dir DIR] [--out DIR]

commands:
  check      validate the manifest and print every error
  scaffold   create src/tools/mod.rs and a stub for every tool body that is missing
             (never overwrites a file)
  generate   write the generated artifacts into --out DIR, for inspection
  schema     print the JSON Schema of harness.toml (commit it as harness.schema.json)
";

struct Args {
    command: String,
    manifest: PathBuf,
    tools_dir: PathBuf,
    out: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let command = args.next().ok_or("missing command")?;
    let mut parsed = Args {
        command,
        manifest: PathBuf::from("harness.toml"),
        tools_dir: PathBuf::from("src/tools"),
        out: None,
    };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--manifest" => parsed.manifest = value()?.into(),
            "--tools-dir" => parsed.tools_dir = value()?.into(),
            "--out" => parsed.out = Some(value()?.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(parsed)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if args.command == "schema" {
        print!("{}", harness_codegen::manifest_json_schema());
        return Ok(());
    }
    let source = std::fs::read_to_string(&args.manifest)
        .map_err(|error| format!("error: cannot read {}: {error}", args.manifest.display()))?;
    let name = args.manifest.display().to_string();
    let base_dir = args
        .manifest
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let model =
        builder::load(&source, &name, &base_dir).map_err(|errors| errors.render_styled())?;
    match args.command.as_str() {
        "check" => {
            println!("{name}: ok ({} tools)", model.tools.len());
            Ok(())
        }
        "scaffold" => {
            let report = scaffold(&model, &args.tools_dir).map_err(|error| {
                format!(
                    "error: cannot scaffold {}: {error}",
                    args.tools_dir.display()
                )
            })?;
            for entry in report {
                match entry {
                    Scaffolded::Created(path) => println!("created {}", path.display()),
                    Scaffolded::Kept(path) => println!("kept    {} (exists)", path.display()),
                }
            }
            Ok(())
        }
        "generate" => {
            let out = args.out.as_ref().ok_or("error: generate needs --out DIR")?;
            let options = EmitOptions {
                manifest_name: name,
                tools_dir: args.tools_dir.display().to_string(),
                out_prefix: String::new(),
            };
            let artifacts = harness_codegen::emit::emit_all(&model, &options);
            let written = builder::write_artifacts(out, &artifacts)
                .map_err(|error| format!("error: {error}"))?;
            for path in written.files {
                println!("{}", path.display());
            }
            Ok(())
        }
        other => Err(format!("error: unknown command {other:?}\n\n{USAGE}")),
    }
}
