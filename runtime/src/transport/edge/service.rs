//! The service of one admitted connection: the router, with each request marked in flight on
//! its connection until its response body has been sent or dropped (so that admission never
//! closes a connection mid-request, crate::transport::edge::admission), and the long-lived
//! event streams a GET opens (legacy SSE's `/sse`, streamable HTTP's standalone stream)
//! bounded by `max_streams`, so that streams cannot fill `max_connections` either: past the
//! bound, a GET asking for one is answered 503 before it reaches the router.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, Response, StatusCode, header};
use futures::future::{Either, Ready, ready};
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper_util::service::{TowerToHyperService, TowerToHyperServiceFuture};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::sync::lock;
use crate::transport::edge::admission::{InRequest, Requests};
use crate::transport::front_door::{AnswerBox, FrontDoor};

/// The router (and the fast path's front door, when the server has one) as one
/// connection's hyper service.
pub(crate) struct ConnectionService {
    router: TowerToHyperService<Router>,
    front_door: Option<Arc<FrontDoor>>,
    requests: Requests,
    streams: Arc<Semaphore>,
    /// The box of the front door's last answer, handed back when it answered: an HTTP/1
    /// connection answers one request at a time, so one box serves all of them.
    spare: Arc<Mutex<Option<AnswerBox>>>,
}

impl ConnectionService {
    /// `router`, behind `front_door`, serving the connection whose requests `requests`
    /// counts; GET streams take a permit of `streams`.
    pub(crate) fn new(
        router: Router,
        front_door: Option<Arc<FrontDoor>>,
        requests: Requests,
        streams: Arc<Semaphore>,
    ) -> Self {
        Self {
            router: TowerToHyperService::new(router),
            front_door,
            requests,
            streams,
            spare: Arc::default(),
        }
    }
}

type RouterFuture = TowerToHyperServiceFuture<Router, Request<Incoming>>;

/// What answers a request: a refusal made here, the front door, or the router.
type AnswerFuture =
    Either<Either<Ready<Result<Response<Body>, Infallible>>, FrontDoorFuture>, RouterFuture>;

/// The front door's answer, whose box goes back to its connection once it has answered.
struct FrontDoorFuture {
    answer: Option<AnswerBox>,
    spare: Arc<Mutex<Option<AnswerBox>>>,
}

impl Future for FrontDoorFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let answer = self.answer.as_mut().expect("polled after it answered");
        let response = ready!(answer.poll(cx));
        let answer = self.answer.take();
        *lock(&self.spare) = answer;
        Poll::Ready(Ok(response))
    }
}

impl hyper::service::Service<Request<Incoming>> for ConnectionService {
    type Response = Response<EdgeBody>;
    type Error = Infallible;
    type Future = Answering;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let in_request = self.requests.begin();
        let stream = if opens_a_stream(&request) {
            match Arc::clone(&self.streams).try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    return Answering {
                        call: Either::Left(Either::Left(ready(Ok(too_many_streams())))),
                        held: Some((in_request, None)),
                    };
                }
            }
        } else {
            None
        };
        let call = match &self.front_door {
            Some(door) if door.takes(&request) => {
                let spare = lock(&self.spare).take();
                Either::Left(Either::Right(FrontDoorFuture {
                    answer: Some(door.answer(request, spare)),
                    spare: Arc::clone(&self.spare),
                }))
            }
            _ => Either::Right(self.router.call(request)),
        };
        Answering {
            call,
            held: Some((in_request, stream)),
        }
    }
}

/// Whether `request` asks for a long-lived event stream: a GET accepting
/// `text/event-stream` (a POST's reply stream ends with its reply).
fn opens_a_stream(request: &Request<Incoming>) -> bool {
    request.method() == Method::GET
        && request
            .headers()
            .get_all(header::ACCEPT)
            .iter()
            .any(|accept| {
                accept
                    .to_str()
                    .is_ok_and(|accept| accept.contains("text/event-stream"))
            })
}

/// What a GET for a stream gets while `max_streams` are open.
fn too_many_streams() -> Response<Body> {
    let mut response = Response::new(Body::from("too many streams\n"));
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

pin_project_lite::pin_project! {
    /// A request being answered: the router's or the front door's future (or the refusal),
    /// and what the response body will hold once it comes.
    pub(crate) struct Answering {
        #[pin]
        call: AnswerFuture,
        held: Option<(InRequest, Option<OwnedSemaphorePermit>)>,
    }
}

impl Future for Answering {
    type Output = Result<Response<EdgeBody>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.call.poll(cx))?;
        let (in_request, stream) = this.held.take().expect("polled after it answered");
        Poll::Ready(Ok(response.map(|inner| EdgeBody {
            inner,
            _in_request: in_request,
            _stream: stream,
        })))
    }
}

pin_project_lite::pin_project! {
    /// A response body that keeps its request in flight (and its stream's permit) until it
    /// has been sent or dropped, forwarding everything else, the size hint included.
    pub(crate) struct EdgeBody {
        #[pin]
        inner: Body,
        _in_request: InRequest,
        _stream: Option<OwnedSemaphorePermit>,
    }
}

impl hyper::body::Body for EdgeBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        self.project().inner.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
