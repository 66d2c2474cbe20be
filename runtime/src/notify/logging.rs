//! Log messages to the client (`notifications/message`): sent only at or above the level the
//! client asked for (2025-11-25: `logging/setLevel` for the session; 2026-07-28: the request's
//! own `_meta` level), and at most [`MAX_MESSAGES_PER_CALL`] per call.

#![allow(
    deprecated,
    reason = "rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 clients still use it"
)]

use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use serde_json::Value;

use rmcp::service::{Peer, RoleServer};

/// The most log messages one call sends; the rest are dropped, and the server log says so.
pub(crate) const MAX_MESSAGES_PER_CALL: u32 = 100;

/// A log message's severity (RFC 5424, as MCP uses it), least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    const ALL: [Self; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    pub(crate) fn to_rmcp(self) -> LoggingLevel {
        match self {
            Self::Debug => LoggingLevel::Debug,
            Self::Info => LoggingLevel::Info,
            Self::Notice => LoggingLevel::Notice,
            Self::Warning => LoggingLevel::Warning,
            Self::Error => LoggingLevel::Error,
            Self::Critical => LoggingLevel::Critical,
            Self::Alert => LoggingLevel::Alert,
            Self::Emergency => LoggingLevel::Emergency,
        }
    }

    pub(crate) fn from_rmcp(level: LoggingLevel) -> Self {
        Self::ALL
            .into_iter()
            .find(|ours| ours.to_rmcp() == level)
            .unwrap_or(Self::Emergency)
    }
}

/// The level a 2025-11-25 session set with `logging/setLevel`. Transports clone the generated
/// handler once per session, so a clone starts with no level: one session's choice never
/// reaches another.
#[derive(Debug, Default)]
pub struct SessionLogLevel(AtomicU8);

impl Clone for SessionLogLevel {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl SessionLogLevel {
    /// Records the session's level (`logging/setLevel`).
    pub fn set(&self, level: LoggingLevel) {
        self.0
            .store(LogLevel::from_rmcp(level) as u8 + 1, Ordering::Relaxed);
    }

    /// The session's level, if it set one.
    pub fn get(&self) -> Option<LogLevel> {
        let stored = self.0.load(Ordering::Relaxed);
        stored
            .checked_sub(1)
            .and_then(|index| LogLevel::ALL.get(usize::from(index)).copied())
    }
}

/// One call's threshold and the messages it has sent.
#[derive(Debug)]
pub(crate) struct LogState {
    threshold: LogLevel,
    sent: AtomicU32,
}

impl LogState {
    pub(crate) fn new(threshold: LogLevel) -> Self {
        Self {
            threshold,
            sent: AtomicU32::new(0),
        }
    }

    #[cfg(feature = "gateway")]
    /// The lowest level the client wants.
    pub(crate) fn threshold(&self) -> LogLevel {
        self.threshold
    }
}

impl LogState {
    /// Sends `message` if the client's level admits it and the call's allowance is not spent;
    /// true if sent.
    pub(crate) async fn send(
        &self,
        peer: &Peer<RoleServer>,
        level: LogLevel,
        logger: &str,
        message: String,
    ) -> bool {
        if level < self.threshold {
            return false;
        }
        let sent = self.sent.fetch_add(1, Ordering::Relaxed);
        if sent >= MAX_MESSAGES_PER_CALL {
            if sent == MAX_MESSAGES_PER_CALL {
                tracing::warn!(
                    tool = logger,
                    limit = MAX_MESSAGES_PER_CALL,
                    "tool body logs too much; further client log messages of this call are dropped"
                );
            }
            return false;
        }
        let mut param =
            LoggingMessageNotificationParam::new(level.to_rmcp(), Value::String(message));
        param.logger = Some(logger.to_owned());
        peer.notify_logging_message(param).await.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_convert_both_ways_and_order_by_severity() {
        for level in LogLevel::ALL {
            assert_eq!(LogLevel::from_rmcp(level.to_rmcp()), level);
        }
        assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
    }

    #[test]
    fn a_session_level_is_kept_and_a_clone_starts_without_one() {
        let session = SessionLogLevel::default();
        assert_eq!(session.get(), None);
        session.set(LoggingLevel::Warning);
        assert_eq!(session.get(), Some(LogLevel::Warning));
        assert_eq!(session.clone().get(), None);
    }
}
