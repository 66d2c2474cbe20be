//! Body of tool `slow_compute` (the tasks scenarios): works for the given seconds. Run as a
//! task, `tasks/cancel` stops it where it waits.

use std::time::Duration;

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{SlowCompute, SlowComputeArgs};
use crate::tools::Toolbox;

impl SlowCompute for Toolbox {
    type Output = Content;

    async fn slow_compute(
        &self,
        args: SlowComputeArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        tokio::time::sleep(Duration::from_secs(u64::from(args.seconds))).await;
        Ok(Content::new().text(format!("Computed {} after {} s.", args.label, args.seconds)))
    }
}
