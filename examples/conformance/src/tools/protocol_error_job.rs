//! Body of tool `protocol_error_job` (the tasks scenarios): it panics, and with
//! `catch_unhandled = false` the panic is a JSON-RPC error, so its task ends `failed`.

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{ProtocolErrorJob, ProtocolErrorJobArgs};
use crate::tools::Toolbox;

impl ProtocolErrorJob for Toolbox {
    type Output = Content;

    async fn protocol_error_job(
        &self,
        _args: ProtocolErrorJobArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        tokio::task::yield_now().await;
        panic!("protocol_error_job fails on purpose");
    }
}
