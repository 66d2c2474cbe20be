//! What a body may ask the client for while it runs: elicitation (the user fills a form),
//! sampling (the client's model writes a reply) and roots (the client's workspace roots).
//!
//! On 2025-11-25 sessions the server asks in the session and waits. On 2026-07-28 requests,
//! which are stateless, the call ends with an input-required result naming what it needs,
//! with the answers gathered so far sealed in `requestState` (HMAC, bound to the tool, the
//! arguments' digest and an expiry; see `input/state.rs`); the client calls again with the answers
//! and the body runs again from the start, now finding them. Either way every answer is
//! client input: validated strictly against what the body asked before the body sees it
//! (`input/answers.rs`), and a capability the client did not declare is refused as the
//! specification says.

pub(crate) mod answers;
#[cfg(feature = "gateway")]
pub(crate) mod concealed;
pub(crate) mod session;
pub(crate) mod state;

pub use rmcp::model::ElicitationSchema;

use serde_json::{Value, json};

use crate::validate::JsonObject;

/// A form for the user: a message and the schema its answer must fit.
#[derive(Debug, Clone)]
pub struct Elicitation {
    /// What the user is asked.
    pub message: String,
    /// The form (rmcp's builder: strings, numbers, booleans, enums, multi-select).
    pub schema: ElicitationSchema,
}

impl Elicitation {
    /// A form asking `message`.
    pub fn new(message: impl Into<String>, schema: ElicitationSchema) -> Self {
        Self {
            message: message.into(),
            schema,
        }
    }

    pub(crate) fn params(&self) -> Value {
        json!({"mode": "form", "message": self.message, "requestedSchema": self.schema})
    }
}

/// A form the manifest declares for a tool (`[[tools.forms]]`): the generated type of its
/// answer, with its strict validator, and what the client is asked.
pub trait Form: crate::validate::FromArguments {
    /// The question's key, unique within the tool.
    const KEY: &'static str;
    /// What the user is asked.
    const MESSAGE: &'static str;
    /// The requested schema, as JSON.
    const SCHEMA: &'static str;
}

/// What the user did with a declared form.
#[derive(Debug, Clone, PartialEq)]
pub enum FormAnswer<F> {
    /// Submitted it: the answer, validated by the form's generated validator.
    Accept(F),
    /// Declined to answer.
    Decline,
    /// Dismissed it.
    Cancel,
}

/// What the user did with a form.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    /// Submitted it: the content, validated against the form's schema.
    Accept(JsonObject),
    /// Declined to answer.
    Decline,
    /// Dismissed it.
    Cancel,
}

/// A request for the client's model to write a reply.
#[derive(Debug, Clone)]
pub struct Sampling {
    /// The user message the model answers.
    pub prompt: String,
    /// The longest reply, in tokens.
    pub max_tokens: u32,
    /// An optional system prompt.
    pub system_prompt: Option<String>,
}

impl Sampling {
    /// Ask the model `prompt`, for at most `max_tokens` tokens.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            prompt: prompt.into(),
            max_tokens,
            system_prompt: None,
        }
    }

    pub(crate) fn params(&self) -> Value {
        let mut params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": self.prompt}}],
            "maxTokens": self.max_tokens,
        });
        if let Some(system) = &self.system_prompt {
            params["systemPrompt"] = Value::String(system.clone());
        }
        params
    }
}

/// The client model's reply: its text (stripped and capped like tool output) and the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampled {
    /// The reply's text.
    pub text: String,
    /// The model that wrote it, as the client says.
    pub model: String,
}

/// One of the client's roots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its URI (`file://...`).
    pub uri: String,
    /// Its name, if the client gave one.
    pub name: Option<String>,
}

/// A client capability a body may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// `elicitation`.
    Elicitation,
    /// `sampling`.
    Sampling,
    /// `roots`.
    Roots,
}

impl Capability {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Elicitation => "elicitation",
            Self::Sampling => "sampling",
            Self::Roots => "roots",
        }
    }
}
