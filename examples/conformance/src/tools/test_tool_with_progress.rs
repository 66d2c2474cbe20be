//! Body of tool `test_tool_with_progress`: progress 0, 50 and 100 of 100, 50 ms apart, sent
//! only when the request carried a progress token.

use std::time::Duration;

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestToolWithProgress, TestToolWithProgressArgs};
use crate::tools::Toolbox;

impl TestToolWithProgress for Toolbox {
    type Output = Content;

    async fn test_tool_with_progress(
        &self,
        _args: TestToolWithProgressArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        for step in [0.0, 50.0, 100.0] {
            ctx.progress(step, Some(100.0), Some("working")).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(Content::new().text("Progress test completed"))
    }
}
