//! What a connection gets when every place of `max_connections` is held by a connection with
//! a request in flight: 503 with `Retry-After` and `Connection: close`, written at once
//! (a fresh socket's send buffer always has room for it), so that every refused client
//! learns why, however many are refused at once. Closing a socket whose client has sent
//! bytes the server never read resets it, and a reset can discard the answer before the
//! client reads it: up to [`LINGERING_AT_ONCE`] refused connections are therefore kept
//! open, reading and dropping what their client sends until it closes (at most
//! [`REFUSAL_LINGER`]); past that many, a refused connection is closed after its answer.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// Refused connections kept open at once to deliver their answer without a reset.
const LINGERING_AT_ONCE: usize = 64;

/// The longest a refused connection is kept to deliver its 503.
const REFUSAL_LINGER: Duration = Duration::from_secs(1);

/// What a connection past `max_connections` gets before it is closed.
pub(crate) const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: text/plain; charset=utf-8\r\n\
content-length: 21\r\n\
retry-after: 1\r\n\
connection: close\r\n\
\r\n\
too many connections\n";

/// The refusals of one edge.
#[derive(Debug)]
pub(crate) struct Refusals {
    lingering: Arc<Semaphore>,
}

impl Default for Refusals {
    fn default() -> Self {
        Self {
            lingering: Arc::new(Semaphore::new(LINGERING_AT_ONCE)),
        }
    }
}

impl Refusals {
    /// Answers `stream` 503 and closes it (see the module doc).
    pub(crate) fn refuse(&self, stream: TcpStream) {
        if !matches!(stream.try_write(REFUSAL), Ok(written) if written == REFUSAL.len()) {
            return;
        }
        let Ok(lingering) = Arc::clone(&self.lingering).try_acquire_owned() else {
            return;
        };
        tokio::spawn(async move {
            let _ = tokio::time::timeout(REFUSAL_LINGER, drain(stream)).await;
            drop(lingering);
        });
    }
}

/// Ends the server's side of `stream` and reads until the client closes its own.
async fn drain(mut stream: TcpStream) -> std::io::Result<()> {
    stream.shutdown().await?;
    let mut sink = [0; 1024];
    while stream.read(&mut sink).await? > 0 {}
    Ok(())
}
