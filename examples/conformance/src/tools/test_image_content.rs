//! Body of tool `test_image_content` (the conformance suite's fixture).

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestImageContent, TestImageContentArgs};
use crate::tools::{PIXEL_PNG, Toolbox};

impl TestImageContent for Toolbox {
    type Output = Content;

    async fn test_image_content(
        &self,
        _args: TestImageContentArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        Ok(Content::new().image(PIXEL_PNG, "image/png"))
    }
}
