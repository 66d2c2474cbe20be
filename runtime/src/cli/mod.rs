//! The command line every generated server shares: `serve`, `tools`, `call`, `bundle`, `verify`,
//! `health`. This module holds the clap root and only dispatches: each command's arguments and
//! handling live in a file of its own (`call --url` in a second one), and every error the
//! command line reports is in `error`. The commands never name this module, only what they
//! share, so no two modules of the command line depend on each other.

mod bundle;
mod call;
mod call_remote;
mod call_task;
mod error;
mod health_probe;
mod run_ledger;
mod serve;
mod shared;
mod tools;
mod verify;

use std::ffi::OsString;
use std::path::Path;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use harness_contract::transport::STDIO_LAUNCHER_SUFFIX;

pub use self::error::{BundleError, CallError, CliError, HealthError};
use crate::server::GeneratedServer;

#[derive(Debug, Parser)]
#[command(
    version,
    about = "A hardened MCP tool server generated from harness.toml",
    args_override_self = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP (logs go to stderr; stdout belongs to the stdio transport).
    Serve(serve::ServeArgs),
    /// Print the `tools/list` result as JSON.
    Tools,
    /// Write the Harbor task directory generated from the manifest, with this binary in it.
    Bundle(bundle::BundleArgs),
    /// Run the manifest's checks on a finished run: exit 0 pass, 10 candidate failure,
    /// anything else infrastructure failure (with a one-line reason on stderr).
    Verify(verify::VerifyArgs),
    /// Call one tool in-process through the whole server (validation, guards, envelope) and
    /// print what the model would see; exit 1 when the call failed.
    Call(call::CallArgs),
    /// Exit 0 when URL answers 200 {"status":"ok"} (the image's HEALTHCHECK).
    Health(health_probe::HealthArgs),
}

/// The command line every generated server shares, as clap defines it (the book's reference).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the command line, runs it against `server`, and turns the result into the exit
/// code (errors are printed on stderr).
pub fn main<S: GeneratedServer>(server: S) -> std::process::ExitCode {
    match run(server) {
        Ok(code) => std::process::ExitCode::from(code),
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The command line to run: `arguments` as given, or, for a binary invoked under its stdio
/// launcher's name (ending in [`STDIO_LAUNCHER_SUFFIX`]) with no arguments, `serve
/// --transport stdio --audit-path AUDIT_PATH` (the manifest's audit path, which the bundle
/// passes too). Any argument turns the launcher back into the ordinary command line.
fn launched_as_stdio(mut arguments: Vec<OsString>, audit_path: &str) -> Vec<OsString> {
    let launcher = arguments.first().is_some_and(|program| {
        Path::new(program)
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.ends_with(STDIO_LAUNCHER_SUFFIX))
    });
    if launcher && arguments.len() == 1 {
        arguments.extend(
            ["serve", "--transport", "stdio", "--audit-path", audit_path].map(OsString::from),
        );
    }
    arguments
}

/// Parses the command line and runs it against `server`; returns the exit code.
pub fn run<S: GeneratedServer>(server: S) -> Result<u8, CliError> {
    // `--version` and `--help` name the generated server, not this library.
    let spec = server.spec();
    let command = Cli::command().name(spec.name).version(spec.version);
    let arguments = launched_as_stdio(std::env::args_os().collect(), spec.audit.path);
    let cli = match Cli::from_arg_matches(&command.get_matches_from(arguments)) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    init_logging();
    // Before any HTTP client exists: reqwest has no rustls provider of its own here, and a
    // client built outside the runtime (rmcp's, the OTLP exporter's, a body's) needs one.
    #[cfg(any(feature = "gateway", feature = "oauth", feature = "otel"))]
    crate::http_client::install_default_provider();
    match cli.command {
        Command::Serve(args) => serve::run(server, args),
        Command::Tools => tools::run(&server),
        Command::Bundle(args) => bundle::run(&server, args),
        Command::Verify(args) => verify::run(&server, args),
        Command::Call(args) if args.url.is_some() => call_remote::run(&server, args),
        Command::Call(args) => call::run(server, args),
        Command::Health(args) => health_probe::run(&server, args),
    }
}

/// The log filter when RUST_LOG is unset: rmcp logs every stateless request's session start
/// and end at info level (three lines per call, one with the whole client info), which
/// buries the server's own lines and costs more CPU than the call.
const DEFAULT_LOG_FILTER: &str = "info,rmcp=warn";

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER));
    // Ignore a second initialisation (tests may call `run` twice in one process).
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launched(arguments: &[&str]) -> Vec<String> {
        let arguments = arguments.iter().map(OsString::from).collect();
        launched_as_stdio(arguments, "/var/log/x/audit.jsonl")
            .into_iter()
            .map(|argument| argument.into_string().unwrap())
            .collect()
    }

    #[test]
    fn the_launcher_without_arguments_serves_stdio_with_the_manifests_audit_path() {
        assert_eq!(
            launched(&["/usr/local/bin/monitor-stdio"]),
            [
                "/usr/local/bin/monitor-stdio",
                "serve",
                "--transport",
                "stdio",
                "--audit-path",
                "/var/log/x/audit.jsonl"
            ]
        );
    }

    #[test]
    fn any_argument_or_another_name_is_the_ordinary_command_line() {
        assert_eq!(
            launched(&["/usr/local/bin/monitor-stdio", "tools"]),
            ["/usr/local/bin/monitor-stdio", "tools"]
        );
        assert_eq!(
            launched(&["/usr/local/bin/monitor"]),
            ["/usr/local/bin/monitor"]
        );
        assert_eq!(
            launched(&["/usr/local/bin/monitor-stdio/other"]),
            ["/usr/local/bin/monitor-stdio/other"]
        );
    }
}
