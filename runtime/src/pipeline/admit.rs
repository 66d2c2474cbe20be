//! The checks of a call before its body, in order: the server's in-flight bound, the tool's
//! rate limit, strict validation of the arguments and the idempotency key; and the rest of an
//! admitted call, from the confirmation on. A task call runs the two apart
//! (`pipeline/task.rs`), an inline one together.

use std::future::Future;
use std::sync::atomic::Ordering;

use serde::Serialize;

use crate::context::CallContext;
use crate::error::ToolError;
use crate::guards::rate_limit::Admission;
use crate::pipeline::call::Call;
use crate::pipeline::outcome::Outcome;
use crate::pipeline::refusal::Refusal;
use crate::pipeline::{Admitted, Cleared, Pipeline, ToolState, idempotent};
use crate::spec::StoreUnreachable;
use crate::validate::FromArguments;

impl Pipeline {
    /// The checks before the body: the in-flight bound, the rate limit, strict validation and
    /// the idempotency key. `Err` is how the call ends.
    pub(super) async fn admit<'p, A>(
        &'p self,
        tool: &'p ToolState,
        call: &Call,
        trace_id: &str,
    ) -> Result<Cleared<'p, A>, Box<Outcome>>
    where
        A: FromArguments + Serialize,
    {
        let guards = &tool.spec.guards;
        let refused =
            |refusal, args| Box::new(Outcome::refused(refusal, Some(guards), trace_id, args));
        // First, before anything spends work or a rate-limit admission on a call that is shed.
        let in_flight = match self
            .in_flight
            .as_ref()
            .map(|slots| (slots, slots.try_enter()))
        {
            Some((slots, None)) => {
                return Err(refused(
                    Refusal::ServerBusy(slots.max()),
                    call.raw_arguments(),
                ));
            }
            Some((_, place)) => place,
            None => None,
        };
        if let Some(limiter) = &tool.limiter {
            let subject = call.caller.as_deref().map(|caller| caller.subject.as_str());
            match limiter.acquire(subject).await {
                Admission::Admitted => {}
                Admission::Refused(refused_until) => {
                    tool.counters.rate_limited.fetch_add(1, Ordering::Relaxed);
                    let message = limiter.message(refused_until);
                    return Err(refused(Refusal::RateLimited(message), call.raw_arguments()));
                }
                Admission::StoreUnavailable(reason) => {
                    match self.server.rate_limit_store.when_unreachable {
                        StoreUnreachable::Admit => {
                            tracing::warn!(trace_id, tool = tool.spec.name, %reason, "rate-limit store unreachable; admitting the call unlimited (when_unreachable = \"admit\")");
                        }
                        StoreUnreachable::Refuse => {
                            tracing::warn!(trace_id, tool = tool.spec.name, %reason, "rate-limit store unreachable; refusing the call (when_unreachable = \"refuse\")");
                            return Err(refused(
                                Refusal::RateLimitStoreUnavailable,
                                call.raw_arguments(),
                            ));
                        }
                    }
                }
            }
        }
        let args: A = match call.validated() {
            Ok(args) => args,
            Err(errors) => {
                return Err(refused(
                    Refusal::InvalidArguments(errors),
                    call.raw_arguments(),
                ));
            }
        };
        // The audit hashes the validated arguments, defaults applied.
        let args_json = serde_json::to_value(&args).unwrap_or_else(|_| call.raw_arguments());
        let reservation = match &tool.idempotency {
            // Boxed, as the confirmation is: what a manifest does not use adds nothing to the
            // state every call's future carries.
            Some(store) => {
                Box::pin(idempotent::claim(store, tool.spec, &args_json, trace_id)).await?
            }
            None => None,
        };
        Ok(Cleared {
            _in_flight: in_flight,
            args,
            args_json,
            reservation,
        })
    }

    /// An admitted call from the confirmation on; the idempotency key keeps the reply of a
    /// body that ran.
    pub(super) async fn execute_admitted<A, O, F, Fut>(
        &self,
        tool: &ToolState,
        call: &Call,
        trace_id: &str,
        cleared: Cleared<'_, A>,
        body: F,
    ) -> Outcome
    where
        O: Serialize + 'static,
        F: FnOnce(A, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
    {
        let Cleared {
            _in_flight,
            args,
            args_json,
            reservation,
        } = cleared;
        let admitted = Admitted {
            tool,
            call,
            trace_id,
            args,
            args_json,
        };
        let (outcome, ran) = self.execute(admitted, body).await;
        if let Some(reservation) = reservation {
            Box::pin(idempotent::finish(reservation, &outcome, ran, trace_id)).await;
        }
        outcome
    }
}
