//! Who holds the places of `max_connections`, and who gives one up when a new connection
//! finds them all taken. A place held by a connection that has no request in flight (one that
//! has sent nothing since it was accepted, or is idle between two requests) is only kept for
//! it: at the limit, the connection that has sent nothing for longest is closed to admit the
//! new one, the never-used before the kept-alive, so that idle sockets, however many one
//! client opens, can never shut out a request. A connection with a request in flight, or
//! with a response still streaming, is never closed for another; only when every place is
//! held that way is the new connection refused (503).
//!
//! The hot path pays two atomic operations per request ([`Requests::begin`] and its
//! [`InRequest`] ending). The search for a connection to close runs only at the limit, under
//! the lock that admission and closing already take: connections that never sent a byte are
//! found in accept order at the front of a queue (a flood of idle sockets costs a constant
//! time per new connection), kept-alive ones by a walk over the open connections.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::sync::lock;
use crate::transport::head_timer::Reads;

/// Set in [`Connection::state`] once the connection was closed for another.
const EVICTED: u64 = 1 << 63;

/// How many times admission looks again for an idle connection that a request claimed
/// between being chosen and being closed.
const EVICTION_ATTEMPTS: usize = 4;

/// The open connections of one edge.
#[derive(Debug)]
pub(crate) struct Connections {
    limit: usize,
    started: Instant,
    next_id: AtomicU64,
    open: Mutex<Open>,
}

/// The open connections, and those of them that may never have sent a byte, in accept
/// order (an entry whose connection has since sent one, or closed, is dropped when met).
#[derive(Debug, Default)]
struct Open {
    all: HashMap<u64, Arc<Connection>>,
    unused: VecDeque<Weak<Connection>>,
}

/// One open connection, as admission sees it.
#[derive(Debug)]
pub(crate) struct Connection {
    id: u64,
    /// Requests in flight (a response counts until its body has been sent or dropped), with
    /// [`EVICTED`] set once it was closed for another.
    state: AtomicU64,
    /// Milliseconds from the edge's start to when the connection last had nothing in flight
    /// (its accept, or the end of its last response).
    idle_since_ms: AtomicU64,
    /// The reads that brought bytes: none means it never sent anything.
    reads: Reads,
    /// Cancelled when the connection is closed for another.
    evicted: CancellationToken,
}

/// A connection's place among `max_connections`, given back when this drops.
#[derive(Debug)]
pub(crate) struct Place {
    requests: Requests,
}

/// Where a connection's requests are counted (what its service holds: the place itself is
/// held by the socket, so that it is given back when the socket shuts down).
#[derive(Debug, Clone)]
pub(crate) struct Requests {
    connections: Arc<Connections>,
    connection: Arc<Connection>,
}

/// One request in flight on a connection, ended when this drops.
#[derive(Debug)]
pub(crate) struct InRequest {
    connections: Arc<Connections>,
    connection: Arc<Connection>,
}

impl Connections {
    /// Room for `limit` connections at once.
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            started: Instant::now(),
            next_id: AtomicU64::new(0),
            open: Mutex::new(Open::default()),
        })
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A place for a connection just accepted, whose reads `reads` counts: a free one, or
    /// the place of the connection idle longest, which is told to close; `None` when every
    /// connection has a request in flight.
    pub(crate) fn admit(self: &Arc<Self>, reads: Reads) -> Option<Place> {
        let mut open = lock(&self.open);
        if open.all.len() >= self.limit && !open.evict_one() {
            return None;
        }
        let connection = Arc::new(Connection {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            state: AtomicU64::new(0),
            idle_since_ms: AtomicU64::new(self.now_ms()),
            reads,
            evicted: CancellationToken::new(),
        });
        open.all.insert(connection.id, Arc::clone(&connection));
        open.unused.push_back(Arc::downgrade(&connection));
        // Entries of closed or used connections pile up while nothing is evicted.
        if open.unused.len() > 2 * self.limit {
            open.unused.retain(|entry| {
                entry
                    .upgrade()
                    .is_some_and(|connection| connection.unused())
            });
        }
        Some(Place {
            requests: Requests {
                connections: Arc::clone(self),
                connection,
            },
        })
    }

    /// How many connections hold a place.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.open).all.len()
    }
}

