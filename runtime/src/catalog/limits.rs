//! The rate limits of the catalog's requests that reach a body or an upstream (see
//! [`crate::guards::request_limits`]), and what the shared store's silence does.

use crate::catalog::part::Catalog;
use crate::catalog::record::Began;
use crate::guards::request_limits::Limited;
use crate::pipeline::refusal::Refusal;
use crate::spec::StoreUnreachable;

impl Catalog<'_> {
    /// Counts a `kind` request that reaches a body or an upstream against `[defaults.guards]
    /// rate_limit` (its caller's window where the limit is per subject): the refusal when it
    /// is over, or when the shared store is silent and `when_unreachable = "refuse"`.
    pub(crate) async fn limit(&self, kind: &'static str, began: &Began) -> Result<(), Refusal> {
        let subject = began
            .caller
            .as_deref()
            .map(|caller| caller.subject.as_str());
        match self.pipeline.request_limits().acquire(kind, subject).await {
            Limited::Admitted => Ok(()),
            Limited::Refused(message) => Err(Refusal::RateLimited(message)),
            Limited::StoreUnavailable(reason) => {
                let trace_id = began.trace_id.as_str();
                match self.server().rate_limit_store.when_unreachable {
                    StoreUnreachable::Admit => {
                        tracing::warn!(trace_id, kind, %reason, "rate-limit store unreachable; admitting the request unlimited (when_unreachable = \"admit\")");
                        Ok(())
                    }
                    StoreUnreachable::Refuse => {
                        tracing::warn!(trace_id, kind, %reason, "rate-limit store unreachable; refusing the request (when_unreachable = \"refuse\")");
                        Err(Refusal::RateLimitStoreUnavailable)
                    }
                }
            }
        }
    }
}
