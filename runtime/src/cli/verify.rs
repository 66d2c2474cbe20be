//! `verify`: the manifest's checks on a finished run, as the Harbor verifier runs them. The
//! exit code is the verdict (0 pass, 10 candidate failure, anything else infrastructure
//! failure) with a one-line reason on stderr; `--json` adds the report on stdout and
//! `--run-ledger FILE` the run's ledger row (run_ledger.rs).

use std::path::PathBuf;

use crate::cli::error::CliError;
use crate::cli::run_ledger;
use crate::cli::shared::print_line;
use crate::server::GeneratedServer;
use crate::verify::{Evidence, Verdict, verify};

#[derive(Debug, clap::Args)]
pub(crate) struct VerifyArgs {
    /// A Harbor artifacts directory (files at their destinations).
    #[arg(long, conflicts_with = "root", required_unless_present = "root")]
    artifacts: Option<PathBuf>,
    /// A root where artifacts are restored at their source paths (`/` in the verifier).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Also write the run's ledger row (the ledger's pins, the verdict, the calls by
    /// outcome and their latency from the audit) to this file.
    #[arg(long, value_name = "FILE")]
    run_ledger: Option<PathBuf>,
}

/// Verifies the run; returns the verdict's exit code.
pub(crate) fn run<S: GeneratedServer>(server: &S, args: VerifyArgs) -> Result<u8, CliError> {
    let evidence = match (args.artifacts, args.root) {
        (Some(dir), _) => Evidence::Artifacts(dir),
        (None, Some(root)) => Evidence::Root(root),
        (None, None) => unreachable!("clap requires one of them"),
    };
    let report = verify(server.verifier(), &evidence);
    if args.json {
        print_line(&serde_json::to_string_pretty(&report).expect("the report is plain JSON"))?;
    }
    if let Some(path) = args.run_ledger {
        // The row goes where the reward goes: failing to write it is the infrastructure's
        // failure, never a verdict on the candidate.
        let row = run_ledger::row(server.bundle(), &report);
        if let Err(error) = run_ledger::write(&path, &row) {
            eprintln!(
                "infrastructure failure: cannot write the run ledger {}: {error}",
                path.display()
            );
            return Ok(1);
        }
    }
    match &report.verdict {
        Verdict::Pass => {}
        Verdict::CandidateFailure(reason) => eprintln!("candidate failure: {reason}"),
        Verdict::InfrastructureFailure(reason) => eprintln!("infrastructure failure: {reason}"),
    }
    Ok(report.verdict.exit_code())
}
