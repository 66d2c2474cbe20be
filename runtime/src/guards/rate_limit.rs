//! A true sliding-window rate limit per tool: at most `calls` admissions in any window of
//! `period`. Admission and bookkeeping happen under one lock, so N concurrent calls never
//! admit more than the limit; a refused call is not recorded (it never ran).
//!
//! [`RateLimiter`] puts the window where the manifest says: in this process
//! ([`SlidingWindow`]) or in Redis, shared by every replica (`redis_window`, with the `redis`
//! feature).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::spec::{RateLimitBackend, RateLimitSpec, RateLimitStoreSpec};

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

    /// Admits a call at `now` (for tests with a fixed clock).
    pub(crate) fn try_acquire_at(&self, now: Instant) -> Result<(), Refused> {
        // A poisoned lock only means another call panicked while holding it; the queue
        // itself is always consistent, so keep using it.
        let mut admitted = self
            .admitted
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
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

/// A tool's rate limit, wherever its window lives.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    calls: u32,
    period: Duration,
    window: Window,
}

#[derive(Debug)]
enum Window {
    Memory(SlidingWindow),
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
        let window = match spec.backend {
            RateLimitBackend::Memory => Window::Memory(SlidingWindow::new(spec.calls, period)),
            RateLimitBackend::Redis => Self::redis_window(spec, store, shared, server, tool),
        };
        Self {
            calls: spec.calls,
            period,
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

    /// Admits a call now, refuses it, or reports the shared store unavailable.
    pub(crate) async fn acquire(&self) -> Admission {
        match &self.window {
            Window::Memory(window) => match window.try_acquire() {
                Ok(()) => Admission::Admitted,
                Err(refused) => Admission::Refused(refused),
            },
            #[cfg(feature = "redis")]
            Window::Redis(window) => match window.try_acquire().await {
                Ok(None) => Admission::Admitted,
                Ok(Some(retry_after)) => Admission::Refused(Refused { retry_after }),
                Err(error) => Admission::StoreUnavailable(error.to_string()),
            },
            Window::Broken(error) => Admission::StoreUnavailable(error.to_string()),
        }
    }

    /// The refusal the model reads, with a retry hint:
    /// `Rate limit exceeded: 3 calls per 60.0s limit reached. Retry after 12.5s.`
    pub(crate) fn message(&self, refused: Refused) -> String {
        refusal_message(self.calls, self.period, refused)
    }
}

fn refusal_message(calls: u32, period: Duration, refused: Refused) -> String {
    format!(
        "Rate limit exceeded: {calls} calls per {:.1}s limit reached. Retry after {:.1}s.",
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
            refusal_message(3, Duration::from_secs(60), refused),
            "Rate limit exceeded: 3 calls per 60.0s limit reached. Retry after 30.0s."
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
}
