//! `tools`: the `tools/list` result as JSON, from the specs alone (no server is started), so
//! a script or a reviewer sees exactly what a client would be offered.

use crate::cli::error::CliError;
use crate::cli::shared::print_line;
use crate::server::GeneratedServer;
use crate::spec::ToolSpec;

/// Prints the listing; exit code 0.
pub(crate) fn run<S: GeneratedServer>(server: &S) -> Result<u8, CliError> {
    let tools: Vec<_> = server.tool_specs().iter().map(ToolSpec::to_tool).collect();
    let listing = serde_json::json!({ "tools": tools });
    print_line(&serde_json::to_string_pretty(&listing).expect("tools serialize"))?;
    Ok(0)
}
