//! What a write tool asks for besides its guards: a confirmation by the user before the body
//! runs (`confirm = true`). A `destructiveHint` is a hint to the client; this is enforced by
//! the server.

/// A tool's write safeguards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteSpec {
    /// Ask the user (elicitation) before the body runs; declined, cancelled or unsupported
    /// refuses the call with `NotConfirmed`.
    pub confirm: bool,
}

impl WriteSpec {
    /// No safeguard: the body runs once the guards admit the call.
    pub const NONE: Self = Self { confirm: false };
}
