//! Body of tool `test_input_required_result_multiple_inputs` (the conformance suite's fixture): three inputs asked at once.

use harness_runtime::content::Content;
use harness_runtime::input::{Elicitation, Sampling};
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultMultipleInputs, TestInputRequiredResultMultipleInputsArgs,
};
use crate::tools::{Toolbox, describe, form};

impl TestInputRequiredResultMultipleInputs for Toolbox {
    type Output = Content;

    async fn test_input_required_result_multiple_inputs(
        &self,
        _args: TestInputRequiredResultMultipleInputsArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        // All three are asked before any is awaited, so one round asks for them all.
        let name = ctx.elicit("user_name", &Elicitation::new("What is your name?", form(serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})))).await;
        let greeting = ctx
            .sample("greeting", &Sampling::new("Generate a greeting", 50))
            .await;
        let roots = ctx.list_roots("client_roots").await;
        let (name, greeting, roots) = (name?, greeting?, roots?);
        Ok(Content::new().text(format!(
            "{}; {}; {} roots",
            describe(&name),
            greeting.text,
            roots.len()
        )))
    }
}
