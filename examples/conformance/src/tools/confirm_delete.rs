//! Body of tool `confirm_delete` (the tasks scenarios): asks the user through its form while
//! it runs as a task (the task reads `input_required` until `tasks/update` answers), and
//! deletes nothing either way.

use harness_runtime::content::Content;
use harness_runtime::input::FormAnswer;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{ConfirmDelete, ConfirmDeleteArgs, ConfirmDeleteConfirmForm};
use crate::tools::Toolbox;

impl ConfirmDelete for Toolbox {
    type Output = Content;

    async fn confirm_delete(
        &self,
        args: ConfirmDeleteArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let confirmed = matches!(
            ctx.ask::<ConfirmDeleteConfirmForm>().await?,
            FormAnswer::Accept(ConfirmDeleteConfirmForm { confirm: true })
        );
        let verdict = if confirmed { "Deleted" } else { "Kept" };
        Ok(Content::new().text(format!("{verdict} {}.", args.filename)))
    }
}
