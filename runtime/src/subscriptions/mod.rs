//! Subscriptions to the resources the manifest marks `subscribe = true`: on 2026-07-28,
//! `subscriptions/listen` (what a listen request is acknowledged with, and the stream that
//! carries `notifications/resources/updated` until the client goes or the server shuts down);
//! on 2025-11-25, `resources/subscribe` and `resources/unsubscribe` in a session; and the call
//! that publishes an update to both.
//!
//! [`Subscriptions`] is this part of a server, borrowed from [`Pipeline::subscriptions`];
//! `updates` holds its state, which the pipeline owns.
//!
//! rmcp sends the acknowledgment (tagged with the subscription id) before
//! [`Subscriptions::listen`] runs and tags every notification the stream sends; this file decides
//! what is honoured and what is sent. Only resource subscriptions are honoured: the tool,
//! prompt and resource lists of a generated server change only with a new build, so the
//! list-changed kinds are never advertised and always left out of the acknowledgment, as the
//! specification asks of notification types a server does not support.

pub(crate) mod updates;

use std::sync::Arc;

use rmcp::model::{ErrorData, ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, RoleServer, SubscriptionContext, SubscriptionSendError};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::catalog::record::refusal_error;
use crate::pipeline::Pipeline;
use crate::pipeline::bounded::AskedFor;
use crate::pipeline::refusal::Refusal;
use crate::spec::ServerSpec;
use crate::trace::trace_id_for;

use self::updates::{Listener, SessionSubscription, Updates};

/// [`Subscriptions::resource_updated`] was given a URI no listener may subscribe to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a resource of this server that clients may subscribe to")]
pub struct NotSubscribable(pub String);

/// A server's resource subscriptions: `subscriptions/listen` streams (2026-07-28),
/// `resources/subscribe` and `resources/unsubscribe` (2025-11-25), and the updates an
/// application publishes to both. Borrowed from [`Pipeline::subscriptions`].
#[derive(Debug, Clone, Copy)]
pub struct Subscriptions<'a> {
    pipeline: &'a Pipeline,
}

impl Pipeline {
    /// This server's resource subscriptions. (Defined here, beside [`Subscriptions`], so
    /// that the pipeline names none of its parts.)
    pub fn subscriptions(&self) -> Subscriptions<'_> {
        Subscriptions { pipeline: self }
    }
}

