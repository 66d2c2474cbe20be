//! Body of tool `test_simple_text` (the conformance suite's fixture).

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestSimpleText, TestSimpleTextArgs};
use crate::tools::Toolbox;

impl TestSimpleText for Toolbox {
    type Output = Content;

    async fn test_simple_text(
        &self,
        _args: TestSimpleTextArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        Ok(Content::new().text("This is a simple text response for testing."))
    }
}
