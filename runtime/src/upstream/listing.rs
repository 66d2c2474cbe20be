//! The clients to tell when the published tool list changes: a tool whose upstream drifted
//! with `on_drift = "drop"` leaves `tools/list`, and comes back once the upstream serves the
//! pinned definition again. Each session registers when the client says it is initialized
//! and is sent `notifications/tools/list_changed` on every change; a closed one is
//! forgotten. A stateless client has no session to tell: its next `tools/list` shows it.

// 2025-11-25 sessions are told this way; rmcp marks the peer's notification deprecated.
#![allow(deprecated)]

use std::sync::Mutex;

use rmcp::service::{Peer, RoleServer};
use tokio::sync::Notify;

/// The sessions to tell, and the signal that the list changed.
#[derive(Default)]
pub(crate) struct Listing {
    changed: Notify,
    sessions: Mutex<Vec<Peer<RoleServer>>>,
}

impl Listing {
    /// Tells `peer` about every later change, until its session closes.
    pub(crate) fn watch(&self, peer: Peer<RoleServer>) {
        let mut sessions = self.lock();
        sessions.retain(|session| !session.is_transport_closed());
        sessions.push(peer);
    }

    /// Says the published list changed (a change while the last is being announced is
    /// announced again afterwards).
    pub(crate) fn changed(&self) {
        self.changed.notify_one();
    }

    /// Announces every change to the sessions open at the time, for as long as it runs.
    pub(crate) async fn announce(&self) {
        loop {
            self.changed.notified().await;
            let sessions = {
                let mut sessions = self.lock();
                sessions.retain(|session| !session.is_transport_closed());
                sessions.clone()
            };
            tracing::info!(
                sessions = sessions.len(),
                "the published tool list changed; telling the clients"
            );
            for session in sessions {
                if let Err(error) = session.notify_tool_list_changed().await {
                    tracing::debug!(%error, "could not send notifications/tools/list_changed");
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
