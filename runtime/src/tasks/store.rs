//! Where tasks live while they run and until they are forgotten: in this process
//! (`memory.rs`), or in Redis (`redis.rs`, the `redis` feature) for tools whose `[tools.task]
//! store` says so, where every replica reads, answers and cancels every replica's tasks. A
//! task's id does not say where it lives: a lookup tries this process first, then Redis.

use std::collections::BTreeMap;

use rmcp::model::{DetailedTask, InputRequest, Task, TaskPayload};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::guards::rate_limit::{SharedStore, StoreError};
use crate::spec::{RateLimitBackend, RateLimitStoreSpec, ServerSpec, ToolSpec};
use crate::tasks::memory::{MemoryHandle, MemoryStore};
use crate::tasks::terms::{AskError, Created, Found, NewTask, Unavailable};

/// The tasks of one server: those of every tool kept in memory, and the Redis store if a tool
/// keeps its tasks there.
#[derive(Debug, Default)]
pub(crate) struct Store {
    memory: MemoryStore,
    shared: Option<Shared>,
}

#[derive(Debug)]
enum Shared {
    #[cfg(feature = "redis")]
    Redis(crate::tasks::redis::RedisStore),
    Broken(StoreError),
}

impl Store {
    /// The store of `server`'s `tools`, sharing the server's Redis connection (`shared`) with
    /// its rate limits when a tool keeps its tasks there.
    pub(crate) fn new(server: &ServerSpec, tools: &[ToolSpec], shared: &SharedStore) -> Self {
        let in_redis = tools.iter().find(|tool| {
            tool.task
                .is_some_and(|task| task.store == RateLimitBackend::Redis)
        });
        Self {
            memory: MemoryStore::default(),
            shared: in_redis
                .map(|tool| Shared::open(&server.rate_limit_store, shared, server, tool.name)),
        }
    }

    /// What keeps the Redis store from working at all, if anything (checked at startup).
    pub(crate) fn setup_error(&self) -> Option<&StoreError> {
        match &self.shared {
            Some(Shared::Broken(error)) => Some(error),
            _ => None,
        }
    }

    /// Creates a task (working) for `new` where its tool keeps them, or refuses when the tool
    /// has its `max_alive` tasks alive.
    pub(crate) async fn create(
        &self,
        new: NewTask<'_>,
    ) -> Result<Created<TaskHandle>, Unavailable> {
        if new.spec.store == RateLimitBackend::Memory {
            return Ok(match self.memory.create(new) {
                Ok((task, handle)) => Created::New(task, TaskHandle::Memory(handle)),
                Err(limit) => Created::AtLimit(limit),
            });
        }
        match self.shared()? {
            #[cfg(feature = "redis")]
            Shared::Redis(redis) => Ok(redis.create(new).await?.map(TaskHandle::Redis)),
            Shared::Broken(error) => Err(Unavailable::Setup(error.clone())),
        }
    }

    /// The alive task of tool `new.name` that `new.owner` created with its idempotency key
    /// and arguments.
    pub(crate) async fn by_idempotency(
        &self,
        new: &NewTask<'_>,
    ) -> Result<Option<Task>, Unavailable> {
        let Some(idempotency) = new.idempotency.as_deref() else {
            return Ok(None);
        };
        if new.spec.store == RateLimitBackend::Memory {
            return Ok(self
                .memory
                .by_idempotency(new.name, new.owner.as_deref(), idempotency));
        }
        match self.shared()? {
            #[cfg(feature = "redis")]
            Shared::Redis(redis) => {
                redis
                    .by_idempotency(new.name, new.owner.as_deref(), idempotency)
                    .await
            }
            Shared::Broken(error) => Err(Unavailable::Setup(error.clone())),
        }
    }

