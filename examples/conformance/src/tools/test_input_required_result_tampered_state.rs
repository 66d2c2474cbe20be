//! Body of tool `test_input_required_result_tampered_state` (the conformance suite's fixture): a confirmation; a tampered state never opens.

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultTamperedState, TestInputRequiredResultTamperedStateArgs,
};
use crate::tools::{Toolbox, confirm};

impl TestInputRequiredResultTamperedState for Toolbox {
    type Output = Content;

    async fn test_input_required_result_tampered_state(
        &self,
        _args: TestInputRequiredResultTamperedStateArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        confirm(&ctx).await
    }
}
