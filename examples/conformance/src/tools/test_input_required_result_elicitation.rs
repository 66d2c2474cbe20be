//! Body of tool `test_input_required_result_elicitation` (the conformance suite's fixture): the user's name, by input-required result.

use harness_runtime::content::Content;
use harness_runtime::input::FormAnswer;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{
    TestInputRequiredResultElicitation, TestInputRequiredResultElicitationArgs,
    TestInputRequiredResultElicitationUserNameForm,
};
use crate::tools::Toolbox;

impl TestInputRequiredResultElicitation for Toolbox {
    type Output = Content;

    async fn test_input_required_result_elicitation(
        &self,
        _args: TestInputRequiredResultElicitationArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        // The form is [[tools.forms]] `user_name`: the answer arrives validated and typed.
        let name = match ctx
            .ask::<TestInputRequiredResultElicitationUserNameForm>()
            .await?
        {
            FormAnswer::Accept(form) => form.name,
            FormAnswer::Decline | FormAnswer::Cancel => "stranger".to_owned(),
        };
        Ok(Content::new().text(format!("Hello, {name}!")))
    }
}
