//! Body of tool `test_input_required_result_elicitation` (the conformance suite's fixture): the user's name, by input-required result.

use harness_runtime::content::Content;
use harness_runtime::input::{ElicitAnswer, Elicitation};
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultElicitation, TestInputRequiredResultElicitationArgs,
};
use crate::tools::{Toolbox, form};

impl TestInputRequiredResultElicitation for Toolbox {
    type Output = Content;

    async fn test_input_required_result_elicitation(
        &self,
        _args: TestInputRequiredResultElicitationArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let question = Elicitation::new(
            "What is your name?",
            form(
                serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            ),
        );
        let name = match ctx.elicit("user_name", &question).await? {
            ElicitAnswer::Accept(content) => {
                content["name"].as_str().unwrap_or_default().to_owned()
            }
            _ => "stranger".to_owned(),
        };
        Ok(Content::new().text(format!("Hello, {name}!")))
    }
}
