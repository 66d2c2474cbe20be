//! Body of tool `greet` (the tasks scenarios): a plain greeting, never a task.

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{Greet, GreetArgs};
use crate::tools::Toolbox;

impl Greet for Toolbox {
    type Output = Content;

    async fn greet(&self, args: GreetArgs, _ctx: CallContext) -> Result<Content, ToolError> {
        Ok(Content::new().text(format!("Hello, {}!", args.name)))
    }
}
