//! The sealed request state of an input-required result: the answers gathered so far, sealed
//! with HMAC-SHA256 (rmcp's `RequestStateCodec`) under a key from the environment, bound as
//! associated data to the method, the tool or prompt and the digest of its arguments, and expiring.
//! A state used for another tool, with other arguments, after its expiry, or altered in any
//! way does not open; no server-side store is needed, so replicas sharing the key agree. The
//! signature keeps a state whole, not secret: the client can read the answers it sent; what a
//! gateway carries for an upstream is encrypted first (`concealed.rs`).

use std::time::Duration;

use rmcp::model::{RequestStateCodec, RequestStateError};
use serde::{Deserialize, Serialize};

use crate::validate::JsonObject;

/// How long a client has to answer.
pub(crate) const STATE_TTL: Duration = Duration::from_secs(600);

/// Why the request-state key cannot be used; `serve` stops at start-up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateKeyError {
    /// The variable the manifest names is unset or empty.
    #[error(
        "{0} is not set: the manifest names it as the key that seals input-required request state (at least 32 bytes, e.g. `openssl rand -hex 32`)"
    )]
    Missing(&'static str),
    /// The key is too short to seal with.
    #[error(
        "{0} holds fewer than 32 bytes; the request-state key must be at least 32 bytes (e.g. `openssl rand -hex 32`)"
    )]
    TooShort(&'static str),
}

/// What a sealed state holds.
#[derive(Debug, Serialize, Deserialize)]
struct Payload {
    /// Answers by input name.
    answers: JsonObject,
}

/// The key that seals request state (and, in a gateway, encrypts the upstream's round in it).
#[derive(Clone)]
pub(crate) struct StateKey {
    codec: RequestStateCodec,
    #[cfg(feature = "gateway")]
    concealer: std::sync::Arc<crate::input::concealed::Concealer>,
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(..)")
    }
}

impl StateKey {
    /// The key in `variable`.
    pub(crate) fn from_env(variable: &'static str) -> Result<Self, StateKeyError> {
        let key = std::env::var(variable)
            .ok()
            .filter(|key| !key.is_empty())
            .ok_or(StateKeyError::Missing(variable))?;
        Self::new(key.into_bytes()).map_err(|_| StateKeyError::TooShort(variable))
    }

    fn new(secret: Vec<u8>) -> Result<Self, RequestStateError> {
        Ok(Self {
            #[cfg(feature = "gateway")]
            concealer: std::sync::Arc::new(crate::input::concealed::Concealer::new(&secret)),
            codec: RequestStateCodec::try_new(secret)?,
        })
    }

    /// Seals `answers` for a request to `target` with arguments whose digest is `args_sha256`.
    pub(crate) fn seal(
        &self,
        target: Target<'_>,
        args_sha256: &str,
        answers: &JsonObject,
    ) -> String {
        let binding = binding(target, args_sha256);
        #[cfg_attr(
            not(feature = "gateway"),
            expect(unused_mut, reason = "only a gateway conceals")
        )]
        let mut answers = answers.clone();
        #[cfg(feature = "gateway")]
        self.concealer.conceal(binding.as_bytes(), &mut answers);
        let options = rmcp::model::SealOptions::new()
            .associated_data(binding.as_bytes())
            .ttl(STATE_TTL);
        self.codec
            .seal_json_with(&Payload { answers }, &options)
            .expect("a JSON object serializes")
    }

    /// The answers sealed in `state` for this call, or why it does not open.
    pub(crate) fn open(
        &self,
        target: Target<'_>,
        args_sha256: &str,
        state: &str,
    ) -> Result<JsonObject, RequestStateError> {
        let binding = binding(target, args_sha256);
        #[cfg_attr(
            not(feature = "gateway"),
            expect(unused_mut, reason = "only a gateway conceals")
        )]
        let mut answers = self
            .codec
            .open_json_with::<Payload>(state, binding.as_bytes())?
            .answers;
        #[cfg(feature = "gateway")]
        self.concealer.reveal(binding.as_bytes(), &mut answers)?;
        Ok(answers)
    }
}

/// What a request that asks the client is made to: the method and the tool or prompt it
/// names. A state is bound to both, so a state a tool sealed does not open for a prompt of
/// the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    /// `tools/call` or `prompts/get`.
    pub(crate) method: &'static str,
    /// The tool's or prompt's name.
    pub(crate) name: &'a str,
}

impl<'a> Target<'a> {
    /// A `tools/call` of `name`.
    pub(crate) fn tool(name: &'a str) -> Self {
        Self {
            method: "tools/call",
            name,
        }
    }

    /// A `prompts/get` of `name`.
    pub(crate) fn prompt(name: &'a str) -> Self {
        Self {
            method: "prompts/get",
            name,
        }
    }
}

fn binding(target: Target<'_>, args_sha256: &str) -> String {
    format!("{}\0{}\0{args_sha256}", target.method, target.name)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn key() -> StateKey {
        StateKey::new(vec![7; 32]).unwrap()
    }

    #[test]
    fn a_state_opens_only_for_its_own_tool_and_arguments_and_unaltered() {
        let answers = json!({"user_name": {"action": "accept", "content": {"name": "Al"}}})
            .as_object()
            .cloned()
            .unwrap();
        let t = Target::tool("t");
        let state = key().seal(t, "aa", &answers);
        assert_eq!(key().open(t, "aa", &state).unwrap(), answers);
        assert!(
            key().open(Target::tool("other"), "aa", &state).is_err(),
            "another tool"
        );
        assert!(
            key().open(Target::prompt("t"), "aa", &state).is_err(),
            "a prompt of the same name"
        );
        assert!(key().open(t, "bb", &state).is_err(), "other arguments");
        assert!(key().open(t, "aa", &format!("{state}-TAMPERED")).is_err());
        let other_key = StateKey::new(vec![8; 32]).unwrap();
        assert!(other_key.open(t, "aa", &state).is_err(), "another key");
    }
}
