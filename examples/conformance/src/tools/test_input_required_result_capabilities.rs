//! Body of tool `test_input_required_result_capabilities` (the conformance suite's fixture): only what the client declared is asked.

use harness_runtime::content::Content;
use harness_runtime::input::{Capability, Elicitation, Sampling};
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultCapabilities, TestInputRequiredResultCapabilitiesArgs,
};
use crate::tools::{Toolbox, describe, form};

impl TestInputRequiredResultCapabilities for Toolbox {
    type Output = Content;

    async fn test_input_required_result_capabilities(
        &self,
        _args: TestInputRequiredResultCapabilitiesArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        if ctx.client_supports(Capability::Elicitation) {
            let answer = ctx.elicit("user_name", &Elicitation::new("What is your name?", form(serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})))).await?;
            return Ok(Content::new().text(describe(&answer)));
        }
        let reply = ctx
            .sample("fallback", &Sampling::new("Suggest a name", 20))
            .await?;
        Ok(Content::new().text(reply.text))
    }
}
