//! Reading an upstream's `tools/list` once, through the runtime's own client.

use harness_runtime::spec::UpstreamSpec;
use serde_json::Value;

use crate::import::error::ImportError;

/// Every tool `spec` offers, each as the JSON of its `tools/list` entry (what the runtime
/// hashes against the pins). Runs its own single-threaded tokio runtime, so it must not be
/// called from inside one.
pub(crate) fn fetch(spec: &'static UpstreamSpec) -> Result<Vec<Value>, ImportError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ImportError::Runtime)?;
    let tools = runtime.block_on(harness_runtime::upstream::fetch_tools(spec))?;
    Ok(tools
        .iter()
        .map(|tool| serde_json::to_value(tool).expect("a tool serializes"))
        .collect())
}
