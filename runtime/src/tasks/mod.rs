//! The tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` of a tool with
//! `[tools.task]` becomes a task when the request declares the extension, and the client reads
//! it with `tasks/get`, answers its questions with `tasks/update` and stops it with
//! `tasks/cancel`. The call itself goes through the same pipeline as an inline one
//! (`pipeline/task.rs`); this part keeps the tasks (`store.rs`: in this process, `memory.rs`,
//! or shared by replicas in Redis, `redis/`) and answers those three methods.
//!
//! A task is bound to the subject that created it (`[auth]`): another subject's request gets
//! the answer a task that does not exist gets. Without `[auth]` the task id, 128 random bits,
//! is the only handle on a task.

mod memory;
#[cfg(feature = "redis")]
mod redis;
pub(crate) mod store;
pub(crate) mod terms;

use std::collections::BTreeMap;

use rmcp::model::{ClientCapabilities, ErrorData, GetTaskResult, ServerConfig, TASKS_EXTENSION_ID};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::auth::Caller;
use crate::guards::rate_limit::SharedStore;
use crate::spec::{ServerSpec, ToolSpec};

use self::store::Store;
use self::terms::{Found, Unavailable};

/// The tasks of one server, borrowed with [`crate::Pipeline::tasks`].
#[derive(Debug)]
pub struct Tasks {
    store: Store,
}

impl Tasks {
    /// The tasks of `server`'s `tools`, in Redis (on the connection its rate limits share,
    /// `shared`) for the tools whose `[tools.task] store` says so.
    pub(crate) fn new(server: &ServerSpec, tools: &[ToolSpec], shared: &SharedStore) -> Self {
        Self {
            store: Store::new(server, tools, shared),
        }
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// `tasks/get`: the task with its outstanding questions, its result or its error.
    pub async fn get(
        &self,
        task_id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let owner = owner(context)?;
        match self.store.get(task_id, owner.as_deref()).await {
            Ok(Found::Yours(task)) => Ok(GetTaskResult::new(task)),
            Ok(Found::Unknown) => Err(unknown(task_id)),
            Err(error) => Err(unavailable(&error)),
        }
    }

    /// `tasks/update`: each answer to an outstanding question goes to the body that asked;
    /// answers to anything else are ignored.
    pub async fn update(
        &self,
        task_id: &str,
        answers: BTreeMap<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = owner(context)?;
        match self.store.answer(task_id, owner.as_deref(), answers).await {
            Ok(Found::Yours(())) => Ok(()),
            Ok(Found::Unknown) => Err(unknown(task_id)),
            Err(error) => Err(unavailable(&error)),
        }
    }

    /// `tasks/cancel`: a running task reads `cancelled` at once and its body is stopped (a
    /// task kept in Redis, by the replica running it, within one renewal); a finished one is
    /// left as it is.
    pub async fn cancel(
        &self,
        task_id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = owner(context)?;
        match self.store.cancel(task_id, owner.as_deref()).await {
            Ok(Found::Yours(())) => Ok(()),
            Ok(Found::Unknown) => Err(unknown(task_id)),
            Err(error) => Err(unavailable(&error)),
        }
    }
}

/// The shared store did not answer: an internal error the client may retry, logged here.
fn unavailable(error: &Unavailable) -> ErrorData {
    tracing::warn!(%error, "a tasks request could not reach the task store");
    ErrorData::internal_error(
        "The task store did not answer; retry the request shortly.",
        None,
    )
}

/// The subject of the request, whose tasks it may read; the extension is defined only for
/// requests that carry their own protocol metadata (2026-07-28), so a session's request is
/// answered as one that did not declare it.
fn owner(context: &RequestContext<RoleServer>) -> Result<Option<String>, ErrorData> {
    if context.meta.protocol_version().is_none() {
        return Err(ErrorData::missing_required_client_capability(
            ClientCapabilities::builder().enable_tasks().build(),
        ));
    }
    Ok(Caller::of_context(context).map(|caller| caller.subject.clone()))
}

fn unknown(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "No task {} exists for this caller (it may have expired).",
            crate::validate::quote_client_text(task_id)
        ),
        None,
    )
}

/// A server's capabilities with the tasks extension declared (for a server with task tools).
pub fn advertise(mut info: ServerConfig) -> ServerConfig {
    info.capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
    info
}
