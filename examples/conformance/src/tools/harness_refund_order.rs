//! Body of tool `harness_refund_order`: a write tool whose safeguards are all the harness's
//! (the confirmation before it runs, the idempotency key that keeps a retry from refunding
//! twice). It numbers its refunds, so a test sees whether it ran again.

use std::sync::atomic::{AtomicU64, Ordering};

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{HarnessRefundOrder, HarnessRefundOrderArgs};
use crate::tools::Toolbox;

/// Refunds this process made.
static REFUNDS: AtomicU64 = AtomicU64::new(0);

impl HarnessRefundOrder for Toolbox {
    type Output = Content;

    async fn harness_refund_order(
        &self,
        args: HarnessRefundOrderArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let number = REFUNDS.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Content::new().text(format!("Refunded order {} (refund #{number}).", args.order)))
    }
}
