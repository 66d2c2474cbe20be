//! A true sliding-window rate limit per tool: at most `calls` admissions in any window of
//! `period`. Admission and bookkeeping happen under one lock, so N concurrent calls never
//! admit more than the limit; a refused call is not recorded (it never ran).
//!
//! [`RateLimiter`] puts the window where the manifest says: in this process
//! ([`SlidingWindow`]) or in Redis, shared by every replica (`redis_window`, with the `redis`
//! feature); and counts either every caller of the tool together or each token subject in a
//! window of its own (`per = "subject"`, [`SubjectWindows`] in memory).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::spec::{RateLimitBackend, RateLimitScope, RateLimitSpec, RateLimitStoreSpec};
use crate::sync::lock;

/// Admissions reserved up front; larger windows grow as calls arrive.
const PREALLOCATED: usize = 64;

/// The limit of one tool.
#[derive(Debug)]
pub(crate) struct SlidingWindow {
    calls: u32,
    period: Duration,
    admitted: Mutex<VecDeque<Instant>>,
}

/// A refused call, with when the next one would be admitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Refused {
    /// Time until the oldest admission leaves the window.
    pub retry_after: Duration,
}

impl SlidingWindow {
    /// At most `calls` per `period`.
    pub(crate) fn new(calls: u32, period: Duration) -> Self {
        Self {
            calls,
            period,
            // The queue grows with admissions; reserving `calls` up front would let a large
            // limit exhaust memory at startup.
            admitted: Mutex::new(VecDeque::with_capacity((calls as usize).min(PREALLOCATED))),
        }
    }

    /// Admits a call now, or says how long to wait.
    pub(crate) fn try_acquire(&self) -> Result<(), Refused> {
        self.try_acquire_at(Instant::now())
    }

    /// Whether every admission has left the window at `now` (the window can be forgotten).
    fn is_idle_at(&self, now: Instant) -> bool {
        let admitted = lock(&self.admitted);
        admitted
            .back()
            .is_none_or(|newest| now.saturating_duration_since(*newest) >= self.period)
    }

    /// Admits a call at `now` (for tests with a fixed clock).
    pub(crate) fn try_acquire_at(&self, now: Instant) -> Result<(), Refused> {
        // A poisoned lock only means another call panicked while holding it; the queue
        // itself is always consistent, so keep using it.
        let mut admitted = lock(&self.admitted);
        while admitted
            .front()
            .is_some_and(|oldest| now.saturating_duration_since(*oldest) >= self.period)
        {
            admitted.pop_front();
        }
        if admitted.len() < self.calls as usize {
            admitted.push_back(now);
            return Ok(());
        }
        let oldest = *admitted.front().expect("a full window is not empty");
        Err(Refused {
            retry_after: (oldest + self.period).saturating_duration_since(now),
        })
    }
}

/// Subjects whose windows are kept before idle ones are forgotten (the count doubles past
/// it when every window is still in use: subjects are those of accepted tokens, so only
/// real callers add windows).
const SUBJECTS_BEFORE_PRUNING: usize = 1024;

/// One sliding window per subject, made on the subject's first call.
#[derive(Debug)]
pub(crate) struct SubjectWindows {
    calls: u32,
    period: Duration,
    windows: Mutex<(HashMap<String, Arc<SlidingWindow>>, usize)>,
}

impl SubjectWindows {
    pub(crate) fn new(calls: u32, period: Duration) -> Self {
        Self {
            calls,
            period,
            windows: Mutex::new((HashMap::new(), SUBJECTS_BEFORE_PRUNING)),
        }
    }

    /// Admits a call of `subject` at `now`, or says how long it waits.
    pub(crate) fn try_acquire_at(&self, subject: &str, now: Instant) -> Result<(), Refused> {
        let window = {
            let mut guard = lock(&self.windows);
            let (windows, prune_at) = &mut *guard;
            if !windows.contains_key(subject) && windows.len() >= *prune_at {
                windows.retain(|_, window| !window.is_idle_at(now));
                *prune_at = (windows.len() * 2).max(SUBJECTS_BEFORE_PRUNING);
            }
            Arc::clone(
                windows
                    .entry(subject.to_owned())
                    .or_insert_with(|| Arc::new(SlidingWindow::new(self.calls, self.period))),
            )
        };
        window.try_acquire_at(now)
    }

