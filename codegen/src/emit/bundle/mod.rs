//! The Harbor task directory: one emitter per file. TOML and YAML are typed
//! values serialized by their crates; prose and Dockerfiles come from templates/.
//!
//! This file only declares and re-exports.

mod compose;
mod files;
mod judge;
mod layout;
mod ledger;
mod task_toml;
mod templated;

pub use files::{PREFIX, files};
pub use layout::{binary_name, binary_paths, health_address};
pub use ledger::published_tools;
