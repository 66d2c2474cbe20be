//! One call's notifier: where its notifications go, what the client asked for, and the
//! cleaning every message gets.

use std::sync::Arc;

use rmcp::model::ProgressToken;
use rmcp::service::{Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use crate::guards::redact::{self, Redactions};
use crate::guards::{chars, strip};
use crate::notify::logging::{self, LogLevel};
use crate::notify::progress;
use crate::spec::{GuardSpec, RedactPattern};

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
    redact: Option<&'static [RedactPattern]>,
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
            redact: redact::policy(guards),
            max_chars: guards.max_chars.map_or(MAX_NOTIFICATION_CHARS, |max| {
                max.min(MAX_NOTIFICATION_CHARS)
            }),
        }))
    }

    /// The text as a notification may carry it: stripped and redacted like output, and short.
    fn clean(&self, text: &str) -> String {
        let stripped = strip::sanitize(text, self.strip_tags);
        let redacted = redact::apply(&stripped, self.redact, &mut Redactions::default());
        chars::cap_text(&redacted, self.max_chars).unwrap_or_else(|| redacted.into_owned())
    }

    /// Whether the request carried a progress token.
    pub(crate) fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    #[cfg(feature = "gateway")]
    /// The lowest log level the client wants for this call, if it wants logs at all.
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        self.logging.as_ref().map(logging::LogState::threshold)
    }

    /// Whether the client still wants anything for this call.
    fn live(&self) -> bool {
        !self.cancellation.is_cancelled()
    }

    /// Sends progress if the request asked for it and the value may be sent; true if sent.
    pub(crate) async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> bool {
        let Some(state) = &self.progress else {
            return false;
        };
        if !self.live() {
            return false;
        }
        let message = message.map(|text| self.clean(text));
        state.send(&self.peer, progress, total, message).await
    }

    /// Sends a log message if the client's level admits it; true if sent.
    pub(crate) async fn log(&self, level: LogLevel, logger: &str, message: &str) -> bool {
        let Some(state) = &self.logging else {
            return false;
        };
        if !self.live() {
            return false;
        }
        state
            .send(&self.peer, level, logger, self.clean(message))
            .await
    }
}
