//! Body of tool `test_input_required_result_sampling` (the conformance suite's fixture): a question for the client's model.

use harness_runtime::content::Content;
use harness_runtime::input::Sampling;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestInputRequiredResultSampling, TestInputRequiredResultSamplingArgs};
use crate::tools::Toolbox;

impl TestInputRequiredResultSampling for Toolbox {
    type Output = Content;

    async fn test_input_required_result_sampling(
        &self,
        _args: TestInputRequiredResultSamplingArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let reply = ctx
            .sample(
                "capital_question",
                &Sampling::new("What is the capital of France?", 100),
            )
            .await?;
        Ok(Content::new().text(format!("The model says: {}", reply.text)))
    }
}
