//! Why an import could not run or could not write its result.

use std::io;
use std::path::PathBuf;

/// Why `harness-codegen import` failed as a whole (a tool it cannot import is reported in
/// the [`crate::import::ImportReport`] instead).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The manifest (or a schema file beside it) could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The manifest (or a schema file beside it) could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The manifest does not validate before the import (rendered errors).
    #[error("{0}\nerror: import edits only a manifest that validates: fix the errors above first")]
    Manifest(String),
    /// The manifest is not TOML the editor can edit in place.
    #[error("error: cannot edit {manifest}: {message}")]
    Edit {
        /// The manifest's display name.
        manifest: String,
        /// What is in the way.
        message: String,
    },
    /// A schema file could not be staged in the system's temporary directory.
    #[error("cannot stage a schema file at {path}: {source}")]
    Stage {
        /// The scratch file or directory.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// A schema file changed on disk between reading and writing: nothing of the import
    /// is left written.
    #[error("error: {path} changed while import ran: nothing written; run the import again")]
    Changed {
        /// The schema file.
        path: PathBuf,
    },
    /// The manifest declares no `[[upstreams]]` entry of that name.
    #[error(
        "error: no upstream is named `{name}` in {manifest}{}",
        known_list(known)
    )]
    UnknownUpstream {
        /// The name asked for.
        name: String,
        /// The manifest's display name.
        manifest: String,
        /// The upstreams it declares.
        known: Vec<String>,
    },
    /// The MCP client could not start.
    #[error("error: cannot start the MCP client: {0}")]
    Runtime(io::Error),
    /// The upstream could not be reached or did not list its tools.
    #[error("error: {0}")]
    Fetch(#[from] harness_runtime::upstream::FetchError),
    /// The edited manifest does not validate: nothing was written (or, when the file on
    /// disk fails after writing, what it says).
    #[error(
        "{errors}\nerror: the manifest import {what} does not validate (a bug of import: please report it)"
    )]
    Invalid {
        /// `would write` or `wrote`.
        what: &'static str,
        /// The rendered errors.
        errors: String,
    },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        ": it declares no [[upstreams]]".to_owned()
    } else {
        format!(" (declared: {})", known.join(", "))
    }
}
