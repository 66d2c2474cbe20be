//! Body of tool `echo_task`: `echo`, as a task when the client declares the extension.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{EchoTask, EchoTaskArgs};
use crate::tools::Toolbox;
use crate::tools::echo::Echoed;

impl EchoTask for Toolbox {
    type Output = Echoed;

    async fn echo_task(&self, args: EchoTaskArgs, _ctx: CallContext) -> Result<Echoed, ToolError> {
        Ok(Echoed::new(args.message))
    }
}
