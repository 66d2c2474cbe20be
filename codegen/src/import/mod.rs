//! `harness-codegen import NAME` (feature `import`): reads the `tools/list` of the upstream
//! the manifest names, and writes each tool as a pinned `[[tools]]` entry, editing
//! `harness.toml` in place.
//!
//! One concern per file: `spec` (the model's upstream as the runtime's spec), `fetch` (one
//! `tools/list` through the runtime's client), `translate` (JSON Schema to the argument
//! grammar, or the constructs it cannot say), `poisoning` (the description audit), `entry`
//! (a live definition as a manifest entry and its table), `edit` (the `toml_edit` document),
//! `diff` (what drifted, what would change), `plan` (the import without I/O), `report` and
//! `error`. This file reads and writes the manifest.
//!
//! The manifest keeps everything the user wrote: new tools are appended after the last
//! `[[tools]]` entry; a tool already pinned is never rewritten, only compared with its live
//! definition (`--update-pins` replaces its `pin_sha256` value and nothing else). Whatever is
//! written validates: each new entry is checked in the manifest it joins, and the result is
//! loaded again from disk after writing.

mod diff;
mod edit;
mod entry;
mod error;
mod fetch;
mod plan;
mod poisoning;
mod report;
mod spec;
mod translate;

pub use self::error::ImportError;
pub use self::poisoning::{DescriptionAudit, HiddenCounts, INSTRUCTION_PATTERNS, Removed};
pub use self::report::{ImportReport, Outcome, ToolReport};

use std::path::{Path, PathBuf};

use serde_json::Value;

/// What to import, from where, into which manifest.
#[derive(Debug, Clone)]
pub struct ImportRequest {
    /// The manifest (`harness.toml`).
    pub manifest: PathBuf,
    /// The `[[upstreams]]` entry to read.
    pub upstream: String,
    /// `--tools a,b`: only these upstream tools (all when `None`).
    pub tools: Option<Vec<String>>,
    /// `--update-pins`: replace the pins of drifted tools.
    pub update_pins: bool,
    /// `--dry-run`: report and show the diff, write nothing.
    pub dry_run: bool,
}

impl ImportRequest {
    /// Every tool of `upstream` into `manifest`, writing, keeping pins.
    pub fn new(manifest: impl Into<PathBuf>, upstream: impl Into<String>) -> Self {
        Self {
            manifest: manifest.into(),
            upstream: upstream.into(),
            tools: None,
            update_pins: false,
            dry_run: false,
        }
    }
}

/// Connects to the upstream (as the generated server would), reads its tools and imports
/// them. Runs its own tokio runtime: call it outside one.
pub fn import(request: &ImportRequest) -> Result<ImportReport, ImportError> {
    let manifest = Manifest::read(&request.manifest)?;
    let model = plan::load(&manifest.source, &manifest.name, &manifest.base_dir)?;
    let upstream = plan::find_upstream(&model, &request.upstream, &manifest.name)?;
    let live = fetch::fetch(spec::leak(upstream))?;
    finish(request, &manifest, &live)
}

/// [`import`] with the upstream's `tools/list` entries given (as JSON), for callers that
/// read them some other way, and for tests.
pub fn import_definitions(
    request: &ImportRequest,
    live: &[Value],
) -> Result<ImportReport, ImportError> {
    finish(request, &Manifest::read(&request.manifest)?, live)
}

/// The manifest as read.
struct Manifest {
    source: String,
    name: String,
    base_dir: PathBuf,
}

impl Manifest {
    fn read(path: &Path) -> Result<Self, ImportError> {
        let source = std::fs::read_to_string(path).map_err(|source| ImportError::Read {
            path: path.to_owned(),
            source,
        })?;
        let base_dir = path
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        Ok(Self {
            source,
            name: path.display().to_string(),
            base_dir,
        })
    }
}

fn finish(
    request: &ImportRequest,
    manifest: &Manifest,
    live: &[Value],
) -> Result<ImportReport, ImportError> {
    let target = plan::Target {
        source: &manifest.source,
        name: &manifest.name,
        base_dir: &manifest.base_dir,
        upstream: &request.upstream,
        selection: request.tools.as_deref(),
        update_pins: request.update_pins,
    };
    let planned = plan::plan(&target, live)?;
    let changed = planned.source != manifest.source;
    let invalid = |what| {
        move |errors: crate::ManifestErrors| ImportError::Invalid {
            what,
            errors: errors.render_plain(),
        }
    };
    if changed {
        crate::builder::load(&planned.source, &manifest.name, &manifest.base_dir)
            .map_err(invalid("would write"))?;
    }
    let written = changed && !request.dry_run;
    if written {
        let write_error = |source| ImportError::Write {
            path: request.manifest.clone(),
            source,
        };
        std::fs::write(&request.manifest, &planned.source).map_err(write_error)?;
        let reread = Manifest::read(&request.manifest)?;
        crate::builder::load(&reread.source, &reread.name, &reread.base_dir)
            .map_err(invalid("wrote"))?;
    }
    Ok(ImportReport {
        upstream: request.upstream.clone(),
        manifest: manifest.name.clone(),
        offered: live.len(),
        tools: planned.tools,
        manifest_diff: diff::unified(
            &manifest.source,
            &planned.source,
            &format!("{} (now)", manifest.name),
            &format!("{} (after import)", manifest.name),
        ),
        written,
        dry_run: request.dry_run,
        asked_for_tools: request.tools.is_some(),
    })
}
