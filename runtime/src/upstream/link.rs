//! One upstream over time: its connection (up, down and why), the status of each pin, and
//! the supervisor that connects, compares the pins, watches the connection, and restarts a
//! child that exits, by the manifest's policy.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::{ServerNotification, SubscribeRequestParams, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient, Subscription};
use serde_json::{Value, json};
use tokio::sync::{Notify, watch};

use crate::skill_files::KeptSkill;
use crate::spec::{EndpointSpec, OnDrift, PinKind, UpstreamProtocol, UpstreamSpec};
use crate::sync::{read, write};
use crate::upstream::connect::{Handle, connect};
use crate::upstream::definitions;
use crate::upstream::handler::{Routes, UpstreamHandler};
use crate::upstream::listing::Listing;
use crate::upstream::pins::{Live, PinStatus, compare};
use crate::upstream::request::within;
use crate::upstream::skills::{self, Unkept};
use crate::upstream::updates::{Updates, subscribable};

/// The longest wait between two restarts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A connection that stayed up this long resets the restart count.
const STABLE_AFTER: Duration = Duration::from_secs(60);

/// Whether the upstream is connected.
#[derive(Debug, Clone)]
pub(crate) enum LinkState {
    /// The first connection has not been tried yet, or is being tried.
    Starting,
    /// Connected.
    Up(Handle),
    /// Not connected, and why (logged with the detail).
    Down(String),
}

/// One upstream's shared state.
pub(crate) struct Link {
    pub(crate) spec: &'static UpstreamSpec,
    state: RwLock<LinkState>,
    pins: RwLock<Vec<PinStatus>>,
    /// Each skill pin's files as last read, checked and cleaned (`None` for other kinds, and
    /// for a skill not read yet).
    kept: RwLock<Vec<Option<Arc<KeptSkill>>>>,
    /// The lists the pins are compared with: the kinds they hold (tools where there is none).
    kinds: Vec<PinKind>,
    /// Bumped after every connection attempt, so `start` can wait for the first.
    attempts: watch::Sender<u64>,
    pub(crate) routes: Arc<Routes>,
    /// Notified by the connection's handler on a `list_changed` notification of a list the
    /// pins are compared with.
    list_changed: Arc<Notify>,
    /// The gateway's own clients, told when a tool this upstream serves leaves or rejoins
    /// the published list.
    listing: Arc<Listing>,
    /// Where the updates of the resources it serves go.
    updates: Updates,
}

impl Link {
    pub(crate) fn new(
        spec: &'static UpstreamSpec,
        listing: Arc<Listing>,
        updates: Updates,
    ) -> Self {
        Self {
            spec,
            state: RwLock::new(LinkState::Starting),
            pins: RwLock::new(vec![PinStatus::Unchecked; spec.pins.len()]),
            kept: RwLock::new(vec![None; spec.pins.len()]),
            kinds: kinds_of(spec),
            attempts: watch::Sender::new(0),
            routes: Arc::new(Routes::new(spec.forward)),
            list_changed: Arc::default(),
            listing,
            updates,
        }
    }

    pub(crate) fn state(&self) -> LinkState {
        read(&self.state).clone()
    }

    fn set_state(&self, state: LinkState) {
        *write(&self.state) = state;
    }

    pub(crate) fn pin(&self, index: usize) -> PinStatus {
        read(&self.pins)[index].clone()
    }

    /// Skill pin `index` as last kept.
    pub(crate) fn kept(&self, index: usize) -> Option<Arc<KeptSkill>> {
        read(&self.kept)[index].clone()
    }

    /// Waits until at least one connection attempt has finished.
    pub(crate) async fn first_attempt(&self) {
        let mut attempts = self.attempts.subscribe();
        // The sender lives in `self`, so the wait ends only by an attempt.
        let _ = attempts.wait_for(|count| *count > 0).await;
    }

    /// Lists what the pins name (each kind's list) and compares it with the pins; every drift
    /// is logged with both digests, every recovery too.
    pub(crate) async fn check_pins(&self, peer: &Peer<RoleClient>) {
        let live = definitions::live(self.spec.name, peer, &self.kinds, self.spec.timeout_ms).await;
        let previous = read(&self.pins).clone();
        let mut statuses = compare(self.spec.pins, &live, &previous);
        self.keep_skills(peer, &live, &mut statuses).await;
        let mut pins = write(&self.pins);
        // The kinds whose published list loses or regains an entry.
        let published_changed: Vec<PinKind> = if self.spec.on_drift == OnDrift::Drop {
            self.spec
                .pins
                .iter()
                .zip(pins.iter().zip(&statuses))
                .filter(|(_, (old, new))| old.is_drift() != new.is_drift())
                .map(|(pin, _)| pin.kind)
                .collect()
        } else {
            Vec::new()
        };
        for ((pin, old), new) in self.spec.pins.iter().zip(pins.iter()).zip(&statuses) {
            if old == new {
                continue;
            }
            let (upstream, kind, name) = (self.spec.name, pin.kind.as_str(), pin.name);
            match new {
                PinStatus::Drifted { live_sha256 } => tracing::error!(
                    upstream,
                    kind,
                    name,
                    upstream_name = pin.remote_name,
                    pinned_sha256 = pin.sha256,
                    live_sha256,
                    on_drift = self.spec.on_drift.as_str(),
                    "the upstream changed a pinned definition"
                ),
                PinStatus::Missing => tracing::error!(
                    upstream,
                    kind,
                    name,
                    upstream_name = pin.remote_name,
                    pinned_sha256 = pin.sha256,
                    on_drift = self.spec.on_drift.as_str(),
                    "the upstream no longer offers a pinned definition"
                ),
                PinStatus::Rewritten { uri, live_digest } => tracing::error!(
                    upstream,
                    kind,
                    name,
                    uri,
                    live_digest,
                    on_drift = self.spec.on_drift.as_str(),
                    "the upstream serves a file of a pinned skill with other bytes than its pinned entry lists"
                ),
                PinStatus::Matches if old.is_drift() => tracing::info!(
                    upstream,
                    kind,
                    name,
                    "the upstream serves the pinned definition again"
                ),
                PinStatus::Matches | PinStatus::Unchecked => {}
            }
        }
        *pins = statuses;
        drop(pins);
        for kind in published_changed {
            self.listing.changed(kind);
        }
    }

