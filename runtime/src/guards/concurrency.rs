//! Bounds on calls running at once: `max_concurrent` per tool and `[server] max_in_flight`
//! across the process. Past its bound a call is refused at once, never queued, so a burst
//! costs a refusal each instead of memory and latency for everyone behind it. A place is held
//! by a permit that drops with the call's future: a body that returns, times out, panics or is
//! cancelled gives its place back.

use tokio::sync::{Semaphore, SemaphorePermit};

/// At most `max` holders at once.
#[derive(Debug)]
pub(crate) struct Slots {
    max: u32,
    free: Semaphore,
}

impl Slots {
    /// `max` places.
    pub(crate) fn new(max: u32) -> Self {
        Self {
            max,
            free: Semaphore::new(max as usize),
        }
    }

    /// The bound.
    pub(crate) fn max(&self) -> u32 {
        self.max
    }

    /// A place now, or `None` when all are taken (the caller refuses; nothing waits).
    pub(crate) fn try_enter(&self) -> Option<SemaphorePermit<'_>> {
        self.free.try_acquire().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_past_the_bound_is_refused_until_one_is_given_back() {
        let slots = Slots::new(2);
        let first = slots.try_enter().expect("first place");
        let _second = slots.try_enter().expect("second place");
        assert!(slots.try_enter().is_none());
        drop(first);
        assert!(slots.try_enter().is_some());
    }
}
