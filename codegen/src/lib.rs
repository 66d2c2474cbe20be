//! harness-codegen: `harness.toml` -> validated model -> generated artifacts.
//!
//! Three stages with their own types: [`manifest`] (the raw serde mirror), [`model`] (every
//! name resolved and every rule checked, all errors collected) and [`emit`] (one emitter per
//! artifact). [`Builder`] runs them from a build script; [`scaffold`] writes tool stubs. With
//! the `import` feature (off by default, so build scripts never build an MCP client),
//! `import` pins an upstream's tools into the manifest.

pub mod builder;
pub mod diagnostics;
pub mod emit;
mod error_sink;
pub mod ident;
#[cfg(feature = "import")]
pub mod import;
pub mod manifest;
pub mod manifest_path;
pub mod model;
pub mod new_project;
pub mod scaffold;
mod source;
mod templates;

pub use builder::{BuildError, Builder, build_script, generate, load};
pub use diagnostics::ManifestErrors;
pub use emit::{Artifacts, EmitOptions};
pub use manifest::manifest_json_schema;
