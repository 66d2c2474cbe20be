//! Body of tool `list_orders`: the 1,000-row table, for the tabular guard to summarize.

use harness_runtime::{CallContext, ToolError};
use serde_json::Value;

use crate::generated::{ListOrders, ListOrdersArgs};
use crate::payloads;
use crate::tools::Toolbox;

impl ListOrders for Toolbox {
    type Output = Value;

    async fn list_orders(
        &self,
        _args: ListOrdersArgs,
        _ctx: CallContext,
    ) -> Result<Value, ToolError> {
        Ok(payloads::order_table())
    }
}