    /// Windows kept (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.windows.lock().unwrap().0.len()
    }
}

/// A tool's rate limit, wherever its window lives.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    calls: u32,
    period: Duration,
    per: RateLimitScope,
    window: Window,
}

#[derive(Debug)]
enum Window {
    Memory(SlidingWindow),
    MemoryPerSubject(SubjectWindows),
    #[cfg(feature = "redis")]
    Redis(super::redis_window::RedisWindow),
    /// The store could not be set up (see [`StoreError`]); every call meets the manifest's
    /// `when_unreachable` policy.
    Broken(StoreError),
}

/// What the limiter decided.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Admission {
    /// Run the call.
    Admitted,
    /// Over the limit.
    Refused(Refused),
    /// The shared store gave no decision; the manifest's `when_unreachable` decides.
    StoreUnavailable(String),
}

/// Why a Redis-backed limit cannot work at all: reported when the server starts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The variable naming the Redis URL is not set.
    #[error(
        "tool `{tool}` keeps its rate limit or idempotency keys in Redis, but ${variable} is not set: set it to the Redis URL, e.g. {variable}=redis://127.0.0.1:6379/0"
    )]
    MissingUrl {
        /// The tool.
        tool: String,
        /// The variable (`[rate_limit_store] url_env`).
        variable: String,
    },
    /// The URL does not parse.
    #[error(
        "${variable} is not a Redis URL ({reason}); expected redis://[user:password@]host[:port][/db]"
    )]
    BadUrl {
        /// The variable.
        variable: String,
        /// What the Redis client said (without the URL, which may carry a password).
        reason: String,
    },
    /// Built without the `redis` feature (generated code refuses to compile then; this
    /// covers hand-written specs).
    #[error(
        "tool `{tool}` keeps its rate limit or idempotency keys in Redis, but harness-runtime was built without its `redis` feature"
    )]
    NoRedisFeature {
        /// The tool.
        tool: String,
    },
}

/// The Redis connection every Redis-backed limit of one server shares, opened on first need.
#[derive(Debug, Default)]
pub(crate) struct SharedStore {
    #[cfg(feature = "redis")]
    redis: std::sync::OnceLock<
        Result<std::sync::Arc<super::redis_window::RedisConnection>, StoreError>,
    >,
}

impl SharedStore {
    /// The server's Redis (opened on the first tool that needs it), or why there is none; a
    /// tool's rate-limit window and its idempotency keys share it.
    #[cfg(feature = "redis")]
    pub(crate) fn redis(
        &self,
        store: &RateLimitStoreSpec,
        tool: &str,
    ) -> Result<std::sync::Arc<super::redis_window::RedisConnection>, StoreError> {
        use super::redis_window::RedisConnection;
        self.redis
            .get_or_init(|| {
                let url = std::env::var(store.url_env)
                    .ok()
                    .filter(|url| !url.is_empty())
                    .ok_or_else(|| StoreError::MissingUrl {
                        tool: tool.to_owned(),
                        variable: store.url_env.to_owned(),
                    })?;
                RedisConnection::open(&url, Duration::from_millis(store.timeout_ms))
                    .map(std::sync::Arc::new)
                    .map_err(|error| StoreError::BadUrl {
                        variable: store.url_env.to_owned(),
                        reason: error.to_string(),
                    })
            })
            .clone()
    }
}

impl RateLimiter {
    /// The limiter of tool `tool` of server `server`, with its window where `spec` says.
    pub(crate) fn new(
        spec: RateLimitSpec,
        store: &RateLimitStoreSpec,
        shared: &SharedStore,
        server: &str,
        tool: &str,
    ) -> Self {
        let period = Duration::from_secs_f64(spec.period_seconds);
        let window = match (spec.backend, spec.per) {
            (RateLimitBackend::Memory, RateLimitScope::Tool) => {
                Window::Memory(SlidingWindow::new(spec.calls, period))
            }
            (RateLimitBackend::Memory, RateLimitScope::Subject) => {
                Window::MemoryPerSubject(SubjectWindows::new(spec.calls, period))
            }
            (RateLimitBackend::Redis, _) => Self::redis_window(spec, store, shared, server, tool),
        };
        Self {
            calls: spec.calls,
            period,
            per: spec.per,
            window,
        }
    }

