//! Body of tool `escalate`: waits for an acknowledgement, then pages the next tier. It runs as a
//! task kept in Redis, so `tasks/cancel` sent to any replica stops it while it waits: the
//! pipeline drops this future, and nothing after the wait runs.

use std::io::Write;
use std::time::Duration;

use harness_runtime::input::FormAnswer;
use harness_runtime::{CallContext, ToolError};
use serde_json::{Value, json};

use crate::generated::{Escalate, EscalateArgs, EscalateTierForm};
use crate::tools::Toolbox;

/// The variable naming the file each escalation's page is appended to, one JSON line each
/// (standing in for the paging provider, so a reviewer or a test sees what was paged).
const ESCALATION_LOG: &str = "PAGING_ESCALATION_LOG";

impl Escalate for Toolbox {
    type Output = Value;

    async fn escalate(&self, args: EscalateArgs, ctx: CallContext) -> Result<Value, ToolError> {
        let wait = u64::from(args.after_seconds);
        tokio::time::sleep(Duration::from_secs(wait)).await;
        let tier = if args.ask_tier {
            match ctx.ask::<EscalateTierForm>().await? {
                FormAnswer::Accept(form) => form.tier.as_str(),
                FormAnswer::Decline | FormAnswer::Cancel => {
                    return Ok(json!({"incident_id": args.incident_id, "escalated": false}));
                }
            }
        } else {
            "secondary"
        };
        let page =
            json!({"incident_id": args.incident_id, "tier": tier, "trace_id": ctx.trace_id()});
        if let Some(path) = std::env::var_os(ESCALATION_LOG) {
            let mut log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|error| ToolError::internal(format!("the escalation log: {error}")))?;
            writeln!(log, "{page}")
                .map_err(|error| ToolError::internal(format!("the escalation log: {error}")))?;
        }
        Ok(json!({"incident_id": args.incident_id, "escalated": true, "tier": tier}))
    }
}
