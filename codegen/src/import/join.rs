//! The manifest an import edits (`Target`) and how a new entry joins it: appended, then kept
//! only if the manifest still validates with it (and with the staged schema files), so a
//! tool the model would refuse is reported and left out instead of breaking the manifest.
//! An entry joins with the output caps [`STARTING_OUTPUT_CAPS`] names, in its own `guards`,
//! where the manifest's `[defaults.guards]` does not cap it already. Shared by `plan` and
//! `schema_file`.
//!
//! [`STARTING_OUTPUT_CAPS`]: crate::new_project::STARTING_OUTPUT_CAPS

use std::path::Path;

use toml_edit::{DocumentMut, InlineTable};

use crate::import::edit;
use crate::import::entry::{Entry, table};
use crate::import::error::ImportError;
use crate::import::report::{Outcome, ToolReport};
use crate::import::selection::Selection;
use crate::import::staging::Staging;

/// Where the manifest is and what to do.
pub(crate) struct Target<'a> {
    /// The manifest text.
    pub(crate) source: &'a str,
    /// Its display name.
    pub(crate) name: &'a str,
    /// Where the files it names are.
    pub(crate) base_dir: &'a Path,
    /// The upstream's name.
    pub(crate) upstream: &'a str,
    /// Which tools to import.
    pub(crate) selection: &'a Selection,
    /// `--update-pins`.
    pub(crate) update_pins: bool,
}

/// The report of a tool with nothing but its outcome to say.
pub(crate) fn plain(name: &str, outcome: Outcome) -> ToolReport {
    ToolReport {
        name: name.to_owned(),
        outcome,
        audits: Vec::new(),
        notes: Vec::new(),
    }
}

/// Appends `entry` as the tool `report` names, and keeps it if it validates in the manifest
/// it joins (with the staged schema files); otherwise `report` says why it was left out.
pub(crate) fn join(
    doc: &mut DocumentMut,
    staging: &Staging,
    target: &Target<'_>,
    entry: &Entry,
    mut report: ToolReport,
) -> Result<ToolReport, ImportError> {
    if entry.description.is_empty() {
        report.outcome = Outcome::Invalid {
            errors: "its description is empty (or nothing is left once the audit strips it); the model chooses tools by their description\n".to_owned(),
        };
        return Ok(report);
    }
    let mut tool = table(entry, &report.name, target.upstream);
    let caps = edit::caps_the_defaults_lack(doc);
    if !caps.is_empty() {
        let mut guards = InlineTable::new();
        for (key, value) in &caps {
            guards.insert(*key, i64::try_from(*value).unwrap_or(i64::MAX).into());
        }
        let written = guards.to_string();
        tool.insert("guards", toml_edit::value(guards));
        report.notes.push(format!(
            "output capped by `guards = {}` ([defaults.guards] sets no such cap): raise it there on purpose",
            written.trim()
        ));
    }
    edit::append(doc, tool).map_err(|message| edit_error(target, message))?;
    if let Err(errors) = staging.load(&doc.to_string(), target.name, target.base_dir) {
        edit::remove_last(doc);
        report.outcome = Outcome::Invalid { errors };
    }
    Ok(report)
}

/// An edit of the manifest that failed, as the import's error.
pub(crate) fn edit_error(target: &Target<'_>, message: String) -> ImportError {
    ImportError::Edit {
        manifest: target.name.to_owned(),
        message,
    }
}
