//! The rate limits of the catalog's requests that reach a body or an upstream (a computed
//! prompt, a template's or an upstream's read, a completion body or an upstream's
//! completion): `[defaults.guards] rate_limit`, one window per request kind, so that a client
//! cannot drive a body or an upstream harder than a tool. What the manifest itself holds (a
//! static resource, a prompt's fixed messages, an enum's members) costs nothing to answer and
//! is not counted.

use crate::guards::rate_limit::{Admission, RateLimiter, SharedStore, StoreError};
use crate::spec::ServerSpec;

/// The request kinds with a window of their own.
pub(crate) const KINDS: [&str; 3] = ["prompts/get", "resources/read", "completion/complete"];

/// One window per request kind, where the manifest's defaults set a rate limit.
#[derive(Debug, Default)]
pub(crate) struct RequestLimits {
    limiters: Vec<(&'static str, RateLimiter)>,
}

impl RequestLimits {
    /// The windows `server`'s `[defaults.guards] rate_limit` asks for (none without one),
    /// sharing `store` with the tools' (a request kind is the window's name in Redis).
    pub(crate) fn new(server: &'static ServerSpec, store: &SharedStore) -> Self {
        let Some(limit) = server.catalog.guards.rate_limit else {
            return Self::default();
        };
        Self {
            limiters: KINDS
                .iter()
                .map(|kind| {
                    let limiter =
                        RateLimiter::new(limit, &server.rate_limit_store, store, server.name, kind);
                    (*kind, limiter)
                })
                .collect(),
        }
    }

    /// Why a window cannot work at all (a Redis-backed limit without its URL...).
    pub(crate) fn setup_error(&self) -> Option<&StoreError> {
        self.limiters
            .iter()
            .find_map(|(_, limiter)| limiter.setup_error())
    }

    /// Counts one `kind` request of `subject` (the caller, for a per-subject limit): admitted,
    /// or refused with the message a client reads, or the store's silence.
    pub(crate) async fn acquire(&self, kind: &str, subject: Option<&str>) -> Limited {
        let Some((_, limiter)) = self.limiters.iter().find(|(name, _)| *name == kind) else {
            return Limited::Admitted;
        };
        match limiter.acquire(subject).await {
            Admission::Admitted => Limited::Admitted,
            Admission::Refused(until) => Limited::Refused(limiter.message(until)),
            Admission::StoreUnavailable(reason) => Limited::StoreUnavailable(reason),
        }
    }
}

/// What a request kind's window decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Limited {
    /// Go on.
    Admitted,
    /// Over the limit: what the client reads.
    Refused(String),
    /// The shared store gave no decision; `[rate_limit_store] when_unreachable` decides.
    StoreUnavailable(String),
}
