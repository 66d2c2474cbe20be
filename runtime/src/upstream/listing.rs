//! The clients to tell when a published list changes: a tool, prompt, resource or template
//! whose upstream drifted with `on_drift = "drop"` leaves its list, and comes back once the
//! upstream serves the pinned definition again. Each session registers when the client says
//! it is initialized and is sent the list's `list_changed` notification (tools, prompts, or
//! resources for resources and templates) on every change; a closed one is forgotten. A
//! stateless client has no session to tell: its next list shows it.

// 2025-11-25 sessions are told this way; rmcp marks the peer's notification deprecated.
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::sync::Mutex;

use rmcp::service::{Peer, RoleServer};
use tokio::sync::Notify;

use crate::spec::PinKind;
use crate::sync::lock;

/// The sessions to tell, the lists that changed since the last announcement, and the signal.
#[derive(Default)]
pub(crate) struct Listing {
    changed: Notify,
    kinds: Mutex<BTreeSet<PinKind>>,
    sessions: Mutex<Vec<Peer<RoleServer>>>,
}

impl Listing {
    /// Tells `peer` about every later change, until its session closes.
    pub(crate) fn watch(&self, peer: Peer<RoleServer>) {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|session| !session.is_transport_closed());
        sessions.push(peer);
    }

    /// Says the published list of `kind` changed (a change while the last is being announced
    /// is announced again afterwards).
    pub(crate) fn changed(&self, kind: PinKind) {
        lock(&self.kinds).insert(kind);
        self.changed.notify_one();
    }

    /// Announces every change to the sessions open at the time, for as long as it runs.
    pub(crate) async fn announce(&self) {
        loop {
            self.changed.notified().await;
            let sessions = {
                let mut sessions = lock(&self.sessions);
                sessions.retain(|session| !session.is_transport_closed());
                sessions.clone()
            };
            let kinds = std::mem::take(&mut *lock(&self.kinds));
            // Resources, templates and skills (whose files are resources) share one
            // notification.
            let notifications: BTreeSet<&str> = kinds
                .iter()
                .map(|kind| match kind {
                    PinKind::Tool => "tools",
                    PinKind::Prompt => "prompts",
                    PinKind::Resource | PinKind::ResourceTemplate | PinKind::Skill => "resources",
                })
                .collect();
            tracing::info!(
                sessions = sessions.len(),
                lists = ?notifications,
                "a published list changed; telling the clients"
            );
            for session in sessions {
                for list in &notifications {
                    let sent = match *list {
                        "tools" => session.notify_tool_list_changed().await,
                        "prompts" => session.notify_prompt_list_changed().await,
                        _ => session.notify_resource_list_changed().await,
                    };
                    if let Err(error) = sent {
                        tracing::debug!(%error, list, "could not send a list_changed notification");
                    }
                }
            }
        }
    }
}
