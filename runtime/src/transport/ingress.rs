//! What a streamable HTTP endpoint does with a POST before rmcp sees it, in one middleware:
//! the request counted in flight until its reply has been sent (crate::transport::in_flight),
//! its body read within the limit, a JSON-RPC batch refused (crate::transport::batch), and,
//! on a stateless JSON server, a plain `tools/call` answered by the fast path
//! (crate::transport::fast_path); then its duplicate argument keys marked
//! (crate::transport::duplicate_keys) and, on that server, another plain request answered by
//! the fast path.
//!
//! One middleware rather than a layer each: every axum `from_fn` layer boxes the service
//! behind it for every request, and the fast path had to collect the body the layer before it
//! had just read.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::Method;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::Response;

use crate::transport::fast_path::StatelessAnswer;
use crate::transport::in_flight::{self, InFlight};

/// The endpoint's ingress: where POSTs are counted, the body limit, and the fast path (on a
/// stateless JSON server).
pub(crate) struct Ingress {
    pub(crate) in_flight: Arc<InFlight>,
    pub(crate) max_request_body_bytes: usize,
    pub(crate) fast: Option<Arc<dyn StatelessAnswer>>,
}

/// On a request the fast path's front door read but did not answer
/// (crate::transport::front_door): its plain read already refused it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlainCallRefused;

/// The axum middleware: other methods (a GET's standalone event stream, a DELETE) are not
/// calls and pass as they came.
pub(crate) async fn admit(ingress: Arc<Ingress>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let running = ingress.in_flight.enter();
    in_flight::counted(answer_post(&ingress, request, next).await, running)
}

async fn answer_post(ingress: &Ingress, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    // A request the front door passed on was refused by the plain read already
    // (crate::transport::front_door).
    let try_plain = parts.extensions.get::<PlainCallRefused>().is_none();
    let bytes = match ingress.read(&parts, body, try_plain).await {
        Read::Answered(answer) => return answer,
        Read::Body(bytes) => bytes,
    };
    let bytes = crate::transport::duplicate_keys::marked(&mut parts, bytes);
    if let Some(answer) = ingress
        .fast
        .as_ref()
        .and_then(|fast| fast.answer(&parts, &bytes))
    {
        return answer.await;
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// What [`Ingress::read`] made of a POST's body.
pub(crate) enum Read {
    /// Answered already: refused (too large, a batch), or a plain call answered.
    Answered(Response),
    /// The body, for what comes next.
    Body(Bytes),
}

impl Ingress {
    /// Reads a POST's body within the limit, refuses a batch, and (with `try_plain`, on a
    /// server with the fast path) answers a plain `tools/call`, which is read with a check
    /// for repeated argument keys of its own and so needs no marking pass: the commonest
    /// request first.
    pub(crate) async fn read<B>(&self, parts: &Parts, body: B, try_plain: bool) -> Read
    where
        B: hyper::body::Body<Data = Bytes>,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let bytes =
            match crate::transport::duplicate_keys::read_body(body, self.max_request_body_bytes)
                .await
            {
                Ok(bytes) => bytes,
                Err(refused) => return Read::Answered(refused),
            };
        if try_plain
            && let Some(fast) = &self.fast
            && let Some(answer) = fast.answer_plain_call(parts, &bytes)
        {
            return Read::Answered(answer.await);
        }
        Read::Body(bytes)
    }
}
