//! Body of tool `simulate_fault`: fails on purpose.

use std::time::Duration;

use harness_runtime::{CallContext, ToolError};

use crate::generated::{SimulateFault, SimulateFaultArgs, SimulateFaultKind};
use crate::tools::Toolbox;

impl SimulateFault for Toolbox {
    type Output = &'static str;

    async fn simulate_fault(
        &self,
        args: SimulateFaultArgs,
        _ctx: CallContext,
    ) -> Result<&'static str, ToolError> {
        match args.kind {
            SimulateFaultKind::Panic => panic!("secret panic payload at /srv/ops/db.rs:42"),
            SimulateFaultKind::Error => Err(ToolError::new(
                "ConnectionResetError",
                "Remote database closed connection",
            )
            .with_internal_detail(
                "postgres://ops:hunter2@10.0.0.5/orders: connection reset by peer",
            )),
            SimulateFaultKind::Timeout => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok("too late")
            }
        }
    }
}
