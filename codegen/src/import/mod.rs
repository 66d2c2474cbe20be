//! `harness-codegen import NAME` (feature `import`): reads what the upstream the manifest
//! names offers (its tools, prompts, resources, resource templates and skills), and writes
//! each as a pinned `[[tools]]`, `[[prompts]]`, `[[resources]]`, `[[resource_templates]]` or
//! `[[skills]]` entry, editing `harness.toml` in place.
//!
//! One concern per file: `spec` (the model's upstream as the runtime's spec), `fetch` (its
//! lists, once, through the runtime's client), `catalog` (prompts, resources and templates:
//! entries, pins, drift), `skills` (an upstream's skills: their entry, and the audit of their
//! frontmatter and files), `translate` (JSON Schema to the argument
//! grammar, or the constructs it cannot say), `fallback` (the text of the schema file that
//! keeps whole what the grammar cannot say), `poisoning` (the description audit), `entry` (a
//! live definition as a manifest entry and its table), `edit` (the `toml_edit` document),
//! `schema_file` (a tool kept in a schema file, added or checked), `staging` (schema files
//! checked before they are written), `diff` (what drifted, what would change), `selection`
//! (which tools: least privilege by default), `plan` (the import, writing nothing), `cargo_features` (the runtime features the package needs, added
//! to its Cargo.toml), `report` and `error`. This file reads and writes the manifest and the
//! schema files.
//!
//! The manifest keeps everything the user wrote: new tools are appended after the last
//! `[[tools]]` entry; a tool already pinned is never rewritten, only compared with its live
//! definition (`--update-pins` replaces its `pin_sha256` value, and the schema file of a tool
//! that has one, and nothing else). A schema file is never written over a file import did
//! not make. Whatever is written validates: each new entry is checked in the manifest it
//! joins with its schema file, the whole result before anything is written, and the result
//! again from disk after writing.

mod cargo_features;
mod catalog;
mod diff;
mod edit;
mod entry;
mod error;
mod fallback;
mod fetch;
mod join;
mod plan;
mod poisoning;
mod report;
mod schema_file;
mod selection;
mod skills;
mod spec;
mod staging;
mod translate;

pub use self::cargo_features::CargoFeatures;
pub use self::error::ImportError;
pub use self::poisoning::{DescriptionAudit, HiddenCounts, INSTRUCTION_PATTERNS, Removed};
pub use self::report::{ImportReport, Outcome, SchemaFileChange, ToolReport};
pub use self::selection::Selection;

use std::path::{Path, PathBuf};

pub use harness_runtime::upstream::Offered;
use serde_json::Value;

/// What to import, from where, into which manifest.
#[derive(Debug, Clone)]
pub struct ImportRequest {
    /// The manifest (`harness.toml`).
    pub manifest: PathBuf,
    /// The `[[upstreams]]` entry to read.
    pub upstream: String,
    /// Which of the upstream's tools to pin.
    pub tools: Selection,
    /// `--update-pins`: replace the pins of drifted tools.
    pub update_pins: bool,
    /// `--dry-run`: report and show the diff, write nothing.
    pub dry_run: bool,
}

impl ImportRequest {
    /// The read-only tools of `upstream` into `manifest`, writing, keeping pins.
    pub fn new(manifest: impl Into<PathBuf>, upstream: impl Into<String>) -> Self {
        Self {
            manifest: manifest.into(),
            upstream: upstream.into(),
            tools: Selection::ReadOnly,
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
    let offered = fetch::fetch(spec::leak(upstream))?;
    finish(request, &manifest, &offered)
}

/// [`import`] with the upstream's `tools/list` entries given (as JSON), for callers that
/// read them some other way, and for tests.
pub fn import_definitions(
    request: &ImportRequest,
    live: &[Value],
) -> Result<ImportReport, ImportError> {
    let offered = Offered {
        tools: live.to_vec(),
        ..Offered::default()
    };
    import_offered(request, &offered)
}

/// [`import`] with everything the upstream offers given (each list's entries as JSON).
pub fn import_offered(
    request: &ImportRequest,
    offered: &Offered,
) -> Result<ImportReport, ImportError> {
    finish(request, &Manifest::read(&request.manifest)?, offered)
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
    offered: &Offered,
) -> Result<ImportReport, ImportError> {
    let target = join::Target {
        source: &manifest.source,
        name: &manifest.name,
        base_dir: &manifest.base_dir,
        upstream: &request.upstream,
        selection: &request.tools,
        update_pins: request.update_pins,
    };
    let planned = plan::plan(&target, offered)?;
    let manifest_changed = planned.source != manifest.source;
    let staged = planned.staging.files();
    let invalid = |what| move |errors: String| ImportError::Invalid { what, errors };
    let model = planned
        .staging
        .load(&planned.source, &manifest.name, &manifest.base_dir)
        .map_err(invalid("would write"))?;
    let write = !request.dry_run && (manifest_changed || !staged.is_empty());
    if write {
        let files = planned.staging.write(&manifest.base_dir)?;
        if manifest_changed && let Err(source) = std::fs::write(&request.manifest, &planned.source)
        {
            files.undo();
            return Err(ImportError::Write {
                path: request.manifest.clone(),
                source,
            });
        }
        let reread = Manifest::read(&request.manifest)?;
        crate::builder::load(&reread.source, &reread.name, &reread.base_dir)
            .map_err(|errors| invalid("wrote")(errors.render_plain()))?;
    }
    // The package's Cargo.toml is planned here and written last, only by an import that
    // succeeds: one that fails leaves every file as it was.
    let features = model.runtime_features();
    let cargo_toml = |dry_run| {
        cargo_features::ensure(&manifest.base_dir, &features, dry_run).map_err(|source| {
            ImportError::Write {
                path: manifest.base_dir.join("Cargo.toml"),
                source,
            }
        })
    };
    let cargo_features = cargo_toml(true)?;
    let schema_files = staged
        .iter()
        .map(|staged| SchemaFileChange {
            file: staged.file.clone(),
            diff: diff::unified(
                staged.previous.as_deref().unwrap_or_default(),
                &staged.text,
                &match staged.previous {
                    Some(_) => format!("{} (now)", staged.file),
                    None => "/dev/null".to_owned(),
                },
                &format!("{} (after import)", staged.file),
            ),
            written: write,
        })
        .collect();
    let mut report = ImportReport {
        upstream: request.upstream.clone(),
        manifest: manifest.name.clone(),
        offered: offered.tools.len(),
        tools: planned.tools,
        offered_catalog: offered.prompts.len()
            + offered.resources.len()
            + offered.templates.len()
            + offered.skills.len(),
        catalog: planned.catalog,
        manifest_diff: diff::unified(
            &manifest.source,
            &planned.source,
            &format!("{} (now)", manifest.name),
            &format!("{} (after import)", manifest.name),
        ),
        written: write && manifest_changed,
        schema_files,
        cargo_features,
        dry_run: request.dry_run,
        asked_for_tools: request.tools.is_named(),
    };
    if !request.dry_run
        && !report.needs_attention()
        && matches!(report.cargo_features, Some(CargoFeatures::Added { .. }))
    {
        report.cargo_features = cargo_toml(false)?;
    }
    Ok(report)
}