    /// Reads, checks and keeps each skill whose entry matches its pin (see
    /// `upstream::skills`); a file whose bytes differ from the entry makes the pin
    /// `Rewritten`, and a skill that cannot be read is `Unchecked` until a later check. A
    /// skill that drifted keeps what was kept before (listed, refused, where `on_drift =
    /// "refuse"`).
    async fn keep_skills(&self, peer: &Peer<RoleClient>, live: &Live, statuses: &mut [PinStatus]) {
        let Some(listed) = live.skills.as_deref() else {
            return;
        };
        for (index, pin) in self.spec.pins.iter().enumerate() {
            if pin.kind != PinKind::Skill || statuses[index] != PinStatus::Matches {
                continue;
            }
            let Some(entry) = listed
                .iter()
                .find(|entry| pin.kind.name_of(entry) == Some(pin.remote_name))
            else {
                continue;
            };
            match skills::keep(peer, entry, self.spec.timeout_ms).await {
                Ok(kept) => {
                    write(&self.kept)[index] = Some(Arc::new(kept));
                }
                Err(Unkept::Rewritten {
                    uri,
                    pinned_digest: _,
                    live_digest,
                }) => {
                    statuses[index] = PinStatus::Rewritten { uri, live_digest };
                }
                Err(Unkept::Unreadable(reason)) => {
                    tracing::warn!(
                        upstream = self.spec.name,
                        skill = pin.remote_name,
                        reason,
                        "a pinned skill could not be read and checked; it is withheld"
                    );
                    statuses[index] = PinStatus::Unchecked;
                }
            }
        }
    }

    /// Connects, watches and restarts, until restarts run out (or the task is dropped).
    pub(crate) async fn supervise(self: Arc<Self>) {
        let mut restarts = 0u32;
        loop {
            let handler = UpstreamHandler::new(
                self.spec.name,
                self.spec.forward,
                Arc::clone(&self.routes),
                Arc::clone(&self.list_changed),
            )
            .with_updates(self.spec.pins, self.updates.clone());
            let attempt = connect(self.spec, handler).await;
            match attempt {
                Ok((connection, handle)) => {
                    let peer = handle.peer.clone();
                    self.check_pins(&peer).await;
                    // Subscribed before it counts as up: an update after that is not missed.
                    let mut listening = self.listen(&peer).await;
                    self.set_state(LinkState::Up(handle));
                    tracing::info!(upstream = self.spec.name, "upstream connected");
                    self.attempts.send_modify(|count| *count += 1);
                    let up_since = Instant::now();
                    let waiting = connection.waiting();
                    tokio::pin!(waiting);
                    let ended = loop {
                        tokio::select! {
                            ended = &mut waiting => break ended,
                            () = self.list_changed.notified() => self.check_pins(&peer).await,
                            heard = next(&mut listening) => match heard {
                                Some(ServerNotification::ResourceUpdatedNotification(updated)) => {
                                    self.updates.relay(self.spec.name, self.spec.pins, &updated.params.uri);
                                }
                                Some(
                                    ServerNotification::ToolListChangedNotification(_)
                                    | ServerNotification::PromptListChangedNotification(_)
                                    | ServerNotification::ResourceListChangedNotification(_),
                                ) => self.check_pins(&peer).await,
                                Some(_) => {}
                                None => {
                                    tracing::warn!(upstream = self.spec.name, "the upstream's subscriptions/listen stream ended; list changes are seen at the next reconnect");
                                    listening = None;
                                }
                            },
                        }
                    };
                    let reason = match ended {
                        Ok(reason) => format!("{reason:?}"),
                        Err(error) => error.to_string(),
                    };
                    tracing::warn!(
                        upstream = self.spec.name,
                        reason,
                        "upstream connection ended"
                    );
                    self.set_state(LinkState::Down("the connection ended".to_owned()));
                    if up_since.elapsed() >= STABLE_AFTER {
                        restarts = 0;
                    }
                }
                Err(error) => {
                    tracing::error!(upstream = self.spec.name, %error, "cannot connect to the upstream");
                    self.set_state(LinkState::Down(error.to_string()));
                    self.attempts.send_modify(|count| *count += 1);
                }
            }
            if restarts >= self.spec.max_restarts {
                tracing::error!(
                    upstream = self.spec.name,
                    restarts,
                    "the upstream stays down: restarts exhausted (restart.max_restarts)"
                );
                return;
            }
            let backoff = Duration::from_millis(self.spec.backoff_ms)
                .saturating_mul(1 << restarts.min(16))
                .min(MAX_BACKOFF);
            restarts += 1;
            tokio::time::sleep(backoff).await;
        }
    }

