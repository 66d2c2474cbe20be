//! Body of tool `test_error_handling` (the conformance suite's fixture).

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestErrorHandling, TestErrorHandlingArgs};
use crate::tools::Toolbox;

impl TestErrorHandling for Toolbox {
    type Output = Content;

    async fn test_error_handling(
        &self,
        _args: TestErrorHandlingArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        Err(ToolError::new(
            "TestError",
            "This tool intentionally returns an error for testing",
        ))
    }
}
