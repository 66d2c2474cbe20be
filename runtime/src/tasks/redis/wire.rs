//! One server's tasks in Redis at the wire: the connection (shared with its rate limits), the
//! Lua scripts (`*.lua` beside this file, each with `prelude.lua` first), the keys, and one
//! round trip bounded by `[rate_limit_store] timeout_ms`.

use std::sync::Arc;

use rmcp::model::{TaskPayload, TaskStatus};
use serde_json::Value;

use crate::audit::rfc3339_now;
use crate::guards::redis_window::RedisConnection;
use crate::tasks::terms::Unavailable;

macro_rules! script {
    ($file:literal) => {
        concat!(include_str!("prelude.lua"), include_str!($file))
    };
}

/// The scripts, compiled once per server.
pub(crate) struct Scripts {
    pub(crate) create: redis::Script,
    pub(crate) get: redis::Script,
    pub(crate) answer: redis::Script,
    pub(crate) cancel: redis::Script,
    pub(crate) ask: redis::Script,
    pub(crate) renew: redis::Script,
    pub(crate) finish: redis::Script,
}

/// One server's tasks in Redis, at the wire: its connection, its scripts and its keys.
#[derive(Clone)]
pub(crate) struct Wire {
    connection: Arc<RedisConnection>,
    pub(crate) scripts: Arc<Scripts>,
    /// `{key_prefix:server}:tasks:`, the start of every key.
    prefix: Arc<str>,
}

impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wire")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// The digest a subject is stored as (`-` for none): what a task is bound to.
fn owner_key(owner: Option<&str>) -> String {
    owner.map_or_else(
        || "-".to_owned(),
        |subject| harness_contract::sha256_hex(subject.as_bytes()),
    )
}

impl Wire {
    /// The tasks of server `server` on `connection`, their keys under `key_prefix`.
    pub(crate) fn new(connection: Arc<RedisConnection>, key_prefix: &str, server: &str) -> Self {
        Self {
            connection,
            scripts: Arc::new(Scripts {
                create: redis::Script::new(script!("create.lua")),
                get: redis::Script::new(script!("get.lua")),
                answer: redis::Script::new(script!("answer.lua")),
                cancel: redis::Script::new(script!("cancel.lua")),
                ask: redis::Script::new(script!("ask.lua")),
                renew: redis::Script::new(script!("renew.lua")),
                finish: redis::Script::new(script!("finish.lua")),
            }),
            prefix: format!("{{{key_prefix}:{server}}}:tasks:").into(),
        }
    }

    pub(crate) fn task_key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    pub(crate) fn alive_key(&self, tool: &str) -> String {
        format!("{}alive:{tool}", self.prefix)
    }

    /// Runs `script` on the task `id` for `owner` with `args` after the three every script
    /// takes, and `keys` after the task's, within the store's timeout.
    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        script: &redis::Script,
        id: &str,
        owner: Option<&str>,
        keys: &[&str],
        args: &[&str],
    ) -> Result<T, Unavailable> {
        let timeout = self.connection.timeout();
        let mut invocation = script.key(self.task_key(id));
        for key in keys {
            invocation.key(*key);
        }
        invocation
            .arg(&*self.prefix)
            .arg(owner_key(owner))
            .arg(rfc3339_now());
        for arg in args {
            invocation.arg(*arg);
        }
        let attempt = async {
            let mut manager = self.connection.manager()?;
            invocation.invoke_async::<T>(&mut manager).await
        };
        match tokio::time::timeout(timeout, attempt).await {
            Err(_) => Err(Unavailable::Timeout(timeout)),
            Ok(Err(error)) => Err(Unavailable::Redis(error.to_string())),
            Ok(Ok(value)) => Ok(value),
        }
    }

    /// The key of an idempotency key's task: by digest, as subjects are.
    pub(crate) fn idempotency_key(
        &self,
        tool: &str,
        owner: Option<&str>,
        idempotency: &str,
    ) -> String {
        let digest =
            harness_contract::sha256_hex(format!("{}\n{idempotency}", owner_key(owner)).as_bytes());
        format!("{}idempotency:{tool}:{digest}", self.prefix)
    }

    /// The value at `key`, if any (an idempotency key's task id).
    pub(crate) async fn value_at(&self, key: &str) -> Result<Option<String>, Unavailable> {
        let timeout = self.connection.timeout();
        let attempt = async {
            let mut manager = self.connection.manager()?;
            redis::cmd("GET")
                .arg(key)
                .query_async::<Option<String>>(&mut manager)
                .await
        };
        match tokio::time::timeout(timeout, attempt).await {
            Err(_) => Err(Unavailable::Timeout(timeout)),
            Ok(Err(error)) => Err(Unavailable::Redis(error.to_string())),
            Ok(Ok(value)) => Ok(value),
        }
    }
}

/// The status a payload ends a task with, as the scripts write it.
pub(crate) fn status_name(payload: &TaskPayload) -> &'static str {
    match payload.status() {
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        _ => "cancelled",
    }
}

/// What a payload stores: the result or the error object.
pub(crate) fn payload_json(payload: &TaskPayload) -> String {
    match payload {
        TaskPayload::Completed { result } => Value::Object(result.clone()).to_string(),
        TaskPayload::Failed { error } => Value::Object(error.clone()).to_string(),
        _ => String::new(),
    }
}
