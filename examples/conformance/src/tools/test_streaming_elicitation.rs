//! Body of tool `test_streaming_elicitation` (the conformance suite's fixture): asks the user a question.

use harness_runtime::content::Content;
use harness_runtime::input::Elicitation;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestStreamingElicitation, TestStreamingElicitationArgs};
use crate::tools::{Toolbox, describe, form};

impl TestStreamingElicitation for Toolbox {
    type Output = Content;

    async fn test_streaming_elicitation(
        &self,
        _args: TestStreamingElicitationArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let answer = ctx.elicit("user_name", &Elicitation::new("What is your name?", form(serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})))).await?;
        Ok(Content::new().text(describe(&answer)))
    }
}
