//! Everything between a client and the server: stdio, streamable HTTP (with the stateless
//! fast path and its front door) and the legacy HTTP+SSE transport; the HTTP edge holding every connection to
//! the manifest's limits; the HTTP security checks in front of them; one answer to every
//! JSON-RPC batch;
//! the duplicate-key check on every raw message; the requests in flight that a graceful
//! shutdown waits for; and the router to embed in an existing axum application.

pub(crate) mod batch;
pub(crate) mod duplicate_keys;
pub(crate) mod edge;
pub mod embed;
pub(crate) mod error;
pub(crate) mod fast_path;
pub(crate) mod front_door;
pub(crate) mod head_timer;
pub(crate) mod http;
pub(crate) mod in_flight;
pub(crate) mod ingress;
pub(crate) mod security;
pub(crate) mod sse;
pub(crate) mod stdio;

pub use self::duplicate_keys::mark_duplicate_arguments;
pub use self::edge::HttpLimits;
pub use self::error::ServeError;
pub use self::fast_path::StatelessAnswer;
pub use self::http::{HttpOptions, HttpTransport, MissingToken, http_router, serve_http};
pub use self::stdio::serve_stdio;
