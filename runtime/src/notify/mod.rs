//! What a body tells the client while it runs: progress and log messages. Each is sent only
//! when the client asked for it (a progress token on the request; a log level set for the
//! session or carried by the request), never after the call was cancelled, through the tag
//! strip, and bounded, so a body cannot flood the client or smuggle instructions past the
//! output guards.

pub(crate) mod logging;
pub(crate) mod progress;

pub use self::logging::{LogLevel, SessionLogLevel};

use std::sync::Arc;

use rmcp::model::ProgressToken;
use rmcp::service::{Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use crate::guards::{chars, strip};
use crate::spec::GuardSpec;

/// The longest message a notification carries, in characters, below the tool's `max_chars`.
pub(crate) const MAX_NOTIFICATION_CHARS: u64 = 1000;

/// Where one call's notifications go and what the client asked for.
#[derive(Debug)]
pub(crate) struct Notifier {
    peer: Peer<RoleServer>,
    cancellation: CancellationToken,
    progress: Option<progress::ProgressState>,
    logging: Option<logging::LogState>,
    strip_tags: bool,
    max_chars: u64,
}

/// What the request asked to be told: its progress token and the log level in force.
#[derive(Debug, Clone, Default)]
pub(crate) struct Requested {
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log_level: Option<LogLevel>,
}

impl Notifier {
    /// A notifier for one call, or none when the client asked for nothing.
    pub(crate) fn for_call(
        peer: Peer<RoleServer>,
        requested: Requested,
        cancellation: CancellationToken,
        guards: &GuardSpec,
    ) -> Option<Arc<Self>> {
        if requested.progress_token.is_none() && requested.log_level.is_none() {
            return None;
        }
        Some(Arc::new(Self {
            peer,
            cancellation,
            progress: requested.progress_token.map(progress::ProgressState::new),
            logging: requested.log_level.map(logging::LogState::new),
            strip_tags: guards.strip_xml,
            max_chars: guards.max_chars.map_or(MAX_NOTIFICATION_CHARS, |max| {
                max.min(MAX_NOTIFICATION_CHARS)
            }),
        }))
    }

    /// The text as a notification may carry it: stripped like output, and short.
    fn clean(&self, text: &str) -> String {
        let stripped = strip::sanitize(text, self.strip_tags);
        chars::cap_text(&stripped, self.max_chars).unwrap_or_else(|| stripped.into_owned())
    }

    /// Whether the request carried a progress token.
    pub(crate) fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Whether the client still wants anything for this call.
    fn live(&self) -> bool {
        !self.cancellation.is_cancelled()
    }
}