    #[cfg(feature = "redis")]
    fn redis_window(
        spec: RateLimitSpec,
        store: &RateLimitStoreSpec,
        shared: &SharedStore,
        server: &str,
        tool: &str,
    ) -> Window {
        use super::redis_window::RedisWindow;
        match shared.redis(store, tool) {
            Ok(connection) => Window::Redis(RedisWindow::new(
                connection,
                store.key_prefix,
                server,
                tool,
                spec.calls,
                Duration::from_secs_f64(spec.period_seconds),
            )),
            Err(error) => Window::Broken(error),
        }
    }

    #[cfg(not(feature = "redis"))]
    fn redis_window(
        _spec: RateLimitSpec,
        _store: &RateLimitStoreSpec,
        _shared: &SharedStore,
        _server: &str,
        tool: &str,
    ) -> Window {
        Window::Broken(StoreError::NoRedisFeature {
            tool: tool.to_owned(),
        })
    }

    /// What keeps this limiter from working at all, if anything (checked at startup).
    pub(crate) fn setup_error(&self) -> Option<&StoreError> {
        match &self.window {
            Window::Broken(error) => Some(error),
            _ => None,
        }
    }

    /// Admits a call of `subject` (the caller's token subject, if any) now, refuses it, or
    /// reports the shared store unavailable. A limit per subject counts calls without one
    /// (no `[auth]` caller: the build refuses that manifest, but hand-written specs may) in
    /// one window of their own.
    pub(crate) async fn acquire(&self, subject: Option<&str>) -> Admission {
        let subject = match self.per {
            RateLimitScope::Tool => None,
            RateLimitScope::Subject => Some(subject.unwrap_or("")),
        };
        let decided = |result: Result<(), Refused>| match result {
            Ok(()) => Admission::Admitted,
            Err(refused) => Admission::Refused(refused),
        };
        match &self.window {
            Window::Memory(window) => decided(window.try_acquire()),
            Window::MemoryPerSubject(windows) => {
                decided(windows.try_acquire_at(subject.unwrap_or(""), Instant::now()))
            }
            #[cfg(feature = "redis")]
            // Boxed: a limit kept in memory then pays nothing for the Redis round trip's
            // state in every call's future.
            Window::Redis(window) => match Box::pin(window.try_acquire(subject)).await {
                Ok(None) => Admission::Admitted,
                Ok(Some(retry_after)) => Admission::Refused(Refused { retry_after }),
                Err(error) => Admission::StoreUnavailable(error.to_string()),
            },
            Window::Broken(error) => Admission::StoreUnavailable(error.to_string()),
        }
    }

    /// The refusal the model reads, with a retry hint:
    /// `Rate limit exceeded: 3 calls per 60.0s limit reached. Retry after 12.5s.` (a limit
    /// per subject says it is this caller's).
    pub(crate) fn message(&self, refused: Refused) -> String {
        refusal_message(self.calls, self.period, self.per, refused)
    }
}

