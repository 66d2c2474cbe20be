//! Body of tool `test_input_required_result_tampered_state` (the conformance suite's fixture): a confirmation; a tampered state never opens.

use harness_runtime::content::Content;
use harness_runtime::input::Elicitation;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultTamperedState, TestInputRequiredResultTamperedStateArgs,
};
use crate::tools::{Toolbox, describe, form};

impl TestInputRequiredResultTamperedState for Toolbox {
    type Output = Content;

    async fn test_input_required_result_tampered_state(
        &self,
        _args: TestInputRequiredResultTamperedStateArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let form = form(
            serde_json::json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
        );
        let answer = ctx
            .elicit("confirm", &Elicitation::new("Please confirm", form))
            .await?;
        Ok(Content::new().text(format!("state-ok: {}", describe(&answer))))
    }
}
