//! Body of tool `restart_service`.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{RestartService, RestartServiceArgs};
use crate::tools::Toolbox;

impl RestartService for Toolbox {
    type Output = String;

    async fn restart_service(
        &self,
        args: RestartServiceArgs,
        _ctx: CallContext,
    ) -> Result<String, ToolError> {
        Ok(format!("{} restarted", args.service))
    }
}