impl Subscriptions<'_> {
    fn server(&self) -> &'static ServerSpec {
        self.pipeline.server()
    }

    fn updates(&self) -> &Updates {
        self.pipeline.updates()
    }

    /// Whether `uri` names a resource clients may subscribe to (`resources/subscribe`); the
    /// JSON-RPC error for any other URI.
    fn check_subscription(&self, uri: &str) -> Result<(), ErrorData> {
        if self.subscribable(uri) {
            return Ok(());
        }
        let trace_id = trace_id_for(None);
        let (error, _, _) = refusal_error(
            Refusal::UnknownResource(uri.to_owned()),
            &trace_id,
            Some(AskedFor {
                field: "uri",
                value: uri,
            }),
        );
        Err(error)
    }

    /// Whether `uri` is a resource the manifest marks `subscribe = true`.
    fn subscribable(&self, uri: &str) -> bool {
        self.server()
            .catalog
            .resources
            .iter()
            .any(|resource| resource.subscribe && resource.uri == uri)
    }

    /// What this server honours of a `subscriptions/listen` filter: the requested resource
    /// URIs that name a subscribable resource. A URI that does not (an unknown one, a
    /// template's, a resource without `subscribe = true`) is left out of the acknowledgment
    /// rather than refused: the specification's acknowledgment is the subset the server
    /// agreed to honour, and the client compares it with what it asked for.
    pub fn accepted_subscriptions(&self, requested: &SubscriptionFilter) -> SubscriptionFilter {
        let Some(asked) = &requested.resource_subscriptions else {
            return SubscriptionFilter::new();
        };
        // Walking the catalog, not the request, bounds the work by the manifest however many
        // URIs a request names.
        let accepted: Vec<&str> = self
            .server()
            .catalog
            .resources
            .iter()
            .filter(|resource| resource.subscribe && asked.iter().any(|uri| uri == resource.uri))
            .map(|resource| resource.uri)
            .collect();
        if accepted.is_empty() {
            return SubscriptionFilter::new();
        }
        SubscriptionFilter::builder()
            .resource_subscriptions(accepted)
            .build()
    }

    /// Runs one acknowledged listen stream: every update of an accepted resource becomes a
    /// `notifications/resources/updated` on it. It ends when the client cancels it or goes
    /// away (rmcp then sends nothing more), and when the server tears it down
    /// ([`Subscriptions::closing`]): `Ok` then makes rmcp send the final
    /// `SubscriptionsListenResult`, and on HTTP the stream closes after it. While
    /// `[transport] max_streams` listeners are open, a new stream ends at once the same way,
    /// so that listen streams cannot hold every connection.
    pub async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        let updates = self.updates();
        let sink = subscription.sink();
        let most = usize::try_from(self.server().transport.max_streams).unwrap_or(usize::MAX);
        let Some(mut listener) = updates.listen_at_most(most) else {
            tracing::warn!(subscription = %sink.id(), max_streams = most, "listen stream ended at once: max_streams listeners are open");
            return Ok(());
        };
        let watched = sink
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        tracing::debug!(subscription = %sink.id(), resources = watched.len(), "listen stream open");
        loop {
            let received = tokio::select! {
                biased;
                () = subscription.cancelled() => break,
                () = updates.closing().cancelled() => break,
                received = listener.updated.recv() => received,
            };
            let sent = match received {
                Ok(uri) if watched.iter().any(|watched| **watched == *uri) => {
                    sink.notify_resource_updated(&*uri).await
                }
                Ok(_) => continue,
                // Updates were dropped for this slow stream; which ones is unknown, so every
                // resource it listens to may have changed, and the client re-reads them.
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(subscription = %sink.id(), missed, "listen stream fell behind; telling it every resource it listens to changed");
                    let mut sent = Ok(());
                    for uri in &watched {
                        sent = sink.notify_resource_updated(uri.as_str()).await;
                        if sent.is_err() {
                            break;
                        }
                    }
                    sent
                }
                Err(RecvError::Closed) => break,
            };
            match sent {
                Ok(()) => {}
                // The client went away between two updates: nothing left to tell.
                Err(
                    SubscriptionSendError::SubscriptionClosed | SubscriptionSendError::Service(_),
                ) => break,
                Err(error) => {
                    tracing::error!(subscription = %sink.id(), %error, "listen stream refused its own notification");
                    break;
                }
            }
        }
        tracing::debug!(subscription = %sink.id(), "listen stream closed");
        Ok(())
    }

    /// `resources/subscribe` (2025-11-25): after the URI is checked (the not-found error for
    /// one that is not subscribable), the session is sent `notifications/resources/updated`
    /// for every update of `uri` until it unsubscribes or closes. Subscribing twice is
    /// subscribing once.
    pub fn subscribe(&self, uri: &str, peer: Peer<RoleServer>) -> Result<(), ErrorData> {
        self.check_subscription(uri)?;
        let mut sessions = self.updates().sessions();
        // A closed session's forwarder would only notice at the next update; dropping it here
        // bounds the list (and the tasks) by the sessions still open.
        sessions.retain(|subscription| {
            let live =
                !subscription.stop.is_cancelled() && !subscription.peer.is_transport_closed();
            if !live {
                subscription.stop.cancel();
            }
            live
        });
        let already = sessions
            .iter()
            .any(|subscription| subscription.uri == uri && same_session(&subscription.peer, &peer));
        if !already {
            let stop = CancellationToken::new();
            let listener = self.updates().listen();
            tokio::spawn(forward(
                listener,
                peer.clone(),
                uri.to_owned(),
                stop.clone(),
            ));
            sessions.push(SessionSubscription {
                peer,
                uri: uri.to_owned(),
                stop,
            });
        }
        Ok(())
    }

    /// `resources/unsubscribe` (2025-11-25): the session is sent no more updates of `uri`.
    pub fn unsubscribe(&self, uri: &str, peer: &Peer<RoleServer>) -> Result<(), ErrorData> {
        self.check_subscription(uri)?;
        self.updates().sessions().retain(|subscription| {
            let this = subscription.uri == uri && same_session(&subscription.peer, peer);
            if this {
                subscription.stop.cancel();
            }
            !this
        });
        Ok(())
    }

    /// Tells every open listen stream that accepted `uri`, and every session subscribed to it,
    /// that the resource was updated, so that its client reads it again; returns how many
    /// listeners were told (those that listen to other resources drop it). For what changes a
    /// subscribable resource outside the server: an application that embeds it, or a tool
    /// body's owner, calls this through `GeneratedServer::pipeline().subscriptions()`.
    pub fn resource_updated(&self, uri: &str) -> Result<usize, NotSubscribable> {
        if !self.subscribable(uri) {
            return Err(NotSubscribable(uri.to_owned()));
        }
        Ok(self.updates().publish(uri))
    }

    /// The number of listeners, as it changes: open listen streams and 2025-11-25 session
    /// subscriptions (for health reporting, and for whoever must know a listener is there
    /// before publishing).
    pub fn open(&self) -> watch::Receiver<usize> {
        self.updates().open()
    }

    /// The token that tears every listen stream down gracefully: once it is cancelled, every
    /// open stream (and every one opened later) ends with its final result. `serve` cancels it
    /// when a shutdown begins, so that open streams do not hold the shutdown for its whole
    /// grace period; an application embedding the server cancels it where its own graceful
    /// shutdown begins.
    pub fn closing(&self) -> CancellationToken {
        self.updates().closing().clone()
    }
}

/// Whether two peers are the same session: the one set of client information a session's
/// peers share (a peer without any is a session of its own).
fn same_session(one: &Peer<RoleServer>, other: &Peer<RoleServer>) -> bool {
    match (one.peer_info(), other.peer_info()) {
        (Some(one), Some(other)) => Arc::ptr_eq(&one, &other),
        _ => false,
    }
}

/// A 2025-11-25 session's subscription to `uri`: its updates as notifications, until `stop`
/// or until the session cannot be sent to.
async fn forward(
    mut listener: Listener,
    peer: Peer<RoleServer>,
    uri: String,
    stop: CancellationToken,
) {
    loop {
        let received = tokio::select! {
            biased;
            () = stop.cancelled() => break,
            received = listener.updated.recv() => received,
        };
        match received {
            // Lagging lost updates, of `uri` maybe: the client re-reads it either way.
            Ok(updated) if *updated != *uri => continue,
            Ok(_) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => break,
        }
        let update = ResourceUpdatedNotificationParam::new(uri.clone());
        if peer.notify_resource_updated(update).await.is_err() {
            break;
        }
    }
    stop.cancel();
}
