//! Body of tool `test_tool_with_logging`: three log messages, 50 ms apart, at the level the
//! client asked for (nothing without one).

use std::time::Duration;

use harness_runtime::content::Content;
use harness_runtime::{CallContext, LogLevel, ToolError};

use crate::generated::{TestToolWithLogging, TestToolWithLoggingArgs};
use crate::tools::Toolbox;

impl TestToolWithLogging for Toolbox {
    type Output = Content;

    async fn test_tool_with_logging(
        &self,
        _args: TestToolWithLoggingArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        for message in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ] {
            ctx.log(LogLevel::Info, message).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(Content::new().text("Logging test completed"))
    }
}
