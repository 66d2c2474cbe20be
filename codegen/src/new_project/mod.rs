//! `harness-codegen new DIR`: a project of one's own, with the harness crates by path (this
//! repository) or by git: a server with one tool (`server`), or with `--upstream ...` a
//! gateway in front of a server the user already runs (`gateway`); what both are made of is
//! in `parts`.

mod gateway;
mod parts;
mod server;

pub use self::gateway::{Launch, UpstreamLaunch, create_gateway};
pub use self::parts::{NewError, STARTING_OUTPUT_CAPS, Source};
pub use self::server::create;
