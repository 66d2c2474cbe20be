//! Body of tool `read_status`.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{ReadStatus, ReadStatusArgs};
use crate::tools::Toolbox;

impl ReadStatus for Toolbox {
    type Output = String;

    async fn read_status(
        &self,
        args: ReadStatusArgs,
        _ctx: CallContext,
    ) -> Result<String, ToolError> {
        Ok(format!("{} is running", args.service))
    }
}