    /// The task as `tasks/get` shows it.
    pub(crate) async fn get(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<Found<DetailedTask>, Unavailable> {
        if let found @ Found::Yours(_) = self.memory.get(id, owner) {
            return Ok(found);
        }
        match &self.shared {
            None => Ok(Found::Unknown),
            #[cfg(feature = "redis")]
            Some(Shared::Redis(redis)) => redis.get(id, owner).await,
            Some(Shared::Broken(error)) => Err(Unavailable::Setup(error.clone())),
        }
    }

    /// Hands each answer whose key is outstanding to the body that asked; other keys (never
    /// asked, answered already) are ignored, as the extension says.
    pub(crate) async fn answer(
        &self,
        id: &str,
        owner: Option<&str>,
        answers: BTreeMap<String, Value>,
    ) -> Result<Found<()>, Unavailable> {
        if self.memory.holds(id) {
            return Ok(self.memory.answer(id, owner, answers));
        }
        match &self.shared {
            None => Ok(Found::Unknown),
            #[cfg(feature = "redis")]
            Some(Shared::Redis(redis)) => redis.answer(id, owner, answers).await,
            Some(Shared::Broken(error)) => Err(Unavailable::Setup(error.clone())),
        }
    }

    /// Cancels a running task: it reads `cancelled` at once and its body is stopped (in
    /// Redis, by its replica at its next renewal). A finished task is left as it is.
    pub(crate) async fn cancel(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<Found<()>, Unavailable> {
        if self.memory.holds(id) {
            return Ok(self.memory.cancel(id, owner));
        }
        match &self.shared {
            None => Ok(Found::Unknown),
            #[cfg(feature = "redis")]
            Some(Shared::Redis(redis)) => redis.cancel(id, owner).await,
            Some(Shared::Broken(error)) => Err(Unavailable::Setup(error.clone())),
        }
    }

    fn shared(&self) -> Result<&Shared, Unavailable> {
        self.shared.as_ref().ok_or_else(|| {
            Unavailable::Redis("no tool of this server keeps its tasks in Redis".into())
        })
    }
}

impl Shared {
    #[cfg(feature = "redis")]
    fn open(
        store: &RateLimitStoreSpec,
        shared: &SharedStore,
        server: &ServerSpec,
        tool: &str,
    ) -> Self {
        match shared.redis(store, tool) {
            Ok(connection) => Self::Redis(crate::tasks::redis::RedisStore::new(
                connection,
                store.key_prefix,
                server.name,
            )),
            Err(error) => Self::Broken(error),
        }
    }

    #[cfg(not(feature = "redis"))]
    fn open(
        _store: &RateLimitStoreSpec,
        _shared: &SharedStore,
        _server: &ServerSpec,
        tool: &str,
    ) -> Self {
        Self::Broken(StoreError::NoRedisFeature {
            tool: tool.to_owned(),
        })
    }
}

/// A running task's side of the store: its id, its cancellation, a way to ask the client, and
/// its end.
#[derive(Debug, Clone)]
pub(crate) enum TaskHandle {
    /// A task kept in this process.
    Memory(MemoryHandle),
    /// A task kept in Redis, renewed by this replica while it runs.
    #[cfg(feature = "redis")]
    Redis(crate::tasks::redis::keeper::RedisHandle),
}

impl TaskHandle {
    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        match self {
            Self::Memory(handle) => handle.id(),
            #[cfg(feature = "redis")]
            Self::Redis(handle) => handle.id(),
        }
    }

    /// Cancelled by `tasks/cancel` (from any replica) or at expiry.
    pub(crate) fn cancellation(&self) -> &CancellationToken {
        match self {
            Self::Memory(handle) => handle.cancellation(),
            #[cfg(feature = "redis")]
            Self::Redis(handle) => handle.cancellation(),
        }
    }

    /// Puts `request` to the client under `key` (the task reads `input_required` until every
    /// outstanding key is answered) and waits for the answer `tasks/update` brings.
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        match self {
            Self::Memory(handle) => handle.ask(key, request).await,
            #[cfg(feature = "redis")]
            Self::Redis(handle) => handle.ask(key, request).await,
        }
    }

    /// Ends the task with `payload`, unless it ended already (cancelled meanwhile).
    pub(crate) async fn finish(&self, payload: TaskPayload, status_message: Option<String>) {
        match self {
            Self::Memory(handle) => handle.finish(payload, status_message),
            #[cfg(feature = "redis")]
            Self::Redis(handle) => handle.finish(payload, status_message).await,
        }
    }

    /// Whether the task was cancelled by `tasks/cancel` (it already reads `cancelled`).
    pub(crate) fn was_cancelled(&self) -> bool {
        match self {
            Self::Memory(handle) => handle.was_cancelled(),
            #[cfg(feature = "redis")]
            Self::Redis(handle) => handle.was_cancelled(),
        }
    }
}
