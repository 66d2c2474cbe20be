//! The idempotency keys of one tool (`idempotency_key = "<argument>"`): the first call with a
//! key runs and its reply is kept for the window; a repeat with the same arguments gets that
//! reply again without the body running; the same key with other arguments, or while its
//! first call still runs, is refused (as Stripe and draft-ietf-httpapi-idempotency-key-header
//! answer 422 and 409).
//!
//! Keys live in this process (bounded, expired ones evicted first) or, where the manifest's
//! `[rate_limit_store] backend` is `redis`, in Redis, so every replica agrees
//! ([`redis`]). A key is kept as the sha256 of its text, so a long key costs no
//! more than a short one.

mod record;
#[cfg(feature = "redis")]
mod redis;

pub(crate) use self::record::Stored;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::guards::rate_limit::{SharedStore, StoreError};
use crate::spec::{IdempotencySpec, RateLimitBackend, RateLimitStoreSpec};
use crate::sync::lock;

use self::record::Found;

/// Keys one tool remembers in memory; past it expired keys go first, then the oldest finished.
pub(crate) const MAX_KEYS: usize = 10_000;

/// What a key says about a new call.
#[derive(Debug)]
pub(crate) enum Claim<'a> {
    /// The first call with this key: it runs, and its reply is kept (or the key released).
    Fresh(Reservation<'a>),
    /// A repeat: the first call's reply.
    Replay(Stored),
    /// The key was used with other arguments.
    Reused,
    /// The key's first call is still running.
    InFlight,
    /// The store gave no answer (Redis unreachable, or every key in memory running).
    Unavailable(String),
}

/// A key held while its first call runs; dropped unfinished, the key is released.
#[derive(Debug)]
pub(crate) struct Reservation<'a> {
    store: &'a IdempotencyStore,
    key: String,
    #[cfg_attr(
        not(feature = "redis"),
        expect(dead_code, reason = "only a Redis hold records it")
    )]
    digest: String,
    token: String,
    finished: bool,
}

/// The keys of one tool.
#[derive(Debug)]
pub(crate) struct IdempotencyStore {
    window: Duration,
    keys: Keys,
}

#[derive(Debug)]
enum Keys {
    Memory(Mutex<HashMap<String, Entry>>),
    #[cfg(feature = "redis")]
    Redis(self::redis::RedisKeys),
    /// The store could not be set up; every call is refused.
    Broken(StoreError),
}

#[derive(Debug)]
struct Entry {
    digest: String,
    until: Instant,
    state: State,
}

#[derive(Debug)]
enum State {
    Running(String),
    Done(Stored),
}

impl IdempotencyStore {
    /// The keys of tool `tool` of `server`, where `spec` says; `timeout_ms` (the tool's)
    /// bounds how long a running call holds its key in Redis should its replica die.
    pub(crate) fn new(
        spec: &IdempotencySpec,
        timeout_ms: Option<u64>,
        store: &RateLimitStoreSpec,
        shared: &SharedStore,
        server: &str,
        tool: &str,
    ) -> Self {
        let window = Duration::from_secs(spec.window_seconds);
        let keys = match spec.backend {
            RateLimitBackend::Memory => Keys::Memory(Mutex::default()),
            RateLimitBackend::Redis => redis_keys(window, timeout_ms, store, shared, server, tool),
        };
        Self { window, keys }
    }

    /// What keeps the store from working at all, if anything (checked at startup).
    pub(crate) fn setup_error(&self) -> Option<&StoreError> {
        match &self.keys {
            Keys::Broken(error) => Some(error),
            _ => None,
        }
    }

    /// Claims `key` for a call whose validated arguments have digest `digest`.
    pub(crate) async fn claim(&self, key: &str, digest: &str) -> Claim<'_> {
        let key = harness_contract::sha256_hex(key);
        let token = uuid::Uuid::new_v4().as_simple().to_string();
        let found = match &self.keys {
            Keys::Memory(entries) => self.claim_in_memory(entries, &key, digest, &token),
            #[cfg(feature = "redis")]
            Keys::Redis(keys) => keys.claim(&key, digest, &token).await,
            Keys::Broken(error) => Err(error.to_string()),
        };
        match found {
            Err(reason) => Claim::Unavailable(reason),
            Ok(None) => Claim::Fresh(Reservation {
                store: self,
                key,
                digest: digest.to_owned(),
                token,
                finished: false,
            }),
            Ok(Some(found)) if found.digest != digest => Claim::Reused,
            Ok(Some(Found { stored: None, .. })) => Claim::InFlight,
            Ok(Some(Found {
                stored: Some(stored),
                ..
            })) => Claim::Replay(stored),
        }
    }

    fn claim_in_memory(
        &self,
        entries: &Mutex<HashMap<String, Entry>>,
        key: &str,
        digest: &str,
        token: &str,
    ) -> Result<Option<Found>, String> {
        let now = Instant::now();
        // A poisoned lock only means a call panicked holding it; each entry is whole.
        let mut entries = lock(entries);
        if let Some(entry) = entries.get(key).filter(|entry| entry.until > now) {
            return Ok(Some(Found {
                digest: entry.digest.clone(),
                stored: match &entry.state {
                    State::Running(_) => None,
                    State::Done(stored) => Some(stored.clone()),
                },
            }));
        }
        if entries.len() >= MAX_KEYS {
            entries.retain(|_, entry| entry.until > now);
        }
        if entries.len() >= MAX_KEYS {
            let oldest = entries
                .iter()
                .filter(|(_, entry)| matches!(entry.state, State::Done(_)))
                .min_by_key(|(_, entry)| entry.until)
                .map(|(key, _)| key.clone());
            match oldest {
                Some(oldest) => drop(entries.remove(&oldest)),
                None => {
                    return Err(format!(
                        "{MAX_KEYS} calls with idempotency keys are running"
                    ));
                }
            }
        }
        entries.insert(
            key.to_owned(),
            Entry {
                digest: digest.to_owned(),
                until: now + self.window,
                state: State::Running(token.to_owned()),
            },
        );
        Ok(None)
    }
}

