//! Body of tool `test_multiple_content_types` (the conformance suite's fixture).

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestMultipleContentTypes, TestMultipleContentTypesArgs};
use crate::tools::{PIXEL_PNG, Toolbox};

impl TestMultipleContentTypes for Toolbox {
    type Output = Content;

    async fn test_multiple_content_types(
        &self,
        _args: TestMultipleContentTypesArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        Ok(Content::new()
            .text("Multiple content types test:")
            .image(PIXEL_PNG, "image/png")
            .embedded_text(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            ))
    }
}