    /// Asks the upstream for what changes while the connection lasts: on 2025-11-25, its
    /// list_changed notifications come unasked and each subscribable resource is subscribed to
    /// with `resources/subscribe`; on 2026-07-28, one `subscriptions/listen` stream carries the
    /// list changes of the kinds the pins hold and those resources' updates (returned, for
    /// the supervisor to read).
    async fn listen(&self, peer: &Peer<RoleClient>) -> Option<Subscription> {
        let capabilities = peer.peer_info().map(|info| info.capabilities.clone())?;
        let subscribable: Vec<&str> = subscribable(self.spec.pins).collect();
        let may_subscribe = capabilities
            .resources
            .as_ref()
            .is_some_and(|resources| resources.subscribe == Some(true));
        let uris = if may_subscribe {
            subscribable
        } else {
            Vec::new()
        };
        if self.spec.protocol == UpstreamProtocol::V2025_11_25 {
            for uri in uris {
                #[allow(deprecated, reason = "a 2025-11-25 upstream subscribes this way")]
                let subscribing = peer.subscribe(SubscribeRequestParams::new(uri));
                let refused = match within(self.spec.timeout_ms, subscribing).await {
                    Ok(Ok(())) => continue,
                    Ok(Err(error)) => error.to_string(),
                    Err(error) => error.to_string(),
                };
                tracing::warn!(
                    upstream = self.spec.name,
                    uri,
                    error = refused,
                    "resources/subscribe failed; its updates will not reach subscribers"
                );
            }
            return None;
        }
        let mut filter = SubscriptionFilter::builder();
        for kind in &self.kinds {
            filter = match kind {
                PinKind::Tool => filter.tools_list_changed(),
                PinKind::Prompt => filter.prompts_list_changed(),
                PinKind::Resource | PinKind::ResourceTemplate | PinKind::Skill => {
                    filter.resources_list_changed()
                }
            };
        }
        if !uris.is_empty() {
            filter = filter.resource_subscriptions(uris);
        }
        let refused = match within(self.spec.timeout_ms, peer.listen(filter.build())).await {
            Ok(Ok(subscription)) => return Some(subscription),
            Ok(Err(error)) => error.to_string(),
            Err(error) => error.to_string(),
        };
        tracing::warn!(
            upstream = self.spec.name,
            error = refused,
            "the upstream did not open subscriptions/listen; list changes are seen at the next reconnect"
        );
        None
    }

    /// Whether a drifted definition is taken out of its list.
    pub(crate) fn hides(&self, index: usize) -> bool {
        self.spec.on_drift == OnDrift::Drop && self.pin(index).is_drift()
    }

    /// The health of this upstream for `/health`.
    pub(crate) fn health(&self) -> Value {
        let (status, reason) = match self.state() {
            LinkState::Starting => ("starting", None),
            LinkState::Up(_) => ("up", None),
            LinkState::Down(reason) => ("down", Some(reason)),
        };
        let drifted: Vec<&str> = self
            .spec
            .pins
            .iter()
            .enumerate()
            .filter(|(index, _)| self.pin(*index).is_drift())
            .map(|(_, pin)| pin.name)
            .collect();
        let transport = match self.spec.endpoint {
            EndpointSpec::Stdio { .. } => "stdio",
            EndpointSpec::StreamableHttp { .. } => "streamable-http",
        };
        let mut health = json!({"status": status, "transport": transport, "drifted": drifted});
        if let Some(reason) = reason {
            health["reason"] = Value::String(reason);
        }
        health
    }
}

/// The kinds `spec`'s pins hold, in [`PinKind::ALL`] order; tools where there is no pin (the
/// listing still tells whether the upstream answers).
fn kinds_of(spec: &UpstreamSpec) -> Vec<PinKind> {
    let kinds: Vec<PinKind> = PinKind::ALL
        .iter()
        .copied()
        .filter(|kind| spec.pins.iter().any(|pin| pin.kind == *kind))
        .collect();
    if kinds.is_empty() {
        vec![PinKind::Tool]
    } else {
        kinds
    }
}

/// The next notification of `listening`, or never where there is none; `None` once the stream
/// ends or fails.
async fn next(listening: &mut Option<Subscription>) -> Option<ServerNotification> {
    match listening {
        Some(subscription) => subscription.next().await.ok().flatten(),
        None => std::future::pending().await,
    }
}
