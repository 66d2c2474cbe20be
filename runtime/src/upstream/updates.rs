//! An upstream's resource updates, passed on to the gateway's own subscribers: only for a
//! resource the manifest pins from that upstream and marks `subscribe = true` (any other URI
//! an upstream announces is dropped), through one channel the server relays to
//! [`crate::subscriptions::Subscriptions::resource_updated`].

use tokio::sync::broadcast;

use crate::spec::{PinKind, PinSpec};

/// Updates announced before the relay reads them; a relay that falls this far behind misses
/// some, and its subscribers read the resource again at the next one.
const BACKLOG: usize = 256;

/// One gateway's channel of updated URIs.
#[derive(Debug, Clone)]
pub(crate) struct Updates {
    sender: broadcast::Sender<String>,
}

impl Default for Updates {
    fn default() -> Self {
        Self {
            sender: broadcast::Sender::new(BACKLOG),
        }
    }
}

impl Updates {
    /// A new reader of every later update.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.sender.subscribe()
    }

    /// Passes on `uri`, announced updated by `upstream`, if `pins` (that upstream's) name it
    /// as a resource clients may subscribe to.
    pub(crate) fn relay(&self, upstream: &str, pins: &[PinSpec], uri: &str) {
        if subscribable(pins).any(|pinned| pinned == uri) {
            // No reader yet (the server relays once it serves) is not an error.
            let _ = self.sender.send(uri.to_owned());
        } else {
            tracing::debug!(
                upstream,
                uri,
                "an update of a resource this server does not let clients subscribe to; dropped"
            );
        }
    }
}

/// The URIs of `pins` that clients may subscribe to.
pub(crate) fn subscribable(pins: &[PinSpec]) -> impl Iterator<Item = &'static str> + '_ {
    pins.iter()
        .filter(|pin| pin.kind == PinKind::Resource && pin.subscribe)
        .map(|pin| pin.remote_name)
}
