//! Body of tool `test_embedded_resource` (the conformance suite's fixture).

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestEmbeddedResource, TestEmbeddedResourceArgs};
use crate::tools::Toolbox;

impl TestEmbeddedResource for Toolbox {
    type Output = Content;

    async fn test_embedded_resource(
        &self,
        _args: TestEmbeddedResourceArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        Ok(Content::new().embedded_text(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        ))
    }
}
