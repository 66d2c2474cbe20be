//! Body of tool `echo_shared`: `echo`, behind a rate limit kept in Redis.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{EchoShared, EchoSharedArgs};
use crate::tools::Toolbox;
use crate::tools::echo::Echoed;

impl EchoShared for Toolbox {
    type Output = Echoed;

    async fn echo_shared(
        &self,
        args: EchoSharedArgs,
        _ctx: CallContext,
    ) -> Result<Echoed, ToolError> {
        Ok(Echoed::new(args.message))
    }
}