impl Open {
    /// Closes the connection that has had nothing in flight for longest, preferring the
    /// oldest that never sent a byte, and frees its place; false when every connection is
    /// busy.
    fn evict_one(&mut self) -> bool {
        while let Some(entry) = self.unused.pop_front() {
            let Some(connection) = entry.upgrade() else {
                continue;
            };
            if !connection.unused() {
                continue;
            }
            if self.evict(&connection) {
                return true;
            }
            // A request began on it since it was accepted; it is used now.
        }
        for _ in 0..EVICTION_ATTEMPTS {
            let idle_longest = self
                .all
                .values()
                .filter(|connection| connection.state.load(Ordering::Acquire) == 0)
                .min_by_key(|connection| {
                    let idle_since = connection.idle_since_ms.load(Ordering::Relaxed);
                    (idle_since, connection.id)
                })
                .map(Arc::clone);
            let Some(connection) = idle_longest else {
                return false;
            };
            // A request that began since the search keeps the connection: look again.
            if self.evict(&connection) {
                return true;
            }
        }
        false
    }

    /// Closes `connection` if nothing is in flight on it, and frees its place.
    fn evict(&mut self, connection: &Connection) -> bool {
        if connection
            .state
            .compare_exchange(0, EVICTED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return false;
        }
        self.all.remove(&connection.id);
        connection.evicted.cancel();
        true
    }
}

impl Place {
    /// This connection.
    pub(crate) fn connection(&self) -> &Arc<Connection> {
        &self.requests.connection
    }

    /// Where this connection's requests are counted.
    pub(crate) fn requests(&self) -> Requests {
        self.requests.clone()
    }
}

impl Requests {
    /// Marks a request in flight on this connection until the returned guard drops.
    pub(crate) fn begin(&self) -> InRequest {
        self.connection.state.fetch_add(1, Ordering::AcqRel);
        InRequest {
            connections: Arc::clone(&self.connections),
            connection: Arc::clone(&self.connection),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        // Ids are never reused: an evicted connection's id is already gone.
        let Requests {
            connections,
            connection,
        } = &self.requests;
        lock(&connections.open).all.remove(&connection.id);
    }
}

impl Connection {
    /// Whether it has sent nothing and has nothing in flight.
    fn unused(&self) -> bool {
        self.reads.load(Ordering::Relaxed) == 0 && self.state.load(Ordering::Acquire) == 0
    }

    /// Resolves when the connection was closed to admit another.
    pub(crate) async fn evicted(&self) {
        self.evicted.cancelled().await;
    }
}

impl Drop for InRequest {
    fn drop(&mut self) {
        // The time first, so a connection is never seen idle with an old time.
        let now = self.connections.now_ms();
        self.connection.idle_since_ms.store(now, Ordering::Relaxed);
        self.connection.state.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admit(connections: &Arc<Connections>) -> Option<Place> {
        connections.admit(Reads::default())
    }

    #[test]
    fn at_the_limit_the_oldest_never_used_connection_gives_way() {
        let connections = Connections::new(3);
        let oldest = admit(&connections).unwrap();
        let used = connections.admit(Reads::new(AtomicU64::new(1))).unwrap();
        let newer = admit(&connections).unwrap();
        let admitted = admit(&connections).expect("an idle connection gives way");
        assert!(
            oldest.connection().evicted.is_cancelled(),
            "the oldest unused"
        );
        assert!(!used.connection().evicted.is_cancelled());
        assert!(!newer.connection().evicted.is_cancelled());
        assert_eq!(connections.len(), 3);
        drop(oldest);
        assert_eq!(connections.len(), 3, "its place was already given away");
        drop(admitted);
        assert_eq!(connections.len(), 2);
    }

    #[test]
    fn a_connection_with_a_request_in_flight_is_never_closed_for_another() {
        let connections = Connections::new(2);
        let first = admit(&connections).unwrap();
        let second = admit(&connections).unwrap();
        let first_request = first.requests().begin();
        let second_request = second.requests().begin();
        assert!(admit(&connections).is_none(), "both busy: refused");
        drop(second_request);
        assert!(admit(&connections).is_some(), "the idle one gives way");
        assert!(second.connection().evicted.is_cancelled());
        assert!(!first.connection().evicted.is_cancelled());
        drop(first_request);
    }

    #[test]
    fn a_kept_alive_connection_gives_way_after_those_that_never_sent_a_byte() {
        let connections = Connections::new(2);
        let kept_alive = connections.admit(Reads::new(AtomicU64::new(3))).unwrap();
        drop(kept_alive.requests().begin());
        let fresh = admit(&connections).unwrap();
        let _admitted = admit(&connections).unwrap();
        assert!(fresh.connection().evicted.is_cancelled());
        assert!(!kept_alive.connection().evicted.is_cancelled());
    }
}
