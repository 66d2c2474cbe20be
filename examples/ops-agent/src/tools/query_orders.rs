//! Body of tool `query_orders`: returns the raw table, which the blockade refuses.

use harness_runtime::{CallContext, ToolError};
use serde_json::Value;

use crate::generated::{QueryOrders, QueryOrdersArgs};
use crate::tools::{Toolbox, orders};

impl QueryOrders for Toolbox {
    type Output = Vec<Value>;

    async fn query_orders(
        &self,
        _args: QueryOrdersArgs,
        _ctx: CallContext,
    ) -> Result<Vec<Value>, ToolError> {
        Ok(orders())
    }
}
