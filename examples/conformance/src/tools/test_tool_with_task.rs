//! Body of tool `test_tool_with_task` (the tasks scenarios): its form `user_name` is asked
//! before the task is created (`ask_first`), as input-required rounds of the call, so the body
//! finds the answer already given.

use harness_runtime::content::Content;
use harness_runtime::input::FormAnswer;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestToolWithTask, TestToolWithTaskArgs, TestToolWithTaskUserNameForm};
use crate::tools::Toolbox;

impl TestToolWithTask for Toolbox {
    type Output = Content;

    async fn test_tool_with_task(
        &self,
        _args: TestToolWithTaskArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let name = match ctx.ask::<TestToolWithTaskUserNameForm>().await? {
            FormAnswer::Accept(form) => form.name,
            FormAnswer::Decline | FormAnswer::Cancel => "stranger".to_owned(),
        };
        Ok(Content::new().text(format!("Hello, {name}!")))
    }
}
