//! A tool whose calls become tasks (the tasks extension): how, for how long, how many at once,
//! and which of its forms are asked before a task is created.

use harness_contract::RateLimitBackend;
pub use harness_contract::TaskSupport;

use crate::input::Form;

/// `[tools.task]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSpec {
    /// `optional` (a task for a request that declares the extension) or `required`.
    pub support: TaskSupport,
    /// Milliseconds a task lives from its creation; a body still running then is stopped.
    pub ttl_ms: u64,
    /// The poll interval suggested to clients.
    pub poll_interval_ms: u64,
    /// The tool's tasks alive (working or waiting for input) at once.
    pub max_alive: u32,
    /// Forms asked as input-required rounds of the call before its task is created.
    pub ask_first: &'static [FormQuestion],
    /// Where the tasks live: this process, or the Redis of `[rate_limit_store]`.
    pub store: RateLimitBackend,
    /// How long a task kept in Redis stays alive without its replica renewing it.
    pub lease_ms: u64,
}

/// A declared form as it is put to the client: its key, message and requested schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormQuestion {
    /// The input request's key.
    pub key: &'static str,
    /// What the user is asked.
    pub message: &'static str,
    /// The requested schema, as JSON.
    pub schema: &'static str,
}

impl FormQuestion {
    /// The question of the generated form `F`.
    pub const fn of<F: Form>() -> Self {
        Self {
            key: F::KEY,
            message: F::MESSAGE,
            schema: F::SCHEMA,
        }
    }
}
