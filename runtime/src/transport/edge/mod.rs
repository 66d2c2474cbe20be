//! The HTTP edge: how `serve` accepts and holds connections, where `axum::serve` would hold
//! any connection forever (it installs no header-read timer). Every connection is served by
//! hyper's HTTP/1 server with the manifest's limits: a request head must arrive within
//! `header_read_timeout` of its first byte, a connection that sends no byte within
//! `first_byte_timeout` of its accept is closed, and one silent between requests after
//! `keep_alive_idle` (crate::transport::head_timer); a head over `max_headers` fields or
//! `max_header_bytes` bytes gets 431 from hyper itself. At most `max_connections` are open at
//! once, and idle connections cannot hold them: at the limit, the one idle longest gives its
//! place to the new one (admission); only when every connection has a request in flight or
//! a stream open is the new one answered 503 with `Connection: close` (refusal), so a client
//! learns why instead of waiting in the kernel's backlog. Long-lived GET streams are bounded
//! by `max_streams` (service). The request timeout
//! is a layer of the router (crate::transport::http), so an embedding application gets it
//! too. On shutdown the listener closes, idle connections close at once, and requests in
//! progress finish first (hyper's graceful shutdown, through hyper-util).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::spec::TransportSpec;
use crate::transport::front_door::FrontDoor;
use crate::transport::head_timer::{HeadTimer, Reads};

use self::admission::{Connections, Place};
use self::refusal::Refusals;
use self::service::ConnectionService;

mod admission;
mod open_files;
mod refusal;
mod service;

pub(crate) use self::open_files::allow_open_files;

/// The limits every HTTP connection is held to (`[transport]` of the manifest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// How long a request head may take from its first byte.
    pub header_read_timeout: Duration,
    /// How long a connection may wait silent for a request between two.
    pub keep_alive_idle: Duration,
    /// How long a new connection may wait before its first byte.
    pub first_byte_timeout: Duration,
    /// How long a request may take until its response begins (408 past it).
    pub request_timeout: Duration,
    /// Most header fields per request (431 past it).
    pub max_headers: usize,
    /// Largest request head in bytes (431 past it).
    pub max_header_bytes: usize,
    /// Most connections open at once (past it, an idle one gives way; 503 when none is idle).
    pub max_connections: usize,
    /// Most long-lived GET event streams open at once (503 past it).
    pub max_streams: usize,
}

impl HttpLimits {
    /// The limits `transport` states.
    pub fn from_spec(transport: &TransportSpec) -> Self {
        let count = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
        Self {
            header_read_timeout: Duration::from_millis(transport.header_read_timeout_ms),
            keep_alive_idle: Duration::from_millis(transport.keep_alive_idle_ms),
            first_byte_timeout: Duration::from_millis(transport.first_byte_timeout_ms),
            request_timeout: Duration::from_millis(transport.request_timeout_ms),
            max_headers: count(transport.max_headers),
            max_header_bytes: count(transport.max_header_bytes),
            max_connections: count(transport.max_connections),
            max_streams: count(transport.max_streams),
        }
    }
}

impl Default for HttpLimits {
    /// The manifest's defaults.
    fn default() -> Self {
        Self::from_spec(&TransportSpec::stdio())
    }
}

/// hyper's own header count: up to it the header array lives on the stack; any other
/// limit puts it on the heap for every request.
const HYPER_MAX_HEADERS: usize = 100;

/// Serves `router` on `listener` within `limits` until `stop` is cancelled; then stops
/// accepting and returns once every connection has closed (requests in progress finish
/// first).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    front_door: Option<Arc<FrontDoor>>,
    limits: HttpLimits,
    stop: CancellationToken,
) {
    let connections = Connections::new(limits.max_connections);
    let streams = Arc::new(Semaphore::new(limits.max_streams));
    let refusals = Refusals::default();
    let graceful = GracefulShutdown::new();
    loop {
        let stream = tokio::select! {
            accepted = accept(&listener) => match accepted {
                Ok(stream) => stream,
                Err(error) => {
                    tokio::select! {
                        () = accept_failed(error) => continue,
                        () = stop.cancelled() => break,
                    }
                }
            },
            () = stop.cancelled() => break,
        };
        let reads = Reads::default();
        let Some(place) = connections.admit(Arc::clone(&reads)) else {
            refusals.refuse(stream);
            continue;
        };
        let connection = Arc::clone(place.connection());
        let service = ConnectionService::new(
            router.clone(),
            front_door.clone(),
            place.requests(),
            Arc::clone(&streams),
        );
        let io = TokioIo::new(EdgeStream {
            place: Some(place),
            reads: Arc::clone(&reads),
            stream,
        });
        let served = builder(&limits, reads).serve_connection(io, service);
        let served = graceful.watch(served);
        tokio::spawn(async move {
            tokio::select! {
                ended = served => if let Err(error) = ended {
                    tracing::debug!(%error, "connection ended with an error");
                },
                // Dropping the connection closes its socket: it had nothing in flight.
                () = connection.evicted() => {
                    tracing::debug!("idle connection closed to admit a new one");
                }
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// One connection's socket, counting the reads that brought bytes (for its head timer and
/// for admission) and holding its place among `max_connections`. The place is given back
/// before the socket closes (at its shutdown, or first in the drop order), so a client that
/// has seen the close finds it free.
struct EdgeStream {
    place: Option<Place>,
    reads: Reads,
    stream: TcpStream,
}

impl AsyncRead for EdgeStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.reads.fetch_add(1, Ordering::Relaxed);
        }
        polled
    }
}

impl AsyncWrite for EdgeStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.place = None;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The HTTP/1 server of one connection, its timer counting `reads`.
fn builder(limits: &HttpLimits, reads: Reads) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(HeadTimer {
            reads,
            keep_alive_idle: limits.keep_alive_idle,
            first_byte: limits.first_byte_timeout,
            header_read: limits.header_read_timeout,
        })
        .header_read_timeout(limits.header_read_timeout)
        .max_header_size(limits.max_header_bytes)
        .keep_alive(true);
    if limits.max_headers != HYPER_MAX_HEADERS {
        builder.max_headers(limits.max_headers);
    }
    builder
}

/// Connections the kernel completes and queues before `serve` accepts them. tokio's
/// `TcpListener::bind` asks for 1024; a burst past that drops SYNs, and each dropped SYN
/// costs its client a retransmit (1 s, then 3 s, 7 s, ...) before the edge even sees it.
/// Linux caps the number at `net.core.somaxconn` (4096 by default since 5.4).
const LISTEN_BACKLOG: u32 = 4096;

/// Binds a listener with [`LISTEN_BACKLOG`] (address reuse on, as `TcpListener::bind` has
/// it on Unix, so a restarted server rebinds past connections in TIME_WAIT).
pub(crate) fn listen(addr: std::net::SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// The next connection, with TCP_NODELAY: without it a reply written in pieces (stateful
/// sessions and SSE stream their replies) waits out the client's delayed ACK, about 40 ms
/// per call instead of about 60 µs.
pub(crate) async fn accept(listener: &TcpListener) -> io::Result<TcpStream> {
    let (stream, _) = listener.accept().await?;
    if let Err(error) = stream.set_nodelay(true) {
        tracing::warn!(%error, "cannot set TCP_NODELAY; replies may be delayed");
    }
    Ok(stream)
}

/// After a failed accept: nothing for a connection the client gave up on; otherwise (out
/// of file descriptors, most likely) a logged error and a second's pause, as hyper's and
/// axum's servers do, so the loop does not spin while connections close.
async fn accept_failed(error: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(%error, "cannot accept a connection");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

#[cfg(test)]
mod tests;
