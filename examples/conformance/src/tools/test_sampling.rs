//! Body of tool `test_sampling` (the conformance suite's fixture): the client's model answers the prompt.

use harness_runtime::content::Content;
use harness_runtime::input::Sampling;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestSampling, TestSamplingArgs};
use crate::tools::Toolbox;

impl TestSampling for Toolbox {
    type Output = Content;

    async fn test_sampling(
        &self,
        args: TestSamplingArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let reply = ctx
            .sample("answer", &Sampling::new(args.prompt, 100))
            .await?;
        Ok(Content::new().text(format!("LLM response: {}", reply.text)))
    }
}
