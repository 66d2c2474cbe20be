//! The server-wide state behind resource subscriptions: updates of subscribable resources
//! fanned out to every listener (an open `subscriptions/listen` stream, or a 2025-11-25
//! session's `resources/subscribe`), the number of listeners, the token that ends the listen
//! streams at shutdown, and the sessions' subscriptions. It knows nothing of the pipeline, so
//! the pipeline can own one without a module circle (`subscriptions` is the protocol side).

use std::sync::{Arc, Mutex};

use rmcp::service::{Peer, RoleServer};
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use crate::sync::lock;

/// Updates a listen stream may fall behind by before it is told "everything you listen to
/// may have changed" instead of each update (see `Subscriptions::listen`): a slow client
/// costs bounded memory, and no update is lost without the client hearing of it.
const BACKLOG: usize = 64;

/// Updated URIs to every listener, and the listeners' count and end.
#[derive(Debug)]
pub(crate) struct Updates {
    updated: broadcast::Sender<Arc<str>>,
    open: Arc<watch::Sender<usize>>,
    closing: CancellationToken,
    sessions: Mutex<Vec<SessionSubscription>>,
}

/// One 2025-11-25 session's `resources/subscribe` of one URI: its forwarding task stops when
/// `stop` is cancelled (`resources/unsubscribe`, or the session found closed).
#[derive(Debug)]
pub(crate) struct SessionSubscription {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) uri: String,
    pub(crate) stop: CancellationToken,
}

impl Default for Updates {
    fn default() -> Self {
        Self {
            updated: broadcast::Sender::new(BACKLOG),
            open: Arc::new(watch::Sender::new(0)),
            closing: CancellationToken::new(),
            sessions: Mutex::default(),
        }
    }
}

impl Updates {
    /// Opens one listener: it receives every update published from now on and is counted as
    /// open until the returned [`Listener`] drops. Subscribing before counting means that
    /// whoever sees the count rise can publish and be sure this listener gets it.
    pub(crate) fn listen(&self) -> Listener {
        let updated = self.updated.subscribe();
        self.open.send_modify(|open| *open += 1);
        Listener {
            updated,
            open: Arc::clone(&self.open),
        }
    }

    /// A listener, unless `most` listeners are already open (then `None`).
    pub(crate) fn listen_at_most(&self, most: usize) -> Option<Listener> {
        let mut admitted = false;
        self.open.send_if_modified(|open| {
            admitted = *open < most;
            if admitted {
                *open += 1;
            }
            admitted
        });
        admitted.then(|| Listener {
            updated: self.updated.subscribe(),
            open: Arc::clone(&self.open),
        })
    }

    /// The sessions' subscriptions (a poisoned lock still holds a usable list: each change
    /// to it is one push or one retain).
    pub(crate) fn sessions(&self) -> std::sync::MutexGuard<'_, Vec<SessionSubscription>> {
        lock(&self.sessions)
    }

    /// Tells every open listener that `uri` was updated; returns how many listeners that is.
    pub(crate) fn publish(&self, uri: &str) -> usize {
        self.updated.send(Arc::from(uri)).unwrap_or(0)
    }

    /// The number of open listeners, as it changes.
    pub(crate) fn open(&self) -> watch::Receiver<usize> {
        self.open.subscribe()
    }

    /// Cancelled when the server tears every listener down (a graceful shutdown).
    pub(crate) fn closing(&self) -> &CancellationToken {
        &self.closing
    }
}

/// One open listener: its queue of updates, counted in [`Updates::open`] while it lives.
#[derive(Debug)]
pub(crate) struct Listener {
    pub(crate) updated: broadcast::Receiver<Arc<str>>,
    open: Arc<watch::Sender<usize>>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.open.send_modify(|open| *open -= 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_listener_counts_while_it_lives_and_gets_what_is_published_after_it_opened() {
        let updates = Updates::default();
        assert_eq!(updates.publish("test://before"), 0);
        let open = updates.open();
        let mut listener = updates.listen();
        assert_eq!(*open.borrow(), 1);
        assert_eq!(updates.publish("test://after"), 1);
        assert_eq!(&*listener.updated.recv().await.unwrap(), "test://after");
        drop(listener);
        assert_eq!(*open.borrow(), 0);
        assert_eq!(updates.publish("test://gone"), 0);
    }
}
