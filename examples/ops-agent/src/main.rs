//! Seed 000's ops-agent: the MCP server generated from ./harness.toml, tool bodies in src/tools.

mod generated {
    //! Everything harness-codegen generated from harness.toml (see OUT_DIR/harness.rs).
    include!(concat!(env!("OUT_DIR"), "/harness.rs"));
}
mod tools;

use std::process::ExitCode;

fn main() -> ExitCode {
    let server = generated::Harness::new(tools::Toolbox::default());
    match harness_runtime::cli::run(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
