//! Reading an upstream's lists once, through the runtime's own client.

use harness_runtime::spec::UpstreamSpec;
use harness_runtime::upstream::Offered;

use crate::import::error::ImportError;

/// Everything `spec` offers, each list entry as JSON (what the runtime hashes against the
/// pins). Runs its own single-threaded tokio runtime, so it must not be called from inside
/// one.
pub(crate) fn fetch(spec: &'static UpstreamSpec) -> Result<Offered, ImportError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ImportError::Runtime)?;
    Ok(runtime.block_on(harness_runtime::upstream::fetch_offered(spec))?)
}
