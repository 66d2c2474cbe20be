//! Body of tool `failing_job` (the tasks scenarios): a task that ends with a tool error, which
//! the task reports as `completed` with `isError`.

use std::time::Duration;

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{FailingJob, FailingJobArgs};
use crate::tools::Toolbox;

impl FailingJob for Toolbox {
    type Output = Content;

    async fn failing_job(
        &self,
        _args: FailingJobArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        tokio::time::sleep(Duration::from_millis(500)).await;
        Err(ToolError::new(
            "JobFailed",
            "The job failed, as it always does.",
        ))
    }
}
