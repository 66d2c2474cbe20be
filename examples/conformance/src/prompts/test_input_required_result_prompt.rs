//! Body of prompt `test_input_required_result_prompt` (the conformance suite's fixture): the
//! user's context, asked by elicitation, in the prompt's text.

use harness_runtime::catalog::PromptMessages;
use harness_runtime::content::Content;
use harness_runtime::input::{ElicitAnswer, Elicitation};
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultPromptPrompt, TestInputRequiredResultPromptPromptArgs,
};
use crate::tools::{Toolbox, form};

impl TestInputRequiredResultPromptPrompt for Toolbox {
    async fn test_input_required_result_prompt(
        &self,
        _args: TestInputRequiredResultPromptPromptArgs,
        ctx: CallContext,
    ) -> Result<PromptMessages, ToolError> {
        let question = Elicitation::new(
            "What context should the prompt use?",
            form(serde_json::json!({
                "type": "object",
                "properties": {"context": {"type": "string", "maxLength": 500}},
                "required": ["context"],
            })),
        );
        let context = match ctx.elicit("user_context", &question).await? {
            ElicitAnswer::Accept(content) => {
                content["context"].as_str().unwrap_or_default().to_owned()
            }
            ElicitAnswer::Decline | ElicitAnswer::Cancel => "none given".to_owned(),
        };
        Ok(PromptMessages::new()
            .user(Content::new().text(format!("Answer with this context in mind: {context}"))))
    }
}
