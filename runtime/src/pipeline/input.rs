//! A request's way of asking the client for input, set up before the body runs (the sealed
//! state of the previous round opened, or the request refused), and what a body that asked
//! ends as: an input-required result carrying the requests and the state sealed anew, or the
//! specification's missing-capability error. Tool calls and computed prompts share it.

use std::sync::{Arc, Mutex};

use harness_contract::HarnessOutcome;
use rmcp::model::{ClientCapabilities, ErrorData, InputRequiredResult};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};

use crate::audit::args_sha256;
use crate::error::ToolError;
use crate::input::session::{Channel, InputSession, UPSTREAM_ROUND_KEY};
use crate::input::state::Target;
use crate::pipeline::Pipeline;
use crate::pipeline::call::{Call, CallInput};
use crate::pipeline::confirm::{CONFIRM_ASKED, CONFIRM_KEY};
use crate::pipeline::envelope::codes;
use crate::pipeline::outcome::Outcome;
use crate::pipeline::refusal::Refusal;
use crate::spec::{GuardSpec, ToolSpec};

impl Pipeline {
    /// The input channel of one tool call (see [`Pipeline::open_input`]).
    pub(super) fn input_session(
        &self,
        tool: &ToolSpec,
        call: &Call,
        guards: &GuardSpec,
    ) -> Result<Arc<InputSession>, Refusal> {
        // Bound to the arguments as the client sends them, the same in every round.
        self.open_input(
            Target::tool(tool.name),
            || args_sha256(&call.raw_arguments()),
            &call.input,
            call.peer.as_ref(),
            guards,
            tool.write.confirm,
        )
    }

    /// The input channel of one request to `target`: on a 2026-07-28 request its answers
    /// (the sealed ones of earlier rounds, which must open for this target and these
    /// arguments, then the request's own); in a session the client; else none. `confirm`: the
    /// target is a tool that asks for a confirmation before its body runs. `digest` gives the
    /// arguments' digest a sealed state is bound to, computed only for a 2026-07-28 request
    /// (the only kind that seals state): a call in a session pays nothing for it.
    pub(crate) fn open_input(
        &self,
        target: Target<'_>,
        digest: impl FnOnce() -> String,
        input: &CallInput,
        peer: Option<&Peer<RoleServer>>,
        guards: &GuardSpec,
        confirm: bool,
    ) -> Result<Arc<InputSession>, Refusal> {
        let digest = if input.stateless {
            digest()
        } else {
            String::new()
        };
        let channel = if input.stateless {
            let mut answers = serde_json::Map::new();
            if let Some(state) = &input.request_state {
                let Some(Ok(key)) = &self.state_key else {
                    return Err(Refusal::InvalidRequestState(
                        "this server seals no request state".into(),
                    ));
                };
                answers = key
                    .open(target, &digest, state)
                    .map_err(|error| Refusal::InvalidRequestState(error.to_string()))?;
            }
            let mut responses = input.responses.clone().unwrap_or_default();
            // Only the gateway sets what it carries between an upstream's rounds.
            responses.remove(UPSTREAM_ROUND_KEY);
            if confirm {
                // A confirmation counts only beside the state that asked it (confirm.rs).
                let asked = answers.remove(CONFIRM_ASKED).is_some();
                responses.remove(CONFIRM_ASKED);
                if !asked {
                    responses.remove(CONFIRM_KEY);
                }
            }
            answers.extend(responses);
            match &input.task {
                Some(task) => Channel::Task {
                    answers,
                    task: task.clone(),
                },
                None => Channel::Stateless {
                    answers,
                    pending: Mutex::default(),
                },
            }
        } else if let Some(peer) = peer {
            Channel::Session(peer.clone())
        } else {
            Channel::Unavailable
        };
        Ok(Arc::new(InputSession::new(
            channel,
            input.capabilities.clone(),
            guards,
            digest,
        )))
    }

    /// What a tool body's error means when it came from asking the client (see
    /// [`Pipeline::input_reply`]), as the call's outcome.
    pub(super) fn input_outcome(
        &self,
        tool: &ToolSpec,
        input: &InputSession,
        error: &ToolError,
        args: &Value,
    ) -> Option<Outcome> {
        Some(
            match self.input_reply(Target::tool(tool.name), input, error)? {
                Ok(result) => Outcome::input_required(result, args.clone()),
                Err(error) => Outcome::json_rpc_error(
                    error,
                    HarnessOutcome::Error,
                    codes::MISSING_CLIENT_CAPABILITY,
                    args.clone(),
                ),
            },
        )
    }

    /// What a body's error means when it came from asking the client: the input-required
    /// result (with the requests, and every answer so far sealed for the next round), or the
    /// missing-capability error on 2026-07-28; `None` for any other error.
    pub(crate) fn input_reply(
        &self,
        target: Target<'_>,
        input: &InputSession,
        error: &ToolError,
    ) -> Option<Result<InputRequiredResult, ErrorData>> {
        if error.code() == codes::MISSING_CLIENT_CAPABILITY && input.answers().is_some() {
            let capability = input.missing_capability()?;
            let required: ClientCapabilities =
                serde_json::from_value(json!({ capability.name(): {} })).ok()?;
            return Some(Err(ErrorData::missing_required_client_capability(required)));
        }
        if error.code() != codes::INPUT_REQUIRED {
            return None;
        }
        let pending = input.take_pending();
        if pending.is_empty() {
            return None;
        }
        let state = match (&self.state_key, input.to_seal()) {
            (Some(Ok(key)), Some(mut answers)) if pending.contains_key(CONFIRM_KEY) => {
                answers.insert(CONFIRM_ASKED.to_owned(), Value::Bool(true));
                Some(key.seal(target, input.args_digest(), &answers))
            }
            (Some(Ok(key)), Some(answers)) => Some(key.seal(target, input.args_digest(), &answers)),
            _ => None,
        };
        Some(Ok(InputRequiredResult::new(Some(pending), state)))
    }
}
