//! The direct lanes: a `tools/call` sent by the task that makes it and its answer handed
//! straight back, beside rmcp's client service rather than through it.
//!
//! Through rmcp a call is a message to its service task, to the transport's own task, and back
//! through both to the caller: a fifth of the gateway's instructions a call over stdio, more
//! over HTTP (BENCHMARKS.md, section 2d). Everything else a connection carries (the handshake,
//! lists, reads, notifications both ways, the upstream's own requests, cancellations) still
//! goes through rmcp. Two lanes, one per kind of transport:
//! - [`PipeLane`]: a stdio child's; the request is written to its stdin through the writer
//!   rmcp's sends share, and the reader of its stdout hands the reply back.
//! - [`PostLane`]: a streamable HTTP upstream's; the request is POSTed by the calling task with
//!   the session and headers rmcp's client last sent, and the answer read from that POST's own
//!   response.
//!
//! Lane ids start at [`FIRST_ID`], far above rmcp's (a 32-bit counter from 0), so the two never
//! meet; a lane call that wants progress or logs carries its id as its progress token. Only
//! connections whose protocol has an `initialize` handshake (2025-11-25) use a lane: a later
//! protocol puts the client's identity in every request's `_meta`, which rmcp keeps.

mod pipe;
mod post;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::ServiceError;
use rmcp::model::{NumberOrString, ProgressToken, RequestId, ServerResult};

pub(crate) use pipe::PipeLane;
pub(crate) use post::{Inbound, LastSent, PostLane, Posting};

/// The first id a lane gives a request (2^40: beyond any id rmcp's 32-bit counter reaches,
/// and exact in every JSON number reader, JavaScript's included).
pub(crate) const FIRST_ID: i64 = 1 << 40;

/// What a lane call's reply is, as rmcp's peer would give it.
pub(crate) type Answer = Result<ServerResult, ServiceError>;

/// A connection's direct lane.
#[derive(Clone)]
pub(crate) enum Lane {
    /// A stdio child's.
    Pipe(Arc<PipeLane>),
    /// A streamable HTTP upstream's.
    Post(Arc<PostLane>),
}

impl Lane {
    /// The id of the next call on this lane.
    pub(crate) fn next_id(&self) -> i64 {
        match self {
            Self::Pipe(lane) => lane.ids.next(),
            Self::Post(lane) => lane.ids.next(),
        }
    }
}

/// The ids one lane gives its calls, from [`FIRST_ID`] up.
#[derive(Default)]
pub(crate) struct Ids(AtomicU64);

impl Ids {
    /// The next id.
    pub(crate) fn next(&self) -> i64 {
        let sequence = self.0.fetch_add(1, Ordering::Relaxed);
        FIRST_ID.saturating_add(i64::try_from(sequence).unwrap_or(i64::MAX))
    }
}

/// The progress token of lane call `id`: its id.
pub(crate) fn progress_token(id: i64) -> ProgressToken {
    ProgressToken(NumberOrString::Number(id))
}

/// Whether `id` is one a lane gives (otherwise the message is rmcp's).
pub(crate) fn is_lane_id(id: &RequestId) -> bool {
    matches!(id, RequestId::Number(id) if *id >= FIRST_ID)
}
