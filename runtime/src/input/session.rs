//! One call's way of asking the client: in the session (2025-11-25: a server-to-client
//! request, awaited), or by input-required result (2026-07-28: the answer is in the request,
//! or the call ends asking for it). Every answer is validated before the body sees it.

use std::sync::Mutex;

use rmcp::model::{ClientCapabilities, InputRequest, InputRequests};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};

use crate::error::ToolError;
use crate::input::answers::{self, Answers};
use crate::input::{
    Capability, ElicitAnswer, Elicitation, Form, FormAnswer, Root, Sampled, Sampling,
};
use crate::pipeline::envelope::codes;
use crate::spec::{GuardSpec, RedactPattern};
use crate::sync::lock;
use crate::tasks::store::TaskHandle;
use crate::tasks::terms::AskError;

/// How this call reaches the client.
#[derive(Debug)]
pub(crate) enum Channel {
    /// A 2025-11-25 session: ask and wait.
    Session(Peer<RoleServer>),
    /// A 2026-07-28 request: the answers it carries (and the sealed ones), and what the body
    /// asked for that is not among them yet.
    Stateless {
        answers: Answers,
        pending: Mutex<InputRequests>,
    },
    /// A call that became a task: the answers its creating request carried (the forms asked
    /// before the task), and the task, through which the body asks and waits for
    /// `tasks/update`.
    Task { answers: Answers, task: TaskHandle },
    /// Neither (the stateless fast path, or a server without a request-state key).
    Unavailable,
}

/// One call's input channel, with the capabilities the client declared.
#[derive(Debug)]
pub(crate) struct InputSession {
    channel: Channel,
    capabilities: Option<ClientCapabilities>,
    strip_tags: bool,
    redact: Option<&'static [RedactPattern]>,
    missing: Mutex<Option<Capability>>,
    args_digest: String,
    sealed_instead: Mutex<Option<Answers>>,
}

/// The answers key under which the gateway seals what a 2026-07-28 upstream asked and its
/// own request state (upstream/rounds.rs); a client's input response never sets it.
pub(crate) const UPSTREAM_ROUND_KEY: &str = "harness/upstream_round";

/// The error a body gets when the call must end to ask the client first; the pipeline turns
/// it into the input-required result.
pub(crate) fn input_required() -> ToolError {
    ToolError::new(
        codes::INPUT_REQUIRED,
        "The call needs input from the client first.",
    )
}

fn invalid_answer(key: &str, errors: &crate::validate::ArgErrors) -> ToolError {
    ToolError::new(
        codes::INVALID_INPUT,
        format!("the client's answer to {key:?} does not fit what was asked: {errors}"),
    )
    .with_outcome(harness_contract::HarnessOutcome::InvalidArguments.as_str())
}

impl InputSession {
    /// `args_digest`: sha256 of the call's arguments as sent, which a sealed state is bound to;
    /// a sampled reply is stripped and redacted as `guards` (the tool's) clean its output.
    pub(crate) fn new(
        channel: Channel,
        capabilities: Option<ClientCapabilities>,
        guards: &GuardSpec,
        args_digest: String,
    ) -> Self {
        Self {
            channel,
            capabilities,
            strip_tags: guards.strip_xml,
            redact: crate::guards::redact::policy(guards),
            missing: Mutex::new(None),
            args_digest,
            sealed_instead: Mutex::new(None),
        }
    }

    /// sha256 of the call's arguments as sent.
    pub(crate) fn args_digest(&self) -> &str {
        &self.args_digest
    }

    #[cfg(feature = "gateway")]
    /// What the client declared, where it can be asked at all.
    pub(crate) fn declared(&self) -> Option<&ClientCapabilities> {
        self.capabilities.as_ref().filter(|_| self.can_ask())
    }

    /// Whether the client declared `capability`.
    pub(crate) fn supports(&self, capability: Capability) -> bool {
        let Some(capabilities) = &self.capabilities else {
            return false;
        };
        match capability {
            Capability::Elicitation => capabilities.elicitation.is_some(),
            Capability::Sampling => capabilities.sampling.is_some(),
            Capability::Roots => capabilities.roots.is_some(),
        }
    }

    /// The capability a body needed and the client lacked, if any.
    pub(crate) fn missing_capability(&self) -> Option<Capability> {
        *lock(&self.missing)
    }

    /// What the body asked for and the request did not answer.
    pub(crate) fn take_pending(&self) -> InputRequests {
        match &self.channel {
            Channel::Stateless { pending, .. } => std::mem::take(&mut *lock(pending)),
            _ => InputRequests::new(),
        }
    }

