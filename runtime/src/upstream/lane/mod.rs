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
//! Lane ids start at [`call::FIRST_ID`], far above rmcp's (a 32-bit counter from 0), so the
//! two never meet; a lane call that wants progress or logs carries its id as its progress
//! token. Only connections whose protocol has an `initialize` handshake (2025-11-25) use a
//! lane: a later protocol puts the client's identity in every request's `_meta`, which rmcp
//! keeps.

mod call;
mod events;
mod pipe;
mod post;

use std::sync::Arc;

pub(crate) use call::{Answer, is_lane_id, progress_token};
pub(crate) use pipe::PipeLane;
pub(crate) use post::{Inbound, LastSent, PostLane, Posting};

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
