//! Two timers on a connection's wait for a request head, where hyper has one. hyper 1's
//! HTTP/1 server starts its header-read timer as soon as it waits for a request (on a fresh
//! connection, and again after every response), so alone it cannot tell a client that is
//! silent between calls (keep-alive idle) from one that stalls halfway through its headers
//! (a slow-header attack). Here each connection counts the reads that brought bytes
//! ([`Reads`], counted by the edge's stream), and the timer hyper asks for ([`HeadTimer`]) waits in two phases:
//! `keep_alive_idle` while no byte has come since the wait began (`first_byte` instead on a
//! connection that has never sent one), then `header_read` from the first byte on. Either one running out closes the connection, as hyper's own timer
//! does (no response is written).
//!
//! hyper uses the timer of an HTTP/1 server connection for that wait only (its other timed
//! waits are HTTP/2's and the client's). A client that pipelines, sending part of its next
//! request before the previous reply is written, has that part counted before the wait
//! begins, so its wait counts as idle: still bounded, by `keep_alive_idle`.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};

/// The number of reads that brought bytes on one connection.
pub(crate) type Reads = Arc<AtomicU64>;

/// The timer of one connection (see the module doc).
#[derive(Debug, Clone)]
pub(crate) struct HeadTimer {
    /// The connection's reads.
    pub(crate) reads: Reads,
    /// How long the connection may stay silent between requests.
    pub(crate) keep_alive_idle: Duration,
    /// How long a new connection may stay silent before its first byte.
    pub(crate) first_byte: Duration,
    /// How long a head may take from its first byte.
    pub(crate) header_read: Duration,
}

impl Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    /// The wait for a head that hyper begins now (its `deadline` is now plus the
    /// header-read timeout it was given, which is `header_read`).
    fn sleep_until(&self, _deadline: Instant) -> Pin<Box<dyn Sleep>> {
        let reads_at_start = self.reads.load(Ordering::Relaxed);
        // No byte yet on this connection: it is waiting for its first.
        let silence = if reads_at_start == 0 {
            self.first_byte
        } else {
            self.keep_alive_idle
        };
        let idle_until = tokio::time::Instant::now() + silence;
        Box::pin(HeadWait {
            reads: Arc::clone(&self.reads),
            reads_at_start,
            header_read: self.header_read,
            idle: true,
            sleep: tokio::time::sleep_until(idle_until),
        })
    }
}

pin_project_lite::pin_project! {
    /// One wait for a request head: idle until a byte comes, then reading the head.
    struct HeadWait {
        reads: Reads,
        reads_at_start: u64,
        header_read: Duration,
        idle: bool,
        #[pin]
        sleep: tokio::time::Sleep,
    }
}

impl Future for HeadWait {
    type Output = ();

    /// hyper polls this each time a read leaves the head incomplete, so a byte that ends the
    /// idle phase is seen at the read that brought it.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut this = self.project();
        if *this.idle && this.reads.load(Ordering::Relaxed) != *this.reads_at_start {
            *this.idle = false;
            let deadline = tokio::time::Instant::now() + *this.header_read;
            this.sleep.as_mut().reset(deadline);
        }
        this.sleep.poll(cx)
    }
}

impl Sleep for HeadWait {}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer(reads: &Reads) -> HeadTimer {
        HeadTimer {
            reads: Arc::clone(reads),
            keep_alive_idle: Duration::from_secs(60),
            first_byte: Duration::from_secs(5),
            header_read: Duration::from_secs(1),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_wait_runs_out_after_the_idle_time() {
        let reads = Reads::new(AtomicU64::new(1));
        let started = tokio::time::Instant::now();
        timer(&reads).sleep_until(Instant::now()).await;
        assert_eq!(started.elapsed(), Duration::from_secs(60));
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_never_sent_a_byte_waits_the_first_byte_time() {
        let reads = Reads::default();
        let started = tokio::time::Instant::now();
        timer(&reads).sleep_until(Instant::now()).await;
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn a_byte_starts_the_header_read_time() {
        let reads = Reads::new(AtomicU64::new(1));
        let mut wait = timer(&reads).sleep_until(Instant::now());
        assert!(futures::poll!(wait.as_mut()).is_pending());
        tokio::time::advance(Duration::from_secs(30)).await;
        reads.fetch_add(1, Ordering::Relaxed);
        let byte_at = tokio::time::Instant::now();
        wait.await;
        assert_eq!(byte_at.elapsed(), Duration::from_secs(1));
    }
}
