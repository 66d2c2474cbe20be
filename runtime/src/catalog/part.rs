//! The catalog as one part of a server: borrowed from the pipeline, whose state (the
//! manifest, the audit log) it shares with tool calls; its requests live in the files beside
//! this one.

use crate::catalog::record::Began;
use crate::guards::request_limits::Limited;
use crate::pipeline::Pipeline;
use crate::pipeline::refusal::Refusal;
use crate::spec::{ServerSpec, StoreUnreachable};

/// A server's catalog: `tools/list`, `resources/list`, `resources/templates/list`,
/// `resources/read`, `prompts/list`, `prompts/get` and `completion/complete`, each guarded and
/// audited. Borrowed from [`Pipeline::catalog`], whose state (the manifest, the audit log) it
/// shares with tool calls.
#[derive(Debug, Clone, Copy)]
pub struct Catalog<'a> {
    pub(super) pipeline: &'a Pipeline,
}

impl Pipeline {
    /// This server's catalog. (Defined here, beside [`Catalog`], so that the pipeline names
    /// none of its parts.)
    pub fn catalog(&self) -> Catalog<'_> {
        Catalog { pipeline: self }
    }
}

impl Catalog<'_> {
    /// The server's manifest.
    pub(crate) fn server(&self) -> &'static ServerSpec {
        self.pipeline.server()
    }
}

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
