//! Body of tool `trigger_external_mutation`: counts what actually got dispatched, so tests
//! can prove the rate limit stops calls before the body.

use std::sync::atomic::Ordering;

use harness_runtime::{CallContext, ToolError};
use serde_json::{Value, json};

use crate::generated::{TriggerExternalMutation, TriggerExternalMutationArgs};
use crate::tools::Toolbox;

impl TriggerExternalMutation for Toolbox {
    type Output = Value;

    async fn trigger_external_mutation(
        &self,
        args: TriggerExternalMutationArgs,
        _ctx: CallContext,
    ) -> Result<Value, ToolError> {
        let dispatch_number = self.mutations_dispatched.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(
            json!({"status": "dispatched", "action": args.action, "dispatch_number": dispatch_number}),
        )
    }
}
