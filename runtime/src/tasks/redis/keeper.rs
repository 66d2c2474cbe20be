//! The running replica's side of a task kept in Redis: a keeper that renews the task's lease,
//! hands the body the answers `tasks/update` left for it, and stops the body when the task was
//! cancelled (or failed, its lease lapsed) by a request to any replica.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::{InputRequest, TaskPayload};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::spec::TaskSpec;
use crate::sync::lock;
use crate::tasks::redis::wire::{Wire, payload_json, status_name};
use crate::tasks::terms::AskError;

/// The shortest and longest time between two renewals.
const RENEWAL_BOUNDS: (Duration, Duration) = (Duration::from_millis(50), Duration::from_secs(1));

/// How many times a finished task's end is written before the replica gives up (its lease
/// then lapses and the task reads `failed`).
const FINISH_ATTEMPTS: u32 = 5;

/// A running task kept in Redis.
#[derive(Debug, Clone)]
pub(crate) struct RedisHandle {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    wire: Wire,
    id: String,
    alive_key: String,
    cancellation: CancellationToken,
    /// Set when the keeper saw the task cancelled by `tasks/cancel`.
    cancelled: AtomicBool,
    /// Questions the body waits on, by key.
    waiting: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    /// Ends the keeper once the task has ended.
    done: CancellationToken,
}

impl RedisHandle {
    /// The handle of task `id`, just created, with its keeper started: it renews the lease
    /// a few times per lease, and at least once per poll interval so an answer or a
    /// cancellation reaches the body about as fast as a client polls.
    pub(crate) fn start(wire: Wire, id: String, alive_key: String, spec: &TaskSpec) -> Self {
        let inner = Arc::new(Inner {
            wire,
            id,
            alive_key,
            cancellation: CancellationToken::new(),
            cancelled: AtomicBool::new(false),
            waiting: Mutex::new(HashMap::new()),
            done: CancellationToken::new(),
        });
        let every = Duration::from_millis((spec.lease_ms / 3).min(spec.poll_interval_ms))
            .clamp(RENEWAL_BOUNDS.0, RENEWAL_BOUNDS.1);
        tokio::spawn(keep(Arc::downgrade(&inner), every));
        Self { inner }
    }

    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.inner.id
    }

    /// Cancelled by `tasks/cancel` on any replica, at expiry, or when the lease lapsed.
    pub(crate) fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// Whether the task was cancelled by `tasks/cancel`.
    pub(crate) fn was_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Puts `request` to the client under `key` and waits for the answer the keeper takes.
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        let (answer, answered) = oneshot::channel();
        lock(&self.inner.waiting).insert(key.to_owned(), answer);
        let request = serde_json::to_string(&request).map_err(|_| AskError::Ended);
        let put: Result<i64, _> = match &request {
            Ok(request) => {
                let wire = &self.inner.wire;
                wire.run(
                    &wire.scripts.ask,
                    &self.inner.id,
                    None,
                    &[],
                    &[key, request],
                )
                .await
            }
            Err(_) => Ok(0),
        };
        match put {
            Ok(1) => answered.await.map_err(|_| AskError::Ended),
            Ok(2) => {
                lock(&self.inner.waiting).remove(key);
                Err(AskError::KeyUsed)
            }
            Ok(_) | Err(_) => {
                lock(&self.inner.waiting).remove(key);
                Err(AskError::Ended)
            }
        }
    }

    /// Ends the task with `payload`, unless it ended already; retried a few times when Redis
    /// does not answer, since the result is lost otherwise.
    pub(crate) async fn finish(&self, payload: TaskPayload, status_message: Option<String>) {
        let (status, json) = (status_name(&payload), payload_json(&payload));
        let message = status_message.unwrap_or_default();
        let wire = &self.inner.wire;
        for attempt in 1..=FINISH_ATTEMPTS {
            let written: Result<i64, _> = wire
                .run(
                    &wire.scripts.finish,
                    &self.inner.id,
                    None,
                    &[],
                    &[status, &json, &message],
                )
                .await;
            match written {
                Ok(_) => break,
                Err(error) if attempt == FINISH_ATTEMPTS => tracing::error!(
                    task = self.inner.id,
                    %error,
                    "the task's end could not be written to Redis; it will read failed once its lease lapses"
                ),
                Err(_) => tokio::time::sleep(Duration::from_millis(100 * u64::from(attempt))).await,
            }
        }
        self.inner.done.cancel();
    }
}

/// The keeper: renews until the task ends here or elsewhere. It holds the task weakly: were
/// every handle dropped without an end written (the pipeline cannot, but a keeper must never
/// outlive its task), renewals stop and the task reads `failed` once its lease runs out.
async fn keep(task: Weak<Inner>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        let Some(inner) = task.upgrade() else {
            return;
        };
        if inner.done.is_cancelled() {
            return;
        }
        let wire = &inner.wire;
        let renewed: Result<Vec<String>, _> = wire
            .run(
                &wire.scripts.renew,
                &inner.id,
                None,
                &[&inner.alive_key],
                &[],
            )
            .await;
        let reply = match renewed {
            Ok(reply) => reply,
            Err(error) => {
                // Retried at the next renewal; if Redis stays away past the lease, the task
                // reads failed and the next renewal that gets through stops the body.
                tracing::warn!(task = inner.id, %error, "could not renew the task's lease");
                continue;
            }
        };
        let mut reply = reply.into_iter();
        let status = reply.next().unwrap_or_default();
        while let (Some(key), Some(answer)) = (reply.next(), reply.next()) {
            let answer = serde_json::from_str(&answer).unwrap_or(Value::Null);
            if let Some(waiting) = lock(&inner.waiting).remove(&key) {
                // The body may have stopped meanwhile; then nobody waits for it.
                let _ = waiting.send(answer);
            }
        }
        match status.as_str() {
            "working" | "input_required" => {}
            ended => {
                if ended == "cancelled" {
                    inner.cancelled.store(true, Ordering::Release);
                }
                inner.cancellation.cancel();
                lock(&inner.waiting).clear();
                return;
            }
        }
    }
}
