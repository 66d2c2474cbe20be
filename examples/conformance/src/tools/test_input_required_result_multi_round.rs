//! Body of tool `test_input_required_result_multi_round` (the conformance suite's fixture): two questions, one round each.

use harness_runtime::content::Content;
use harness_runtime::input::Elicitation;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestInputRequiredResultMultiRound, TestInputRequiredResultMultiRoundArgs};
use crate::tools::{Toolbox, describe, form};

impl TestInputRequiredResultMultiRound for Toolbox {
    type Output = Content;

    async fn test_input_required_result_multi_round(
        &self,
        _args: TestInputRequiredResultMultiRoundArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let name_form = form(
            serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        );
        let name = ctx
            .elicit(
                "step1",
                &Elicitation::new("Step 1: What is your name?", name_form),
            )
            .await?;
        let color_form = form(
            serde_json::json!({"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}),
        );
        let color = ctx
            .elicit(
                "step2",
                &Elicitation::new("Step 2: What is your favorite color?", color_form),
            )
            .await?;
        Ok(Content::new().text(format!("{} / {}", describe(&name), describe(&color))))
    }
}
