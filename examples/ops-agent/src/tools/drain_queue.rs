//! Body of tool `drain_queue`: waits, then writes the batch's receipt into the directory
//! `OPS_AGENT_SPOOL_DIR` names. Run as a task; a cancelled drain never writes.

use std::time::Duration;

use harness_runtime::{CallContext, ToolError};

use crate::generated::{DrainQueue, DrainQueueArgs};
use crate::tools::Toolbox;

impl DrainQueue for Toolbox {
    type Output = String;

    async fn drain_queue(
        &self,
        args: DrainQueueArgs,
        _ctx: CallContext,
    ) -> Result<String, ToolError> {
        let spool = std::env::var_os("OPS_AGENT_SPOOL_DIR").ok_or_else(|| {
            ToolError::new(
                "NoSpool",
                "This server has no spool directory to drain into.",
            )
        })?;
        tokio::time::sleep(Duration::from_secs(u64::from(args.seconds))).await;
        // The batch name is validated (`^[a-z0-9-]{1,40}$`): no separator reaches the path.
        let receipt = std::path::Path::new(&spool).join(format!("{}.drained", args.batch));
        std::fs::write(&receipt, b"drained\n").map_err(|error| {
            ToolError::new("DrainFailed", "The receipt could not be written.")
                .with_internal_detail(error.to_string())
        })?;
        Ok(format!("Drained batch {}.", args.batch))
    }
}
