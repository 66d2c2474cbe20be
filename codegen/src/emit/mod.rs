//! Stage 3: one emitter per artifact, each seeing only the validated model.
//!
//! This file only declares and re-exports.

mod artifacts;
pub mod bundle;
mod options;
pub mod rust;
pub mod schema;

pub use artifacts::{Artifacts, SERVER_FILE, emit_all};
pub use options::{EmitOptions, generated_notice};
