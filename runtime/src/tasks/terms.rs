//! The terms every task store speaks (in memory, `memory.rs`; in Redis, `redis/`): the task
//! to create, what creating it came to, what a lookup found, why a question or the store
//! failed, and the bounds both keep.

use std::time::Duration;

use rmcp::model::{JsonObject, Task};
use serde_json::Value;

use crate::guards::rate_limit::StoreError;
use crate::spec::TaskSpec;

/// Finished tasks a tool keeps, per task it may have alive.
pub(crate) const KEPT_PER_ALIVE: usize = 4;

/// How long a task that finished at or past its time to live can still be read.
pub(crate) const GRACE: Duration = Duration::from_secs(60);

/// A task about to be created.
pub(crate) struct NewTask<'a> {
    /// The tool's name (what its tasks are counted and kept by; replicas agree on names).
    pub(crate) name: &'static str,
    /// Its `[tools.task]`.
    pub(crate) spec: &'a TaskSpec,
    /// The subject that creates it (none without `[auth]`).
    pub(crate) owner: Option<String>,
    /// The idempotency key and arguments' digest it was created with, if any.
    pub(crate) idempotency: Option<String>,
}

/// Why no task was created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AtLimit(pub(crate) u32);

/// What creating a task came to, with the running task's handle `H`.
pub(crate) enum Created<H> {
    /// A new task, running from now on.
    New(Task, H),
    /// The alive task another replica created a moment ago with the same idempotency key.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Existing(Task),
    /// The tool has its `max_alive` tasks alive.
    AtLimit(AtLimit),
}

impl<H> Created<H> {
    /// The same outcome with the handle made another type.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn map<T>(self, handle: impl FnOnce(H) -> T) -> Created<T> {
        match self {
            Self::New(task, running) => Created::New(task, handle(running)),
            Self::Existing(task) => Created::Existing(task),
            Self::AtLimit(limit) => Created::AtLimit(limit),
        }
    }
}

/// What a lookup found, for the subject asking.
pub(crate) enum Found<T> {
    /// The subject's task.
    Yours(T),
    /// No task with this id, or another subject's: the same answer for both.
    Unknown,
}

/// Why a question could not be put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AskError {
    /// The key was asked before in this task (keys are unique over its life).
    KeyUsed,
    /// The task ended (cancelled, expired) or was forgotten.
    Ended,
}

/// The shared store gave no answer in time, or an error.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum Unavailable {
    /// No answer within `[rate_limit_store] timeout_ms`.
    #[error("the task store (Redis) did not answer within {0:?}")]
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Timeout(Duration),
    /// Redis answered with an error, or the connection failed.
    #[error("the task store (Redis) failed: {0}")]
    Redis(String),
    /// The store could not be set up (see [`StoreError`]).
    #[error("{0}")]
    Setup(StoreError),
}

/// A task id: 128 random bits from the thread's CSPRNG, as 32 hex digits. On a server
/// without `[auth]` the id is the only handle on a task, so it must not be guessable.
pub(crate) fn task_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// A result as the object a completed task carries.
pub(crate) fn as_object(value: &impl serde::Serialize) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn ids_are_128_bit_hex_and_distinct() {
        let ids: HashSet<String> = (0..1000).map(|_| task_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(
            ids.iter()
                .all(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        );
    }
}
