//! Tasks kept in this process, bounded per tool (at most `max_alive` alive, and the last
//! `KEPT_PER_ALIVE × max_alive` finished ones kept until their time to live ends), each entry
//! bound to the subject that created it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{DetailedTask, InputRequest, Task, TaskPayload, TaskStatus};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::audit::rfc3339_now;
use crate::sync::lock;
use crate::tasks::terms::{AskError, AtLimit, Found, GRACE, KEPT_PER_ALIVE, NewTask, task_id};

/// The tasks of one server kept in this process.
#[derive(Debug, Default, Clone)]
pub(crate) struct MemoryStore {
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

#[derive(Debug)]
struct Entry {
    tool: &'static str,
    owner: Option<String>,
    task: Task,
    phase: Phase,
    cancellation: CancellationToken,
    created: Instant,
    ttl: Duration,
    finished: Option<Instant>,
    idempotency: Option<String>,
}

#[derive(Debug)]
enum Phase {
    Running {
        pending: BTreeMap<String, Pending>,
        used: HashSet<String>,
    },
    Finished(TaskPayload),
}

#[derive(Debug)]
struct Pending {
    request: InputRequest,
    answer: oneshot::Sender<Value>,
}

impl Entry {
    fn alive(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// Whether the entry may be forgotten at `now`: finished, past its time to live, and (if
    /// it finished late) read for a while after.
    fn forgotten(&self, now: Instant) -> bool {
        let Some(finished) = self.finished else {
            return false;
        };
        now >= self.created + self.ttl && now >= finished + GRACE.min(self.ttl)
    }

    fn detailed(&self) -> DetailedTask {
        let payload = match &self.phase {
            Phase::Finished(payload) => payload.clone(),
            Phase::Running { pending, .. } if pending.is_empty() => TaskPayload::Working,
            Phase::Running { pending, .. } => TaskPayload::InputRequired {
                input_requests: pending
                    .iter()
                    .map(|(key, pending)| (key.clone(), pending.request.clone()))
                    .collect(),
            },
        };
        DetailedTask::new(self.task.clone(), payload)
    }

    fn touch(&mut self, status: TaskStatus) {
        self.task.status = status;
        self.task.last_updated_at = rfc3339_now();
    }
}

impl MemoryStore {
    /// Creates a task (working) for `new`, or refuses when the tool has its `max_alive` tasks
    /// alive; forgets what has expired first, and the oldest finished tasks of the tool past
    /// what it keeps.
    pub(crate) fn create(&self, new: NewTask<'_>) -> Result<(Task, MemoryHandle), AtLimit> {
        let now = Instant::now();
        let mut entries = lock(&self.entries);
        entries.retain(|_, entry| !entry.forgotten(now));
        let max_alive = new.spec.max_alive;
        let of_tool = || entries.values().filter(|entry| entry.tool == new.name);
        if of_tool().filter(|entry| entry.alive()).count() >= max_alive as usize {
            return Err(AtLimit(max_alive));
        }
        let mut finished: Vec<(Instant, String)> = entries
            .iter()
            .filter_map(|(id, entry)| {
                (entry.tool == new.name).then_some((entry.finished?, id.clone()))
            })
            .collect();
        let keep = KEPT_PER_ALIVE * max_alive as usize;
        if finished.len() >= keep {
            finished.sort();
            for (_, id) in &finished[..=finished.len() - keep] {
                entries.remove(id);
            }
        }
        let id = task_id();
        let stamp = rfc3339_now();
        let task = Task::new(id.clone(), TaskStatus::Working, stamp.clone(), stamp)
            .with_ttl_ms(new.spec.ttl_ms)
            .with_poll_interval_ms(new.spec.poll_interval_ms);
        let cancellation = CancellationToken::new();
        entries.insert(
            id.clone(),
            Entry {
                tool: new.name,
                owner: new.owner,
                task: task.clone(),
                phase: Phase::Running {
                    pending: BTreeMap::new(),
                    used: HashSet::new(),
                },
                cancellation: cancellation.clone(),
                created: now,
                ttl: Duration::from_millis(new.spec.ttl_ms),
                finished: None,
                idempotency: new.idempotency,
            },
        );
        let handle = MemoryHandle {
            store: self.clone(),
            id,
            cancellation,
        };
        Ok((task, handle))
    }

