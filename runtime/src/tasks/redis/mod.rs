//! Tasks kept in Redis, so that replicas behind one load balancer answer each other's
//! `tasks/get`, `tasks/update` and `tasks/cancel`. Each task is one hash; each change is one
//! Lua script (`wire.rs`), atomic on the server and on Redis's clock. The replica running a
//! task renews its lease (`keeper.rs`) a few times per lease: that renewal also takes the
//! answers `tasks/update` left for the body and sees a cancellation, so a request sent to any
//! replica reaches the running body within one renewal. A replica that dies stops renewing:
//! its tasks read `failed` once their lease has run out.
//!
//! Keys share one hash tag per server (`{prefix:server}:tasks:...`), so a Redis Cluster keeps
//! them on one slot, as the scripts need. A subject is stored as its digest, never as written.

pub(crate) mod keeper;
mod wire;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{DetailedTask, InputRequest, JsonObject, Task, TaskPayload, TaskStatus};
use serde_json::Value;

use crate::audit::rfc3339_now;
use crate::guards::redis_window::RedisConnection;
use crate::tasks::redis::keeper::RedisHandle;
use crate::tasks::redis::wire::Wire;
use crate::tasks::terms::{
    AtLimit, Created, Found, GRACE, KEPT_PER_ALIVE, NewTask, Unavailable, task_id,
};

/// The tasks of one server in Redis.
#[derive(Debug, Clone)]
pub(crate) struct RedisStore {
    wire: Wire,
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl RedisStore {
    /// The store of server `server` on `connection`, its keys under `key_prefix`.
    pub(crate) fn new(connection: Arc<RedisConnection>, key_prefix: &str, server: &str) -> Self {
        Self {
            wire: Wire::new(connection, key_prefix, server),
        }
    }

    /// Creates a task for `new`, unless its tool has `max_alive` tasks alive across every
    /// replica or (with an idempotency key) another replica created its task a moment ago.
    pub(crate) async fn create(
        &self,
        new: NewTask<'_>,
    ) -> Result<Created<RedisHandle>, Unavailable> {
        let id = task_id();
        let idempotency = new
            .idempotency
            .as_deref()
            .map(|key| {
                self.wire
                    .idempotency_key(new.name, new.owner.as_deref(), key)
            })
            .unwrap_or_default();
        let alive = self.wire.alive_key(new.name);
        let spec = new.spec;
        let numbers = [
            u64::from(spec.max_alive),
            spec.ttl_ms,
            spec.poll_interval_ms,
            spec.lease_ms,
            millis(GRACE),
            KEPT_PER_ALIVE as u64 * u64::from(spec.max_alive),
        ]
        .map(|number| number.to_string());
        let mut args = vec![new.name];
        args.extend(numbers.iter().map(String::as_str));
        let (created, existing): (i64, String) = self
            .wire
            .run(
                &self.wire.scripts.create,
                &id,
                new.owner.as_deref(),
                &[&alive, &idempotency],
                &args,
            )
            .await?;
        match created {
            1 => {
                let stamp = rfc3339_now();
                let task = Task::new(id.clone(), TaskStatus::Working, stamp.clone(), stamp)
                    .with_ttl_ms(spec.ttl_ms)
                    .with_poll_interval_ms(spec.poll_interval_ms);
                let handle = RedisHandle::start(self.wire.clone(), id, alive, spec);
                Ok(Created::New(task, handle))
            }
            2 => match self.get(&existing, new.owner.as_deref()).await? {
                Found::Yours(task) => Ok(Created::Existing(task.task)),
                // Forgotten between the two round trips: a fresh attempt creates it.
                Found::Unknown => Err(Unavailable::Redis(
                    "the task of this idempotency key ended while it was read".into(),
                )),
            },
            _ => Ok(Created::AtLimit(AtLimit(spec.max_alive))),
        }
    }

    /// The alive task of `tool` that `owner` created with this idempotency key and arguments.
    pub(crate) async fn by_idempotency(
        &self,
        tool: &str,
        owner: Option<&str>,
        idempotency: &str,
    ) -> Result<Option<Task>, Unavailable> {
        let key = self.wire.idempotency_key(tool, owner, idempotency);
        let Some(id) = self.wire.value_at(&key).await? else {
            return Ok(None);
        };
        Ok(match self.get(&id, owner).await? {
            Found::Yours(task) if !task.status().is_terminal() => Some(task.task),
            _ => None,
        })
    }

    /// The task as `tasks/get` shows it.
    pub(crate) async fn get(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<Found<DetailedTask>, Unavailable> {
        let fields: HashMap<String, String> = self
            .wire
            .run(&self.wire.scripts.get, id, owner, &[], &[])
            .await?;
        if fields.is_empty() {
            return Ok(Found::Unknown);
        }
        detailed(id, &fields)
            .map(Found::Yours)
            .ok_or_else(|| Unavailable::Redis(format!("task {id} is malformed in Redis")))
    }

    /// Keeps each answer to an outstanding question for the running replica to take.
    pub(crate) async fn answer(
        &self,
        id: &str,
        owner: Option<&str>,
        answers: BTreeMap<String, Value>,
    ) -> Result<Found<()>, Unavailable> {
        let answers: Vec<String> = answers
            .into_iter()
            .flat_map(|(key, answer)| [key, answer.to_string()])
            .collect();
        let args: Vec<&str> = answers.iter().map(String::as_str).collect();
        let found: i64 = self
            .wire
            .run(&self.wire.scripts.answer, id, owner, &[], &args)
            .await?;
        Ok(if found == 1 {
            Found::Yours(())
        } else {
            Found::Unknown
        })
    }

    /// Cancels an alive task; its replica stops the body at its next renewal.
    pub(crate) async fn cancel(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<Found<()>, Unavailable> {
        let found: i64 = self
            .wire
            .run(&self.wire.scripts.cancel, id, owner, &[], &[])
            .await?;
        Ok(if found == 1 {
            Found::Yours(())
        } else {
            Found::Unknown
        })
    }
}

/// A task's hash as `tasks/get` shows it; `None` when a field is missing or malformed.
fn detailed(id: &str, fields: &HashMap<String, String>) -> Option<DetailedTask> {
    let field = |name: &str| fields.get(name).map(String::as_str);
    let number = |name: &str| field(name)?.parse::<u64>().ok();
    let status: TaskStatus =
        serde_json::from_value(Value::String(field("status")?.to_owned())).ok()?;
    let mut task = Task::new(id, status, field("created")?, field("updated")?)
        .with_ttl_ms(number("ttl")?)
        .with_poll_interval_ms(number("poll")?);
    task.status_message = field("message").map(str::to_owned);
    let object = || serde_json::from_str::<JsonObject>(field("payload")?).ok();
    let payload = match status {
        TaskStatus::Working => TaskPayload::Working,
        TaskStatus::InputRequired => TaskPayload::InputRequired {
            input_requests: fields
                .iter()
                .filter_map(|(name, request)| {
                    let key = name.strip_prefix("q:")?;
                    let request = serde_json::from_str::<InputRequest>(request).ok()?;
                    Some((key.to_owned(), request))
                })
                .collect(),
        },
        TaskStatus::Completed => TaskPayload::Completed { result: object()? },
        TaskStatus::Failed => TaskPayload::Failed { error: object()? },
        _ => TaskPayload::Cancelled,
    };
    Some(DetailedTask::new(task, payload))
}
