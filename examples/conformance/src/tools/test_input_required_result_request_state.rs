//! Body of tool `test_input_required_result_request_state` (the conformance suite's fixture): a confirmation; the state the first round sealed comes back.

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultRequestState, TestInputRequiredResultRequestStateArgs,
};
use crate::tools::{Toolbox, confirm};

impl TestInputRequiredResultRequestState for Toolbox {
    type Output = Content;

    async fn test_input_required_result_request_state(
        &self,
        _args: TestInputRequiredResultRequestStateArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        confirm(&ctx).await
    }
}
