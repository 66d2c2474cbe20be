//! Requests in flight, so that a graceful shutdown waits for them (and only them). Streamable
//! HTTP counts each POST until its response body has been sent ([`counted`]: the reply
//! itself, whether rmcp or the stateless fast path answers it); the legacy SSE transport,
//! whose replies travel on a separate stream, counts each request while the server handles it
//! ([`Tracked`]).

use std::borrow::Cow;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use rmcp::model::ProtocolVersion;
use rmcp::service::{NotificationContext, RequestContext, RoleServer, Service, ServiceRole};
use tokio::sync::Notify;

/// The requests currently running.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    count: AtomicUsize,
    idle: Notify,
}

impl InFlight {
    /// Counts one request until the guard drops.
    pub(crate) fn enter(self: &Arc<Self>) -> InFlightGuard {
        self.count.fetch_add(1, Ordering::SeqCst);
        InFlightGuard(Arc::clone(self))
    }

    /// Resolves once no request is running.
    pub(crate) async fn wait_idle(&self) {
        loop {
            let notified = self.idle.notified();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// One running request; dropping it ends the count.
pub(crate) struct InFlightGuard(Arc<InFlight>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// `response`, its body holding `running` until it has been sent or abandoned (the
/// streamable HTTP ingress counts every POST so, crate::transport::ingress).
pub(crate) fn counted(response: Response, running: InFlightGuard) -> Response {
    response.map(|body| {
        Body::new(CountedBody {
            inner: body,
            _running: running,
        })
    })
}

/// A response body that holds its request's count until it is dropped (sent, or abandoned by
/// the client), forwarding everything else, the size hint included: a JSON reply keeps its
/// Content-Length.
struct CountedBody {
    inner: Body,
    _running: InFlightGuard,
}

impl hyper::body::Body for CountedBody {
    type Data = <Body as hyper::body::Body>::Data;
    type Error = <Body as hyper::body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// A server whose requests are counted in an [`InFlight`] while they run.
#[derive(Debug, Clone)]
pub(crate) struct Tracked<S> {
    inner: S,
    in_flight: Arc<InFlight>,
}

impl<S> Tracked<S> {
    /// `inner`, counted in `in_flight`.
    pub(crate) fn new(inner: S, in_flight: Arc<InFlight>) -> Self {
        Self { inner, in_flight }
    }
}

impl<S: Service<RoleServer>> Service<RoleServer> for Tracked<S> {
    async fn handle_request(
        &self,
        request: <RoleServer as ServiceRole>::PeerReq,
        context: RequestContext<RoleServer>,
    ) -> Result<<RoleServer as ServiceRole>::Resp, rmcp::ErrorData> {
        let _running = self.in_flight.enter();
        self.inner.handle_request(request, context).await
    }

    async fn handle_notification(
        &self,
        notification: <RoleServer as ServiceRole>::PeerNot,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.inner.handle_notification(notification, context).await
    }

    fn get_info(&self) -> <RoleServer as ServiceRole>::Info {
        self.inner.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waits_until_the_last_request_ends() {
        let in_flight = Arc::new(InFlight::default());
        in_flight.wait_idle().await;
        let first = in_flight.enter();
        let second = in_flight.enter();
        let mut idle = std::pin::pin!(in_flight.wait_idle());
        assert!(futures::poll!(idle.as_mut()).is_pending());
        drop(first);
        assert!(futures::poll!(idle.as_mut()).is_pending());
        drop(second);
        idle.await;
    }
}
