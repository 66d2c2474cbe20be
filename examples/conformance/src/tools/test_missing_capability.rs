//! Body of tool `test_missing_capability` (the conformance suite's fixture): needs sampling; a client without it gets the specification's error.

use harness_runtime::content::Content;
use harness_runtime::input::Sampling;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestMissingCapability, TestMissingCapabilityArgs};
use crate::tools::Toolbox;

impl TestMissingCapability for Toolbox {
    type Output = Content;

    async fn test_missing_capability(
        &self,
        _args: TestMissingCapabilityArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let reply = ctx
            .sample("question", &Sampling::new("Say hello", 20))
            .await?;
        Ok(Content::new().text(reply.text))
    }
}
