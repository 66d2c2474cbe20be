//! A true sliding-window rate limit per tool: at most `calls` admissions in any window of
//! `period`. Admission and bookkeeping happen under one lock, so N concurrent calls never
//! admit more than the limit; a refused call is not recorded (it never ran).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Admissions reserved up front; larger windows grow as calls arrive.
const PREALLOCATED: usize = 64;

/// The limit of one tool.
#[derive(Debug)]
pub struct SlidingWindow {
    calls: u32,
    period: Duration,
    admitted: Mutex<VecDeque<Instant>>,
}

/// A refused call, with when the next one would be admitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refused {
    /// Time until the oldest admission leaves the window.
    pub retry_after: Duration,
}

impl SlidingWindow {
    /// At most `calls` per `period`.
    pub fn new(calls: u32, period: Duration) -> Self {
        Self {
            calls,
            period,
            // The queue grows with admissions; reserving `calls` up front would let a large
            // limit exhaust memory at startup.
            admitted: Mutex::new(VecDeque::with_capacity((calls as usize).min(PREALLOCATED))),
        }
    }

    /// Admits a call now, or says how long to wait.
    pub fn try_acquire(&self) -> Result<(), Refused> {
        self.try_acquire_at(Instant::now())
    }

    /// Admits a call at `now` (for tests with a fixed clock).
    pub fn try_acquire_at(&self, now: Instant) -> Result<(), Refused> {
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

    /// The refusal the model reads, with a retry hint:
    /// `Rate limit exceeded: 3 calls per 60.0s limit reached. Retry after 12.5s.`
    pub fn message(&self, refused: Refused) -> String {
        format!(
            "Rate limit exceeded: {} calls per {:.1}s limit reached. Retry after {:.1}s.",
            self.calls,
            self.period.as_secs_f64(),
            refused.retry_after.as_secs_f64().max(0.1)
        )
    }
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
            limit.message(refused),
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
