//! Body of tool `test_input_required_result_list_roots` (the conformance suite's fixture): the client's roots.

use harness_runtime::content::Content;
use harness_runtime::input::Root;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestInputRequiredResultListRoots, TestInputRequiredResultListRootsArgs};
use crate::tools::Toolbox;

impl TestInputRequiredResultListRoots for Toolbox {
    type Output = Content;

    async fn test_input_required_result_list_roots(
        &self,
        _args: TestInputRequiredResultListRootsArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let roots: Vec<Root> = ctx.list_roots("client_roots").await?;
        let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
        Ok(Content::new().text(format!("Roots: {}", uris.join(", "))))
    }
}
