//! Progress notifications: sent only for a request that carried a progress token, strictly
//! increasing (the specification's "MUST increase"), and at most one per
//! [`MIN_INTERVAL`] except the one that reaches the total.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{ProgressNotificationParam, ProgressToken};

use rmcp::service::{Peer, RoleServer};

use crate::sync::lock;

/// The shortest gap between two progress notifications of one call.
pub(crate) const MIN_INTERVAL: Duration = Duration::from_millis(10);

/// One call's progress token and the last progress it sent.
#[derive(Debug)]
pub(crate) struct ProgressState {
    token: ProgressToken,
    last: Mutex<Option<(f64, Instant)>>,
}

impl ProgressState {
    pub(crate) fn new(token: ProgressToken) -> Self {
        Self {
            token,
            last: Mutex::new(None),
        }
    }

    /// Whether `progress` (of `total`) may be sent at `now`; records it if so.
    fn admit(&self, progress: f64, total: Option<f64>, now: Instant) -> bool {
        let sane = progress.is_finite()
            && progress >= 0.0
            && total.is_none_or(|total| total.is_finite() && total >= progress);
        if !sane {
            return false;
        }
        let mut last = lock(&self.last);
        let finished = total == Some(progress);
        let admitted = match *last {
            None => true,
            Some((previous, at)) => {
                progress > previous && (finished || now.duration_since(at) >= MIN_INTERVAL)
            }
        };
        if admitted {
            *last = Some((progress, now));
        }
        admitted
    }
}

impl ProgressState {
    /// Sends `progress` if it may be sent now; true if sent.
    pub(crate) async fn send(
        &self,
        peer: &Peer<RoleServer>,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> bool {
        if !self.admit(progress, total, Instant::now()) {
            return false;
        }
        let mut param = ProgressNotificationParam::new(self.token.clone(), progress);
        param.total = total;
        param.message = message;
        peer.notify_progress(param).await.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::NumberOrString;

    use super::*;

    fn state() -> ProgressState {
        ProgressState::new(ProgressToken(NumberOrString::String("t".into())))
    }

    #[test]
    fn progress_only_increases() {
        let state = state();
        let start = Instant::now();
        assert!(state.admit(1.0, Some(10.0), start));
        assert!(!state.admit(1.0, Some(10.0), start + MIN_INTERVAL), "equal");
        assert!(
            !state.admit(0.5, Some(10.0), start + MIN_INTERVAL),
            "backwards"
        );
        assert!(state.admit(2.0, Some(10.0), start + MIN_INTERVAL));
    }

    #[test]
    fn progress_is_rate_bounded_but_the_final_value_always_goes() {
        let state = state();
        let start = Instant::now();
        assert!(state.admit(1.0, Some(3.0), start));
        assert!(!state.admit(2.0, Some(3.0), start + Duration::from_millis(1)));
        assert!(state.admit(3.0, Some(3.0), start + Duration::from_millis(2)));
    }

    #[test]
    fn nonsense_values_are_never_sent() {
        let state = state();
        let now = Instant::now();
        for (progress, total) in [
            (f64::NAN, None),
            (-1.0, None),
            (5.0, Some(4.0)),
            (1.0, Some(f64::INFINITY)),
        ] {
            assert!(
                !state.admit(progress, total, now),
                "{progress} of {total:?}"
            );
        }
    }
}
