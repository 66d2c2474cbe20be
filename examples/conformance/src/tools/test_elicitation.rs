//! Body of tool `test_elicitation` (the conformance suite's fixture): the user gives a username and an email.

use harness_runtime::content::Content;
use harness_runtime::input::Elicitation;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestElicitation, TestElicitationArgs};
use crate::tools::{Toolbox, describe, form};

impl TestElicitation for Toolbox {
    type Output = Content;

    async fn test_elicitation(
        &self,
        args: TestElicitationArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let form = form(serde_json::json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        }));
        let answer = ctx
            .elicit("user_info", &Elicitation::new(args.message, form))
            .await?;
        Ok(Content::new().text(describe(&answer)))
    }
}
