//! Body of tool `runbook`.

use harness_runtime::{CallContext, ToolError};
use serde_json::{Value, json};

use crate::generated::{Runbook, RunbookArgs};
use crate::tools::Toolbox;

/// Steps per known alert.
const RUNBOOKS: &[(&str, &[&str])] = &[
    (
        "disk_full",
        &[
            "Find the largest directories",
            "Rotate logs",
            "Grow the volume",
        ],
    ),
    (
        "high_latency",
        &["Check the saturation dashboard", "Scale out the replicas"],
    ),
];

impl Runbook for Toolbox {
    type Output = Value;

    async fn runbook(&self, args: RunbookArgs, _ctx: CallContext) -> Result<Value, ToolError> {
        match RUNBOOKS.iter().find(|(alert, _)| *alert == args.alert) {
            Some((alert, steps)) => Ok(json!({ "alert": alert, "steps": steps })),
            None => Err(ToolError::not_found(format!(
                "no runbook for alert `{}`",
                args.alert
            ))),
        }
    }
}
