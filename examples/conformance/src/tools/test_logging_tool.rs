//! Body of tool `test_logging_tool`: logs once; the message reaches the client only when it
//! asked for a log level (2026-07-28 requests carry one in `_meta`, or none).

use harness_runtime::content::Content;
use harness_runtime::{CallContext, LogLevel, ToolError};

use crate::generated::{TestLoggingTool, TestLoggingToolArgs};
use crate::tools::Toolbox;

impl TestLoggingTool for Toolbox {
    type Output = Content;

    async fn test_logging_tool(
        &self,
        _args: TestLoggingToolArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let sent = ctx.log(LogLevel::Info, "test_logging_tool ran").await;
        Ok(Content::new().text(if sent {
            "logged"
        } else {
            "not logged: no log level asked for"
        }))
    }
}
