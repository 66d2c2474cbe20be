//! Body of tool `multi_input` (the tasks scenarios): two questions outstanding at once; the
//! task stays `input_required` until both are answered.

use harness_runtime::content::Content;
use harness_runtime::input::Elicitation;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{MultiInput, MultiInputArgs};
use crate::tools::{Toolbox, describe, form};

impl MultiInput for Toolbox {
    type Output = Content;

    async fn multi_input(
        &self,
        _args: MultiInputArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let schema = || {
            form(serde_json::json!({
                "type": "object",
                "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
            }))
        };
        let first = Elicitation::new("Who are you?", schema());
        let second = Elicitation::new("Shall I go on?", schema());
        let (first, second) =
            tokio::join!(ctx.elicit("first", &first), ctx.elicit("second", &second));
        Ok(Content::new().text(format!(
            "first: {}; second: {}",
            describe(&first?),
            describe(&second?)
        )))
    }
}
