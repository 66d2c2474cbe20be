//! Body of tool `query_order_metrics`: the well-behaved tool, scalar metrics only.

use harness_runtime::{CallContext, ToolError};
use serde::Serialize;

use crate::generated::{QueryOrderMetrics, QueryOrderMetricsArgs};
use crate::tools::{Toolbox, orders};

/// Compact metrics instead of rows.
#[derive(Debug, Serialize)]
pub(crate) struct OrderMetrics {
    order_count: usize,
    total_revenue: f64,
    average_order: f64,
}

impl QueryOrderMetrics for Toolbox {
    type Output = OrderMetrics;

    async fn query_order_metrics(
        &self,
        _args: QueryOrderMetricsArgs,
        _ctx: CallContext,
    ) -> Result<OrderMetrics, ToolError> {
        let amounts: Vec<f64> = orders()
            .iter()
            .filter_map(|row| row["amount"].as_f64())
            .collect();
        let total_revenue: f64 = amounts.iter().sum();
        Ok(OrderMetrics {
            order_count: amounts.len(),
            total_revenue,
            average_order: total_revenue / amounts.len() as f64,
        })
    }
}
