//! Body of tool `get_status`.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{GetStatus, GetStatusArgs};
use crate::tools::Toolbox;

impl GetStatus for Toolbox {
    type Output = &'static str;

    async fn get_status(
        &self,
        _args: GetStatusArgs,
        _ctx: CallContext,
    ) -> Result<&'static str, ToolError> {
        Ok("System healthy")
    }
}