    /// Every answer this call has.
    pub(crate) fn answers(&self) -> Option<&Answers> {
        match &self.channel {
            Channel::Stateless { answers, .. } => Some(answers),
            _ => None,
        }
    }

    /// What to seal for the next round: every answer, unless [`InputSession::seal_instead`]
    /// said otherwise.
    pub(crate) fn to_seal(&self) -> Option<Answers> {
        let answers = self.answers()?;
        Some(
            lock(&self.sealed_instead)
                .clone()
                .unwrap_or_else(|| answers.clone()),
        )
    }

    #[cfg(feature = "gateway")]
    /// Seals `answers` for the next round instead of this round's: the gateway passes an
    /// upstream's questions on and must not answer a later question with an earlier answer.
    pub(crate) fn seal_instead(&self, answers: Answers) {
        *lock(&self.sealed_instead) = Some(answers);
    }

    /// The missing-capability error (remembered for the reply) unless the client declared
    /// `capability`.
    pub(crate) fn require(&self, capability: Capability) -> Result<(), ToolError> {
        if self.supports(capability) {
            return Ok(());
        }
        *lock(&self.missing) = Some(capability);
        Err(ToolError::new(
            codes::MISSING_CLIENT_CAPABILITY,
            format!(
                "The client did not declare the {} capability this tool needs.",
                capability.name()
            ),
        ))
    }

    /// Asks the client `method` with `params` under `key` in the next round, whatever this
    /// round's answers hold (a 2026-07-28 request; elsewhere nothing is recorded).
    pub(crate) fn ask_next_round(
        &self,
        key: &str,
        method: &str,
        params: Value,
    ) -> Result<(), ToolError> {
        let Channel::Stateless { pending, .. } = &self.channel else {
            return Ok(());
        };
        let request = input_request(key, method, params)?;
        lock(pending).insert(key.to_owned(), request);
        Ok(())
    }

    #[cfg(feature = "gateway")]
    /// Whether this call can ask the client at all: in a session or by an input-required
    /// result.
    pub(crate) fn can_ask(&self) -> bool {
        !matches!(self.channel, Channel::Unavailable)
    }

    /// The client's answer to `method` with `params` under `key`: asked in the session, found
    /// in the request, or recorded as pending (then the body gets the input-required error).
    async fn ask(
        &self,
        key: &str,
        capability: Capability,
        method: &str,
        params: Value,
    ) -> Result<Value, ToolError> {
        self.require(capability)?;
        match &self.channel {
            Channel::Session(peer) => session_request(peer, method, params).await,
            Channel::Stateless { answers, .. } => {
                if let Some(answer) = answers.get(key) {
                    return Ok(answer.clone());
                }
                self.ask_next_round(key, method, params)?;
                Err(input_required())
            }
            Channel::Task { answers, task } => {
                if let Some(answer) = answers.get(key) {
                    return Ok(answer.clone());
                }
                let request = input_request(key, method, params)?;
                task.ask(key, request).await.map_err(|error| match error {
                    AskError::KeyUsed => ToolError::internal(format!(
                        "input key {key:?} was asked before in this task; keys are unique over a task's life"
                    )),
                    AskError::Ended => ToolError::new(
                        codes::CANCELLED,
                        "The task ended before the client answered.",
                    )
                    .with_outcome(harness_contract::HarnessOutcome::Cancelled.as_str()),
                })
            }
            Channel::Unavailable => Err(ToolError::new(
                codes::INPUT_UNAVAILABLE,
                "This server cannot ask the client for input on this transport.",
            )),
        }
    }

    /// The answer under `key`, validated by `check`. On a 2026-07-28 request an answer that
    /// does not fit is asked for again (the client answers the same question anew); in a
    /// session it is an error.
    async fn validated<T>(
        &self,
        key: &str,
        capability: Capability,
        method: &str,
        params: Value,
        check: impl Fn(&Value) -> Result<T, crate::validate::ArgErrors>,
    ) -> Result<T, ToolError> {
        let answer = self.ask(key, capability, method, params.clone()).await?;
        match check(&answer) {
            Ok(value) => Ok(value),
            Err(errors) => match &self.channel {
                Channel::Stateless { .. } => {
                    tracing::info!(key, %errors, "client answer does not fit the request; asking again");
                    self.ask_next_round(key, method, params)?;
                    Err(input_required())
                }
                _ => Err(invalid_answer(key, &errors)),
            },
        }
    }

