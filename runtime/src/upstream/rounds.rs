//! Input-required results from a 2026-07-28 upstream: the upstream ends a call asking for
//! input (sampling, elicitation, roots, each under its own key) and answers when the call is
//! sent again with the client's responses and its request state.
//!
//! Each request is cleaned as a forwarded one is (`forward.rs`), and refused where the
//! manifest does not forward it or where it would widen the upstream's reach. Then:
//! - a client in a 2025-11-25 session is asked at once and the gateway sends the next round
//!   itself, up to [`MAX_ROUNDS`];
//! - a 2026-07-28 client gets the requests under the upstream's own keys, and a request state
//!   the gateway seals with what was asked and the upstream's state ([`Round`]). When it
//!   retries, each response is checked against what was asked before it goes upstream;
//!   responses to keys not asked are dropped, and a missing or unfitting one is asked again.
//!
//! An answer is used once, in the round after its question: the sealed state keeps only the
//! open round, so a later question under the same key is never answered with an earlier
//! answer.

use std::collections::BTreeMap;

use rmcp::model::{InputRequests, InputResponses};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ToolError;
use crate::input::Capability;
use crate::input::answers::Answers;
use crate::input::session::{InputSession, UPSTREAM_ROUND_KEY, input_required};
use crate::pipeline::envelope::codes::{INPUT_REQUIRED, INPUT_UNAVAILABLE};
use crate::spec::{ForwardedRequest, UpstreamSpec};
use crate::upstream::forward::{self, Asked};

/// Rounds the gateway sends on a session client's behalf before it gives up.
pub(crate) const MAX_ROUNDS: usize = 8;

/// What the gateway seals between an upstream's rounds: what it asked (cleaned) and its own
/// request state, which the client never sees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Round {
    /// The upstream's request state, echoed back to it.
    state: Option<String>,
    /// The questions, by the upstream's keys.
    asked: BTreeMap<String, Asked>,
}

impl Round {
    /// The upstream's request state.
    pub(crate) fn state(&self) -> Option<String> {
        self.state.clone()
    }
}

fn refused(why: String) -> ToolError {
    crate::upstream::reply::failed(why)
}

/// The round this call's previous request left open (a 2026-07-28 client's retry), from the
/// state the gateway sealed.
pub(crate) fn previous(input: Option<&InputSession>) -> Result<Option<Round>, ToolError> {
    let Some(sealed) = input
        .and_then(InputSession::answers)
        .and_then(|answers| answers.get(UPSTREAM_ROUND_KEY))
    else {
        return Ok(None);
    };
    serde_json::from_value(sealed.clone())
        .map(Some)
        .map_err(|error| ToolError::internal(format!("the sealed upstream round: {error}")))
}

/// The upstream's requests, cleaned for the client; the first one the gateway may not pass on
/// ends the call.
pub(crate) fn clean(
    spec: &UpstreamSpec,
    input: &InputSession,
    requests: InputRequests,
    state: Option<String>,
) -> Result<Round, ToolError> {
    let mut asked = BTreeMap::new();
    for (key, request) in requests {
        if key.starts_with("harness/") {
            return Err(refused(format!(
                "the upstream asked for input under {key:?}, a key this gateway keeps for itself"
            )));
        }
        let wire = serde_json::to_value(&request).map_err(ToolError::internal)?;
        let method = wire["method"].as_str().unwrap_or_default();
        let params = wire.get("params").cloned().unwrap_or(Value::Null);
        let (kind, cleaned) = match method {
            "sampling/createMessage" => (
                ForwardedRequest::Sampling,
                serde_json::from_value(params)
                    .map_err(|error| error.to_string())
                    .and_then(|params| {
                        forward::clean_sampling(input, params).map_err(|error| error.message.into())
                    }),
            ),
            "elicitation/create" => (
                ForwardedRequest::Elicitation,
                serde_json::from_value(params)
                    .map_err(|error| error.to_string())
                    .and_then(|params| {
                        forward::clean_elicitation(input, params)
                            .map_err(|error| error.message.into())
                    }),
            ),
            _ => (ForwardedRequest::Roots, Ok(Asked::roots())),
        };
        if !spec.forward.contains(&kind) {
            return Err(refused(format!(
                "the upstream asked for {} input, which this gateway does not pass on from it",
                kind.as_str()
            )));
        }
        let cleaned = cleaned.map_err(|why| {
            refused(format!(
                "the upstream's {} request {key:?} was not passed on: {why}",
                kind.as_str()
            ))
        })?;
        asked.insert(key, cleaned);
    }
    Ok(Round { state, asked })
}