    /// The alive task of `tool` that `owner` created with this idempotency key and arguments.
    pub(crate) fn by_idempotency(
        &self,
        tool: &str,
        owner: Option<&str>,
        idempotency: &str,
    ) -> Option<Task> {
        let entries = lock(&self.entries);
        entries
            .values()
            .find(|entry| {
                entry.tool == tool
                    && entry.alive()
                    && entry.owner.as_deref() == owner
                    && entry.idempotency.as_deref() == Some(idempotency)
            })
            .map(|entry| entry.task.clone())
    }

    /// Runs `read` on the task `id` if `owner` created it.
    fn with<T>(
        &self,
        id: &str,
        owner: Option<&str>,
        read: impl FnOnce(&mut Entry) -> T,
    ) -> Found<T> {
        let now = Instant::now();
        let mut entries = lock(&self.entries);
        match entries.get_mut(id) {
            Some(entry) if entry.forgotten(now) => {
                entries.remove(id);
                Found::Unknown
            }
            Some(entry) if entry.owner.as_deref() == owner => Found::Yours(read(entry)),
            _ => Found::Unknown,
        }
    }

    /// Whether a task with this id is kept here, whoever created it.
    pub(crate) fn holds(&self, id: &str) -> bool {
        lock(&self.entries).contains_key(id)
    }

    /// The task as `tasks/get` shows it.
    pub(crate) fn get(&self, id: &str, owner: Option<&str>) -> Found<DetailedTask> {
        self.with(id, owner, |entry| entry.detailed())
    }

    /// Hands each answer whose key is outstanding to the body that asked; other keys (never
    /// asked, answered already) are ignored, as the extension says.
    pub(crate) fn answer(
        &self,
        id: &str,
        owner: Option<&str>,
        mut answers: BTreeMap<String, Value>,
    ) -> Found<()> {
        self.with(id, owner, |entry| {
            let Phase::Running { pending, .. } = &mut entry.phase else {
                return;
            };
            let answered: Vec<String> = pending
                .keys()
                .filter(|key| answers.contains_key(*key))
                .cloned()
                .collect();
            for key in answered {
                if let (Some(pending), Some(answer)) = (pending.remove(&key), answers.remove(&key))
                {
                    // The body may have stopped meanwhile; then nobody waits for it.
                    let _ = pending.answer.send(answer);
                }
            }
            let status = if pending.is_empty() {
                TaskStatus::Working
            } else {
                TaskStatus::InputRequired
            };
            entry.touch(status);
        })
    }

    /// Cancels a running task: it reads `cancelled` at once and its body is stopped. A
    /// finished task is left as it is.
    pub(crate) fn cancel(&self, id: &str, owner: Option<&str>) -> Found<()> {
        self.with(id, owner, |entry| {
            if entry.alive() {
                entry.phase = Phase::Finished(TaskPayload::Cancelled);
                entry.finished = Some(Instant::now());
                entry.touch(TaskStatus::Cancelled);
                entry.cancellation.cancel();
            }
        })
    }
}

/// A running task's side of the store: its id, its cancellation, a way to ask the client, and
/// its end.
#[derive(Debug, Clone)]
pub(crate) struct MemoryHandle {
    store: MemoryStore,
    id: String,
    cancellation: CancellationToken,
}

impl MemoryHandle {
    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Cancelled by `tasks/cancel` or at expiry.
    pub(crate) fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Puts `request` to the client under `key` (the task reads `input_required` until every
    /// outstanding key is answered) and waits for the answer `tasks/update` brings.
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        let (answer, answered) = oneshot::channel();
        {
            let mut entries = lock(&self.store.entries);
            let entry = entries.get_mut(&self.id).ok_or(AskError::Ended)?;
            let Phase::Running { pending, used } = &mut entry.phase else {
                return Err(AskError::Ended);
            };
            if !used.insert(key.to_owned()) {
                return Err(AskError::KeyUsed);
            }
            pending.insert(key.to_owned(), Pending { request, answer });
            entry.touch(TaskStatus::InputRequired);
        }
        answered.await.map_err(|_| AskError::Ended)
    }

    /// Ends the task with `payload`, unless it ended already (cancelled meanwhile).
    pub(crate) fn finish(&self, payload: TaskPayload, status_message: Option<String>) {
        let mut entries = lock(&self.store.entries);
        if let Some(entry) = entries.get_mut(&self.id)
            && entry.alive()
        {
            let status = payload.status();
            entry.phase = Phase::Finished(payload);
            entry.finished = Some(Instant::now());
            entry.task.status_message = status_message;
            entry.touch(status);
        }
    }

