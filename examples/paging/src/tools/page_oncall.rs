//! Body of tool `page_oncall`.

use harness_runtime::{CallContext, ToolError};
use serde_json::{Value, json};

use crate::generated::{PageOncall, PageOncallArgs};
use crate::tools::Toolbox;

impl PageOncall for Toolbox {
    type Output = Value;

    async fn page_oncall(
        &self,
        args: PageOncallArgs,
        ctx: CallContext,
    ) -> Result<Value, ToolError> {
        // A real body would call the paging provider here; the rate limit has already been
        // taken in Redis, so every replica together pages at most 100 times an hour.
        Ok(json!({
            "page_id": format!("page-{}-{}", args.incident_id, ctx.trace_id()),
            "incident_id": args.incident_id,
            "summary": args.summary,
        }))
    }
}
