//! The stateless fast path's front door: a plain `tools/call` POSTed to a stateless JSON
//! streamable endpoint is answered by the connection's service itself, before axum's router.
//!
//! The router's layers (the request timeout, the route's match, the Host/Origin/token check
//! and the ingress) box a service and a future each for every request: about fifteen
//! allocations a call, more than the guards make. The front door does what they do for the
//! one request it answers (the checks of crate::transport::security, the request timeout, the
//! count in flight and the body read of crate::transport::ingress), then answers a plain call
//! (crate::transport::fast_path); anything else goes on to the router with its body already
//! read, marked so that the ingress does not try the plain read a second time. A server with
//! an OAuth resource server has no front door: its caller is found by the router's auth layer.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, Response, StatusCode};
use hyper::body::Incoming;
use tokio_util::sync::ReusableBoxFuture;
use tower_service::Service;

use crate::transport::in_flight;
use crate::transport::ingress::{Ingress, PlainCallRefused, Read};
use crate::transport::security::HttpSecurity;

/// The front door's answer to one request, in a box its connection can use again.
pub(crate) type AnswerBox = ReusableBoxFuture<'static, Response<Body>>;

/// What the front door of one server answers, and the router it hands the rest to.
pub(crate) struct FrontDoor {
    /// The streamable endpoint's paths.
    pub(crate) paths: Vec<String>,
    pub(crate) security: Arc<HttpSecurity>,
    /// The streamable endpoint's ingress (with the fast path: a front door needs one).
    pub(crate) ingress: Arc<Ingress>,
    /// The router's request timeout: 408 when no response has begun by then.
    pub(crate) request_timeout: Duration,
    pub(crate) router: Router,
}

impl FrontDoor {
    /// Whether the front door takes `request`: a POST to the streamable endpoint that the
    /// security checks let through (a refused one gets its refusal from the router).
    pub(crate) fn takes(&self, request: &Request<Incoming>) -> bool {
        request.method() == Method::POST
            && self.paths.iter().any(|path| path == request.uri().path())
            && self.security.refusal(request.headers()).is_none()
    }

    /// The answer to a request the front door [takes](Self::takes), in `spare` when the
    /// connection has a box left by its last answer (one allocation per connection, not per
    /// call: an answer's state is a few kilobytes, past what the allocator keeps at hand).
    pub(crate) fn answer(
        self: &Arc<Self>,
        request: Request<Incoming>,
        spare: Option<AnswerBox>,
    ) -> AnswerBox {
        let door = Arc::clone(self);
        let answer = async move {
            match tokio::time::timeout(door.request_timeout, door.answer_in_time(request)).await {
                Ok(response) => response,
                // As the router's timeout layer answers.
                Err(_) => {
                    let mut response = Response::new(Body::empty());
                    *response.status_mut() = StatusCode::REQUEST_TIMEOUT;
                    response
                }
            }
        };
        match spare {
            Some(mut boxed) => {
                boxed.set(answer);
                boxed
            }
            None => AnswerBox::new(answer),
        }
    }

    async fn answer_in_time(&self, request: Request<Incoming>) -> Response<Body> {
        let running = self.ingress.in_flight.enter();
        let (mut parts, body) = request.into_parts();
        let bytes = match self.ingress.read(&parts, body, true).await {
            Read::Answered(answer) => return in_flight::counted(answer, running),
            Read::Body(bytes) => bytes,
        };
        parts.extensions.insert(PlainCallRefused);
        let request = Request::from_parts(parts, Body::from(bytes));
        // The router is always ready (axum's `poll_ready` is), so it is called directly.
        let response = match self.router.clone().call(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
        in_flight::counted(response, running)
    }
}