    /// Whether the task was cancelled by `tasks/cancel` (it already reads `cancelled`).
    pub(crate) fn was_cancelled(&self) -> bool {
        let entries = lock(&self.store.entries);
        entries
            .get(&self.id)
            .is_none_or(|entry| matches!(entry.phase, Phase::Finished(TaskPayload::Cancelled)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::TaskSpec;
    use harness_contract::TaskSupport;

    const SPEC: TaskSpec = TaskSpec {
        support: TaskSupport::Optional,
        ttl_ms: 60_000,
        poll_interval_ms: 500,
        max_alive: 2,
        ask_first: &[],
        store: harness_contract::RateLimitBackend::Memory,
        lease_ms: 30_000,
    };

    fn new(owner: Option<&str>) -> NewTask<'static> {
        NewTask {
            name: "slow",
            spec: &SPEC,
            owner: owner.map(str::to_owned),
            idempotency: None,
        }
    }

    #[test]
    fn past_max_alive_no_task_is_created_until_one_finishes() {
        let store = MemoryStore::default();
        let (_, first) = store.create(new(None)).unwrap();
        let _second = store.create(new(None)).unwrap();
        assert_eq!(store.create(new(None)).unwrap_err(), AtLimit(2));
        first.finish(TaskPayload::Cancelled, None);
        assert!(store.create(new(None)).is_ok());
    }

    #[test]
    fn finished_tasks_are_kept_only_up_to_their_bound() {
        let store = MemoryStore::default();
        let mut ids = Vec::new();
        for _ in 0..20 {
            let (task, handle) = store.create(new(None)).unwrap();
            handle.finish(TaskPayload::Cancelled, None);
            ids.push(task.task_id);
        }
        let kept = ids
            .iter()
            .filter(|id| matches!(store.get(id, None), Found::Yours(_)))
            .count();
        assert_eq!(kept, KEPT_PER_ALIVE * 2);
        // The newest are the ones kept.
        assert!(matches!(
            store.get(ids.last().unwrap(), None),
            Found::Yours(_)
        ));
        assert!(matches!(store.get(&ids[0], None), Found::Unknown));
    }

    #[test]
    fn another_subjects_task_is_unknown() {
        let store = MemoryStore::default();
        let (task, _handle) = store.create(new(Some("alice"))).unwrap();
        assert!(matches!(
            store.get(&task.task_id, Some("alice")),
            Found::Yours(_)
        ));
        assert!(matches!(
            store.get(&task.task_id, Some("mallory")),
            Found::Unknown
        ));
        assert!(matches!(store.get(&task.task_id, None), Found::Unknown));
        assert!(matches!(
            store.cancel(&task.task_id, Some("mallory")),
            Found::Unknown
        ));
        assert!(matches!(
            store.get(&task.task_id, Some("alice")),
            Found::Yours(task) if task.status() == TaskStatus::Working
        ));
    }

    #[tokio::test]
    async fn an_answer_reaches_the_body_and_unknown_keys_are_ignored() {
        let store = MemoryStore::default();
        let (task, handle) = store.create(new(None)).unwrap();
        let request: InputRequest = serde_json::from_value(serde_json::json!({
            "method": "roots/list", "params": {}
        }))
        .unwrap();
        let asking = tokio::spawn({
            let handle = handle.clone();
            let request = request.clone();
            async move { handle.ask("roots", request).await }
        });
        // Wait until the question is outstanding.
        loop {
            if let Found::Yours(detailed) = store.get(&task.task_id, None)
                && detailed.status() == TaskStatus::InputRequired
            {
                break;
            }
            tokio::task::yield_now().await;
        }
        let answers = BTreeMap::from([
            ("unknown".to_owned(), serde_json::json!({"x": 1})),
            ("roots".to_owned(), serde_json::json!({"roots": []})),
        ]);
        assert!(matches!(
            store.answer(&task.task_id, None, answers),
            Found::Yours(())
        ));
        assert_eq!(asking.await.unwrap(), Ok(serde_json::json!({"roots": []})));
        assert_eq!(handle.ask("roots", request).await, Err(AskError::KeyUsed));
    }
}
