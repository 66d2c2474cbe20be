//! What a write tool asks for besides its guards: a confirmation by the user before the body
//! runs (`confirm = true`), and an idempotency key that answers a repeated call with the first
//! one's reply (`idempotency_key`). A `destructiveHint` is a hint to the client; these are
//! enforced by the server.

use harness_contract::RateLimitBackend;

/// A tool's write safeguards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteSpec {
    /// Ask the user (elicitation) before the body runs; declined, cancelled or unsupported
    /// refuses the call with `NotConfirmed`.
    pub confirm: bool,
    /// Repeated keys answered from the first call's reply.
    pub idempotency: Option<IdempotencySpec>,
}

/// `idempotency_key = "<argument>"` and its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdempotencySpec {
    /// The required string argument holding the key.
    pub argument: &'static str,
    /// How long a key is remembered, in seconds.
    pub window_seconds: u64,
    /// Where the keys live: this process, or Redis (`[rate_limit_store] backend`), which every
    /// replica shares.
    pub backend: RateLimitBackend,
}

impl WriteSpec {
    /// No safeguard: the body runs once the guards admit the call.
    pub const NONE: Self = Self {
        confirm: false,
        idempotency: None,
    };
}
