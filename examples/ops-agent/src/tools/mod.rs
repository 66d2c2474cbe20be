//! Tool bodies of the ops-agent demo: one module per tool of harness.toml.

use std::sync::atomic::AtomicU64;

pub(crate) mod drain_queue;
pub(crate) mod get_incident_snapshot;
pub(crate) mod get_status;
pub(crate) mod query_order_metrics;
pub(crate) mod query_orders;
pub(crate) mod query_orders_summary;
pub(crate) mod query_system_logs;
pub(crate) mod simulate_fault;
pub(crate) mod trigger_external_mutation;

/// The state every tool body can use.
#[derive(Debug, Default)]
pub(crate) struct Toolbox {
    /// How many mutations actually reached the (pretend) external system.
    pub mutations_dispatched: AtomicU64,
}

/// The orders table: 1,000 rows, as a pandas DataFrame would serialize.
pub(crate) fn orders() -> Vec<serde_json::Value> {
    const REGIONS: [&str; 3] = ["eu-west", "us-east", "ap-south"];
    (0..1000)
        .map(|id| {
            let region = REGIONS[id % 3];
            serde_json::json!({
                "order_id": id,
                "amount": ((id * 37) % 1000) as f64 / 10.0,
                "region": region,
                "status": if id % 10 == 0 { "refunded" } else { "paid" },
            })
        })
        .collect()
}
