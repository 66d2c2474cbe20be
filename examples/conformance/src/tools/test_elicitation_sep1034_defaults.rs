//! Body of tool `test_elicitation_sep1034_defaults` (the conformance suite's fixture): a form whose fields have defaults.

use harness_runtime::content::Content;
use harness_runtime::input::Elicitation;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestElicitationSep1034Defaults, TestElicitationSep1034DefaultsArgs};
use crate::tools::{Toolbox, describe, form};

impl TestElicitationSep1034Defaults for Toolbox {
    type Output = Content;

    async fn test_elicitation_sep1034_defaults(
        &self,
        _args: TestElicitationSep1034DefaultsArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let form = form(serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
            },
        }));
        let answer = ctx
            .elicit(
                "defaults",
                &Elicitation::new("Please review your details", form),
            )
            .await?;
        Ok(Content::new().text(describe(&answer)))
    }
}