    pub(crate) async fn elicit(
        &self,
        key: &str,
        elicitation: &Elicitation,
    ) -> Result<ElicitAnswer, ToolError> {
        let schema = serde_json::to_value(&elicitation.schema).unwrap_or_default();
        self.validated(
            key,
            Capability::Elicitation,
            "elicitation/create",
            elicitation.params(),
            |answer| answers::elicit_answer(answer, &schema),
        )
        .await
    }

    /// Asks the declared form `F` (its key, message and schema are generated); the answer
    /// passes `F`'s generated strict validator.
    pub(crate) async fn ask_form<F: Form>(&self) -> Result<FormAnswer<F>, ToolError> {
        let schema: Value = serde_json::from_str(F::SCHEMA)
            .map_err(|error| ToolError::internal(format!("form {:?}: {error}", F::KEY)))?;
        let params = json!({"mode": "form", "message": F::MESSAGE, "requestedSchema": schema});
        self.validated(
            F::KEY,
            Capability::Elicitation,
            "elicitation/create",
            params,
            answers::form_answer::<F>,
        )
        .await
    }

    pub(crate) async fn sample(
        &self,
        key: &str,
        sampling: &Sampling,
    ) -> Result<Sampled, ToolError> {
        self.sample_with(key, sampling.params()).await
    }

    /// [`InputSession::sample`] with the request's params as they go on the wire (the
    /// gateway passes on what an upstream asked, cleaned with [`InputSession::clean`]).
    pub(crate) async fn sample_with(&self, key: &str, params: Value) -> Result<Sampled, ToolError> {
        let (strip_tags, redact) = (self.strip_tags, self.redact);
        self.validated(
            key,
            Capability::Sampling,
            "sampling/createMessage",
            params,
            |answer| answers::sampled(answer, strip_tags, redact),
        )
        .await
    }

    #[cfg(feature = "gateway")]
    /// Whether this call can ask the client while it runs (a 2025-11-25 session), rather
    /// than by ending with an input-required result.
    pub(crate) fn in_session(&self) -> bool {
        matches!(self.channel, Channel::Session(_))
    }

    #[cfg(feature = "gateway")]
    /// `text` stripped and redacted as the call's output is: what an upstream asks goes to
    /// the client's user or model only so.
    pub(crate) fn clean(&self, text: &str) -> String {
        let stripped = crate::guards::strip::sanitize(text, self.strip_tags);
        crate::guards::redact::apply(
            &stripped,
            self.redact,
            &mut crate::guards::redact::Redactions::default(),
        )
        .into_owned()
    }

    pub(crate) async fn roots(&self, key: &str) -> Result<Vec<Root>, ToolError> {
        self.validated(
            key,
            Capability::Roots,
            "roots/list",
            json!({}),
            answers::roots,
        )
        .await
    }
}

/// `method` with `params` as an input request, under `key` (for the error).
fn input_request(key: &str, method: &str, params: Value) -> Result<InputRequest, ToolError> {
    serde_json::from_value(json!({"method": method, "params": params})).map_err(|error| {
        ToolError::internal(format!("input request {key:?} does not serialize: {error}"))
    })
}

/// A server-to-client request in a 2025-11-25 session, its result as JSON.
#[allow(
    deprecated,
    reason = "2025-11-25 sessions ask the client this way; rmcp marks it deprecated for 2026-07-28"
)]
async fn session_request(
    peer: &Peer<RoleServer>,
    method: &str,
    params: Value,
) -> Result<Value, ToolError> {
    let failed = |error: String| {
        ToolError::new(
            codes::CLIENT_REQUEST_FAILED,
            "The client did not answer the request for input.",
        )
        .with_internal_detail(error)
    };
    let result = match method {
        "elicitation/create" => {
            let params =
                serde_json::from_value(params).map_err(|error| failed(error.to_string()))?;
            peer.create_elicitation(params)
                .await
                .map(|result| serde_json::to_value(result).unwrap_or_default())
        }
        "sampling/createMessage" => {
            let params =
                serde_json::from_value(params).map_err(|error| failed(error.to_string()))?;
            peer.create_message(params)
                .await
                .map(|result| serde_json::to_value(result).unwrap_or_default())
        }
        _ => peer
            .list_roots()
            .await
            .map(|result| serde_json::to_value(result).unwrap_or_default()),
    };
    result.map_err(|error| failed(error.to_string()))
}