/// The client's answers to `round`'s questions, each checked: asked in a session, or read from
/// a 2026-07-28 request (then a missing or unfitting one is asked again: the call ends with
/// the input-required error, `round` sealed again with the answers that fit).
pub(crate) async fn answers(
    input: &InputSession,
    round: &Round,
) -> Result<InputResponses, ToolError> {
    // Sealed again if one is asked again: the round, and the answers to it that fit.
    let mut kept = gateways_own(input);
    kept.insert(UPSTREAM_ROUND_KEY.to_owned(), sealed(round)?);
    if let Some(answers) = input.answers() {
        for key in round.asked.keys() {
            if let Some(answer) = answers.get(key) {
                kept.insert(key.clone(), answer.clone());
            }
        }
    }
    input.seal_instead(kept);
    let mut responses = InputResponses::new();
    let mut asks_again = false;
    for (key, asked) in &round.asked {
        match forward::answer(input, key, asked).await {
            Ok(answer) => {
                responses.insert(key.clone(), answer);
            }
            Err(error) if error.code() == INPUT_REQUIRED => asks_again = true,
            Err(error) => return Err(error),
        }
    }
    if asks_again {
        return Err(input_required());
    }
    Ok(responses)
}

/// Ends the call asking a 2026-07-28 client `round`'s questions, each under the upstream's
/// key, with `round` sealed in place of this request's answers (the upstream has had them).
pub(crate) fn ask_next_round(input: &InputSession, round: &Round) -> Result<ToolError, ToolError> {
    let mut answers = gateways_own(input);
    answers.insert(UPSTREAM_ROUND_KEY.to_owned(), sealed(round)?);
    input.seal_instead(answers);
    for (key, asked) in &round.asked {
        input.require(asked.capability())?;
        input.ask_next_round(key, &asked.method, asked.params.clone())?;
    }
    Ok(input_required())
}

/// A 2026-07-28 upstream's missing-capability error (-32021), which it answers only for a
/// capability the calling client did not declare (the gateway passes on the client's own):
/// the client's error, as a local body's would be, rather than an upstream failure.
pub(crate) fn missing_capability(
    input: Option<&InputSession>,
    error: &rmcp::ServiceError,
) -> Option<ToolError> {
    let rmcp::ServiceError::McpError(data) = error else {
        return None;
    };
    if data.code != rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY {
        return None;
    }
    let required = data
        .data
        .as_ref()?
        .get("requiredCapabilities")?
        .as_object()?;
    let capability = [
        ("sampling", Capability::Sampling),
        ("elicitation", Capability::Elicitation),
        ("roots", Capability::Roots),
    ]
    .into_iter()
    .find_map(|(name, capability)| required.contains_key(name).then_some(capability))?;
    input?.require(capability).err()
}

/// The upstream asked for input and this client cannot be asked (no session, and no
/// input-required result on this transport).
pub(crate) fn cannot_ask() -> ToolError {
    ToolError::new(
        INPUT_UNAVAILABLE,
        "The upstream needs input from the client, and this server cannot ask the client on this transport.",
    )
}

/// The answers the gateway keeps for itself (a tool's confirmation): the only ones sealed
/// besides the open round.
fn gateways_own(input: &InputSession) -> Answers {
    input
        .answers()
        .map(|answers| {
            answers
                .iter()
                .filter(|(key, _)| key.starts_with("harness/") && *key != UPSTREAM_ROUND_KEY)
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn sealed(round: &Round) -> Result<Value, ToolError> {
    serde_json::to_value(round).map_err(ToolError::internal)
}