impl Reservation<'_> {
    /// Keeps `stored` as the key's reply for the window, or releases the key (`None`: the
    /// call did not finish in a way a repeat should get again).
    pub(crate) async fn finish(mut self, stored: Option<Stored>) {
        self.finished = true;
        match (&self.store.keys, stored) {
            (Keys::Memory(entries), Some(stored)) => {
                let mut entries = lock(entries);
                if let Some(entry) = entries.get_mut(&self.key) {
                    entry.until = Instant::now() + self.store.window;
                    entry.state = State::Done(stored);
                }
            }
            #[cfg(feature = "redis")]
            (Keys::Redis(keys), Some(stored)) => keys.keep(&self.key, &self.digest, &stored).await,
            _ => self.release(),
        }
    }

    fn release(&self) {
        match &self.store.keys {
            Keys::Memory(entries) => {
                let mut entries = lock(entries);
                if entries.get(&self.key).is_some_and(
                    |entry| matches!(&entry.state, State::Running(token) if *token == self.token),
                ) {
                    entries.remove(&self.key);
                }
            }
            #[cfg(feature = "redis")]
            Keys::Redis(keys) => keys.release(&self.key, &self.digest, &self.token),
            Keys::Broken(_) => {}
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.release();
        }
    }
}

#[cfg(feature = "redis")]
fn redis_keys(
    window: Duration,
    timeout_ms: Option<u64>,
    store: &RateLimitStoreSpec,
    shared: &SharedStore,
    server: &str,
    tool: &str,
) -> Keys {
    // A replica that dies mid-call leaves its key held until this lease ends, not the window.
    let lease = timeout_ms
        .map(|ms| Duration::from_millis(ms) + Duration::from_secs(60))
        .unwrap_or(window)
        .min(window);
    match shared.redis(store, tool) {
        Ok(connection) => Keys::Redis(self::redis::RedisKeys::new(
            connection,
            format!("{{{}:{server}:{tool}}}:idempotency", store.key_prefix),
            window,
            lease,
        )),
        Err(error) => Keys::Broken(error),
    }
}

#[cfg(not(feature = "redis"))]
fn redis_keys(
    _window: Duration,
    _timeout_ms: Option<u64>,
    _store: &RateLimitStoreSpec,
    _shared: &SharedStore,
    _server: &str,
    tool: &str,
) -> Keys {
    Keys::Broken(StoreError::NoRedisFeature {
        tool: tool.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> IdempotencyStore {
        IdempotencyStore {
            window: Duration::from_secs(60),
            keys: Keys::Memory(Mutex::default()),
        }
    }

    fn stored() -> Stored {
        Stored {
            reply: serde_json::json!({"result": {}}),
            outcome: "ok".into(),
            error_code: None,
            trace_id: "mcp-00000000".into(),
        }
    }

    #[tokio::test]
    async fn a_full_store_evicts_the_oldest_finished_key_and_refuses_when_all_run() {
        let store = store();
        for index in 0..MAX_KEYS {
            let Claim::Fresh(reservation) = store.claim(&index.to_string(), "d").await else {
                panic!("fresh");
            };
            if index == 0 {
                reservation.finish(Some(stored())).await;
            } else {
                std::mem::forget(reservation);
            }
        }
        assert!(matches!(store.claim("new", "d").await, Claim::Fresh(_)));
        // Key 0 went to make room; `new` released itself when dropped; all others run.
        assert!(matches!(store.claim("0", "d").await, Claim::Fresh(_)));
        let Claim::Fresh(held) = store.claim("held", "d").await else {
            panic!("fresh");
        };
        assert!(matches!(
            store.claim("more", "d").await,
            Claim::Unavailable(_)
        ));
        drop(held);
    }
}
