//! Body of tool `query_orders_summary`: the same table, summarized by its guard.

use harness_runtime::{CallContext, ToolError};
use serde_json::{Value, json};

use crate::generated::{QueryOrdersSummary, QueryOrdersSummaryArgs};
use crate::tools::{Toolbox, orders};

impl QueryOrdersSummary for Toolbox {
    type Output = Value;

    async fn query_orders_summary(
        &self,
        _args: QueryOrdersSummaryArgs,
        _ctx: CallContext,
    ) -> Result<Value, ToolError> {
        Ok(json!({"source": "orders", "orders": orders()}))
    }
}
