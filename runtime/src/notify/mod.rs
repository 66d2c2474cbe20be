//! What a body tells the client while it runs: progress and log messages. Each is sent only
//! when the client asked for it (a progress token on the request; a log level set for the
//! session or carried by the request), never after the call was cancelled, through the tag
//! strip, and bounded, so a body cannot flood the client or smuggle instructions past the
//! output guards.

pub(crate) mod logging;
mod notifier;
pub(crate) mod progress;

pub use self::logging::{LogLevel, SessionLogLevel};
pub(crate) use self::notifier::{Notifier, Requested};
