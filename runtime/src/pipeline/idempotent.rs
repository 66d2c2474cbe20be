//! A tool with an idempotency key, once its arguments validated: a repeated key with the same
//! arguments is answered with the first call's reply (`_meta["harness/replay"]` names the first
//! call's trace id; audited `replayed`), the body not run again; the same key with other
//! arguments (`IdempotencyKeyReused`) or while its first call runs (`IdempotencyKeyInFlight`)
//! is refused, audited `idempotency_conflict`.
//!
//! What is kept, as Stripe keeps it: the reply of every call whose body ran to an end,
//! errors, timeouts and panics included, since the body may have written before it failed; a
//! retry meant to run again takes a new key. Not kept: calls refused before the body (rate
//! limit, validation, a confirmation not given) and calls that ended asking the client for
//! input, which are not finished; their key is free again.

use std::borrow::Cow;

use harness_contract::HarnessOutcome;
use rmcp::model::{CallToolResponse, CallToolResult, ErrorData};
use serde_json::{Value, json};

use crate::audit::args_sha256;
use crate::guards::idempotency::{Claim, IdempotencyStore, Reservation, Stored};
use crate::pipeline::envelope::codes;
use crate::pipeline::outcome::Outcome;
use crate::pipeline::refusal::Refusal;
use crate::spec::ToolSpec;

/// Claims the call's key: `Ok` runs the body (holding the key, if the arguments carry one),
/// `Err` is the reply (a replay, or a refusal).
pub(super) async fn claim<'a>(
    store: &'a IdempotencyStore,
    spec: &ToolSpec,
    args: &Value,
    trace_id: &str,
) -> Result<Option<Reservation<'a>>, Box<Outcome>> {
    let refused = |refusal| {
        Box::new(Outcome::refused(
            refusal,
            Some(&spec.guards),
            trace_id,
            args.clone(),
        ))
    };
    let key = spec
        .write
        .idempotency
        .and_then(|idempotency| args.get(idempotency.argument)?.as_str());
    let Some(key) = key else {
        // The generator makes the key a required string; a hand-written spec may not.
        tracing::error!(
            trace_id,
            tool = spec.name,
            "the idempotency key argument is missing; the call runs without it"
        );
        return Ok(None);
    };
    match store.claim(key, &args_sha256(args)).await {
        Claim::Fresh(reservation) => Ok(Some(reservation)),
        Claim::Replay(stored) => {
            Err(Box::new(replay(stored, args).unwrap_or_else(|| {
                *refused(Refusal::IdempotencyStoreUnavailable)
            })))
        }
        Claim::Reused => Err(refused(Refusal::IdempotencyKeyReused)),
        Claim::InFlight => Err(refused(Refusal::IdempotencyKeyInFlight)),
        Claim::Unavailable(reason) => {
            tracing::warn!(trace_id, tool = spec.name, %reason, "idempotency store unavailable; refusing the call");
            Err(refused(Refusal::IdempotencyStoreUnavailable))
        }
    }
}

/// Keeps the reply of a call whose body ran to an end under its key, or frees the key.
pub(super) async fn finish(
    reservation: Reservation<'_>,
    outcome: &Outcome,
    ran: bool,
    trace_id: &str,
) {
    let kept = ran.then(|| stored(outcome, trace_id)).flatten();
    reservation.finish(kept).await;
}

/// Error codes of a body that ended on the input channel, before any write of its own.
const INPUT_ENDINGS: [&str; 4] = [
    codes::MISSING_CLIENT_CAPABILITY,
    codes::INVALID_INPUT,
    codes::INPUT_UNAVAILABLE,
    codes::CLIENT_REQUEST_FAILED,
];

fn stored(outcome: &Outcome, trace_id: &str) -> Option<Stored> {
    let code = outcome.error_code.as_deref();
    if outcome.outcome == HarnessOutcome::InputRequired.as_str()
        || code.is_some_and(|code| INPUT_ENDINGS.contains(&code))
    {
        return None;
    }
    let reply = match &outcome.result {
        Ok(CallToolResponse::Complete(result)) => json!({"result": result}),
        Ok(_) => return None,
        Err(error) => json!({"error": error}),
    };
    Some(Stored {
        reply,
        outcome: outcome.outcome.clone().into_owned(),
        error_code: code.map(str::to_owned),
        trace_id: trace_id.to_owned(),
    })
}

/// The first call's reply again, marked as a replay; `None` if what was kept does not parse.
fn replay(stored: Stored, args: &Value) -> Option<Outcome> {
    let result = match (stored.reply.get("result"), stored.reply.get("error")) {
        (Some(result), _) => {
            let mut result: CallToolResult = serde_json::from_value(result.clone()).ok()?;
            let mut meta = result.meta.take().unwrap_or_default();
            meta.0.insert(
                "harness/replay".to_owned(),
                json!({"trace_id": stored.trace_id, "outcome": stored.outcome}),
            );
            Ok(CallToolResponse::Complete(result.with_meta(Some(meta))))
        }
        (None, Some(error)) => Err(serde_json::from_value::<ErrorData>(error.clone()).ok()?),
        (None, None) => return None,
    };
    Some(Outcome {
        result,
        outcome: Cow::Borrowed(HarnessOutcome::Replayed.as_str()),
        error_code: stored.error_code.map(Cow::Owned),
        args: args.clone(),
    })
}