fn refusal_message(calls: u32, period: Duration, per: RateLimitScope, refused: Refused) -> String {
    let whose = match per {
        RateLimitScope::Tool => "",
        RateLimitScope::Subject => " for this caller",
    };
    format!(
        "Rate limit exceeded: {calls} calls per {:.1}s limit reached{whose}. Retry after {:.1}s.",
        period.as_secs_f64(),
        refused.retry_after.as_secs_f64().max(0.1)
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn window_slides() {
        let limit = SlidingWindow::new(3, Duration::from_secs(60));
        let start = Instant::now();
        for offset in [0, 10, 20] {
            assert!(
                limit
                    .try_acquire_at(start + Duration::from_secs(offset))
                    .is_ok()
            );
        }
        let refused = limit
            .try_acquire_at(start + Duration::from_secs(30))
            .unwrap_err();
        assert_eq!(refused.retry_after, Duration::from_secs(30));
        assert_eq!(
            refusal_message(3, Duration::from_secs(60), RateLimitScope::Tool, refused),
            "Rate limit exceeded: 3 calls per 60.0s limit reached. Retry after 30.0s."
        );
        assert_eq!(
            refusal_message(3, Duration::from_secs(60), RateLimitScope::Subject, refused),
            "Rate limit exceeded: 3 calls per 60.0s limit reached for this caller. Retry after 30.0s."
        );
        // The first admission leaves the window at 60 s; refused calls were not recorded.
        assert!(
            limit
                .try_acquire_at(start + Duration::from_secs(60))
                .is_ok()
        );
        assert!(
            limit
                .try_acquire_at(start + Duration::from_secs(61))
                .is_err()
        );
    }

    #[test]
    fn a_huge_limit_does_not_reserve_memory_up_front() {
        let limit = SlidingWindow::new(u32::MAX, Duration::from_secs(1));
        assert!(limit.try_acquire().is_ok());
    }

    #[test]
    fn concurrent_callers_never_exceed_the_limit() {
        let limit = Arc::new(SlidingWindow::new(7, Duration::from_secs(3600)));
        let threads: Vec<_> = (0..16)
            .map(|_| {
                let limit = Arc::clone(&limit);
                std::thread::spawn(move || (0..50).filter(|_| limit.try_acquire().is_ok()).count())
            })
            .collect();
        let admitted: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(admitted, 7);
    }

    /// A limiter in memory with `calls` per hour, counted `per`.
    fn limiter(calls: u32, per: RateLimitScope) -> RateLimiter {
        let spec = RateLimitSpec {
            calls,
            period_seconds: 3600.0,
            backend: RateLimitBackend::Memory,
            per,
        };
        RateLimiter::new(
            spec,
            &RateLimitStoreSpec::DEFAULT,
            &SharedStore::default(),
            "s",
            "t",
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_thousand_concurrent_calls_of_ten_subjects_admit_exactly_the_limit_each() {
        let limiter = Arc::new(limiter(37, RateLimitScope::Subject));
        let calls: Vec<_> = (0..1000)
            .map(|call| {
                let limiter = Arc::clone(&limiter);
                tokio::spawn(async move {
                    let subject = format!("client-{}", call % 10);
                    let admitted = limiter.acquire(Some(&subject)).await == Admission::Admitted;
                    (subject, admitted)
                })
            })
            .collect();
        let mut admitted: HashMap<String, usize> = HashMap::new();
        for call in calls {
            let (subject, was_admitted) = call.await.unwrap();
            *admitted.entry(subject).or_default() += usize::from(was_admitted);
        }
        assert_eq!(admitted.len(), 10);
        assert!(admitted.values().all(|count| *count == 37), "{admitted:?}");
    }

    #[tokio::test]
    async fn a_limit_per_tool_counts_every_subject_together() {
        let limiter = limiter(3, RateLimitScope::Tool);
        for subject in ["a", "b", "c"] {
            assert_eq!(limiter.acquire(Some(subject)).await, Admission::Admitted);
        }
        assert!(matches!(
            limiter.acquire(Some("d")).await,
            Admission::Refused(_)
        ));
    }

    #[test]
    fn idle_subjects_are_forgotten_once_many_have_called() {
        let windows = SubjectWindows::new(1, Duration::from_secs(60));
        let start = Instant::now();
        for subject in 0..SUBJECTS_BEFORE_PRUNING {
            windows.try_acquire_at(&subject.to_string(), start).unwrap();
        }
        // Still in their window: nothing to forget, and a busy subject stays refused.
        windows.try_acquire_at("late", start).unwrap();
        assert_eq!(windows.len(), SUBJECTS_BEFORE_PRUNING + 1);
        assert!(windows.try_acquire_at("0", start).is_err());
        // A minute on, every window is idle: the next new subject prunes them.
        let later = start + Duration::from_secs(60);
        for subject in 0..SUBJECTS_BEFORE_PRUNING {
            windows
                .try_acquire_at(&format!("new-{subject}"), later)
                .unwrap();
        }
        assert!(
            windows.len() <= SUBJECTS_BEFORE_PRUNING + 1,
            "{}",
            windows.len()
        );
        assert!(
            windows.try_acquire_at("new-0", later).is_err(),
            "a live window is kept"
        );
    }
}
