//! A tool call an upstream answered with a task (the tasks extension, which the gateway
//! declares to 2026-07-28 upstreams): followed until it ends, and its result taken as the
//! call's, through the same mapping and guards as an inline result. `tasks/get` goes at the
//! upstream's poll interval (kept between [`MIN_POLL`] and [`MAX_POLL`]), each bounded by the
//! upstream's `timeout_ms`; the call as a whole is bounded by the tool's timeout. Dropping the
//! call (that timeout, the client's cancellation, or the gateway's own task cancelled) sends
//! `tasks/cancel` upstream. A task that asks for input is cancelled and the call fails: the
//! gateway carries an upstream's questions for inline calls only.

use std::time::Duration;

use rmcp::model::{CallToolResult, CancelTaskParams, CreateTaskResult, GetTaskParams, TaskPayload};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

use crate::error::ToolError;
use crate::spec::UpstreamSpec;
use crate::upstream::reply::{self, Reply, clean_error, failed, from_service_error};
use crate::upstream::request::{OnAbandon, within};

/// The shortest wait between two polls, whatever the upstream suggests.
const MIN_POLL: Duration = Duration::from_millis(20);
/// The longest.
const MAX_POLL: Duration = Duration::from_secs(5);
/// The wait where the upstream suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(250);

/// The wait before the next poll, from the upstream's suggestion.
fn poll_interval(suggested_ms: Option<u64>) -> Duration {
    suggested_ms
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// Follows `created` on `peer` until it ends: its result as the call's reply, or why not.
pub(crate) async fn follow(
    peer: &Peer<RoleClient>,
    spec: &UpstreamSpec,
    created: CreateTaskResult,
) -> Result<Reply, ToolError> {
    let task_id = created.task.task_id;
    let (cancel_peer, cancel_id) = (peer.clone(), task_id.clone());
    let mut abandoned = OnAbandon::new(move || async move {
        if let Err(error) = cancel_peer
            .cancel_task(CancelTaskParams::new(cancel_id))
            .await
        {
            tracing::debug!(%error, "could not send tasks/cancel upstream");
        }
    });
    let mut wait = poll_interval(created.task.poll_interval_ms);
    loop {
        tokio::time::sleep(wait).await;
        let answer = within(spec.timeout_ms, peer.get_task(GetTaskParams::new(&task_id))).await?;
        let got = answer.map_err(|error| from_service_error(spec.name, error))?;
        wait = poll_interval(got.task.task.poll_interval_ms);
        match got.task.payload {
            TaskPayload::Working => {}
            TaskPayload::Completed { result } => {
                abandoned.disarm();
                let result: CallToolResult = serde_json::from_value(Value::Object(result))
                    .map_err(|error| {
                        failed(
                            "the upstream's task completed with a result that is not a tool result",
                        )
                        .with_internal_detail(format!("upstream {}: {error}", spec.name))
                    })?;
                return reply::from_result(spec.name, result);
            }
            TaskPayload::Failed { error } => {
                abandoned.disarm();
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(clean_error)
                    .unwrap_or_default();
                return Err(failed(format!("the upstream's task failed: {message}")));
            }
            TaskPayload::Cancelled => {
                abandoned.disarm();
                return Err(failed("the upstream cancelled its task"));
            }
            // Input required (or a state this version does not know). Left armed: the task
            // is cancelled upstream as the call ends.
            _ => {
                return Err(failed(
                    "the upstream's task asked for input (or is in a state this gateway does not know), which the gateway carries for inline calls only",
                ));
            }
        }
    }
}
