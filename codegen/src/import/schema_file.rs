//! A tool whose inputSchema the grammar cannot say, kept whole in a schema file beside the
//! manifest (`input_schema = "schemas/<tool>.json"`): added with its file staged (never over
//! a file already there with other content), or, once pinned, checked against both its pin
//! and the file the live inputSchema makes; `--update-pins` rewrites the two together.

use serde_json::Value;
use toml_edit::DocumentMut;

use crate::import::diff::{definition_view, unified};
use crate::import::edit::{self, BoundTool};
use crate::import::entry::{schema_file_entry, table};
use crate::import::error::ImportError;
use crate::import::fallback::{file_for, schema_text};
use crate::import::join::{Target, join, plain};
use crate::import::report::{Outcome, ToolReport};
use crate::import::staging::{Staging, read_optional};
use crate::import::translate::Unsupported;

/// Whether `name` is a valid MCP tool name, hence a plain file name (no separator).
fn plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn live_schema(live: &Value) -> &Value {
    live.get("inputSchema").unwrap_or(&Value::Null)
}

/// Adds the upstream tool `name`, whose inputSchema uses `constructs` the grammar cannot
/// say, with its schema kept whole in `schemas/<name>.json`.
pub(crate) fn add(
    doc: &mut DocumentMut,
    staging: &mut Staging,
    target: &Target<'_>,
    live: &Value,
    name: &str,
    constructs: &[Unsupported],
) -> Result<ToolReport, ImportError> {
    let constructs: Vec<String> = constructs.iter().map(ToString::to_string).collect();
    let made = match schema_text(live_schema(live)) {
        Ok(made) => made,
        Err(refused) => {
            let outcome = Outcome::Unsupported {
                constructs,
                refused,
            };
            return Ok(plain(name, outcome));
        }
    };
    if !plain_file_name(name) {
        let errors = format!(
            "invalid tool name `{name}`: use 1 to 128 ASCII letters, digits, `_`, `-` or `.` (it also names its schema file)\n"
        );
        return Ok(plain(name, Outcome::Invalid { errors }));
    }
    let file = file_for(name);
    let existing = match read_optional(&target.base_dir.join(&file)) {
        Ok(None) => false,
        Ok(Some(text)) if text == made.text => true,
        Ok(Some(_)) | Err(_) => return Ok(plain(name, Outcome::SchemaFileTaken { file })),
    };
    if !existing {
        staging.stage(&file, made.text, None)?;
    }
    let entry = schema_file_entry(live, &file, made.audits);
    let report = ToolReport {
        name: name.to_owned(),
        outcome: Outcome::AddedWithSchemaFile {
            pin_sha256: entry.pin_sha256.clone(),
            file: file.clone(),
            constructs,
            rewritten: made.rewritten,
            existing,
        },
        audits: entry.audits.clone(),
        notes: entry.notes.clone(),
    };
    let report = join(doc, staging, target, &entry, report)?;
    if !matches!(report.outcome, Outcome::AddedWithSchemaFile { .. }) {
        staging.unstage(&file);
    }
    Ok(report)
}

/// A pinned tool whose inputSchema is kept whole in `file`: unchanged when the pin matches
/// the live definition and the file is what its inputSchema makes; otherwise drifted, with
/// the entry's and the file's differences (both replaced with `--update-pins`).
pub(crate) fn check(
    doc: &mut DocumentMut,
    staging: &mut Staging,
    target: &Target<'_>,
    existing: &BoundTool,
    file: &str,
    live: &Value,
) -> Result<ToolReport, ImportError> {
    let live_sha256 = harness_contract::definition_sha256(live);
    let pin_matches = existing.pin.as_deref() == Some(live_sha256.as_str());
    let path = target.base_dir.join(file);
    let on_disk = read_optional(&path)
        .map_err(|source| ImportError::Read {
            path: path.clone(),
            source,
        })?
        .unwrap_or_default();
    let made = schema_text(live_schema(live));
    let mut notes = Vec::new();
    let file_diff = match &made {
        Ok(made) => unified(
            &on_disk,
            &made.text,
            &format!("{file} (now)"),
            &format!("{file} (from the live inputSchema)"),
        ),
        Err(refused) => {
            notes.push(format!(
                "the live inputSchema cannot be written to {file} as it is ({}); the file is kept as it is",
                refused.join("; ")
            ));
            String::new()
        }
    };
    if pin_matches && file_diff.is_empty() {
        let mut report = plain(&existing.remote_name, Outcome::Unchanged);
        report.notes = notes;
        return Ok(report);
    }
    let audits = made
        .as_ref()
        .map(|made| made.audits.clone())
        .unwrap_or_default();
    let fresh = schema_file_entry(live, file, audits);
    let current = edit::tool(doc, existing.index)
        .map(definition_view)
        .unwrap_or_default();
    let mut diff = unified(
        &current,
        &definition_view(&table(&fresh, &existing.name, "")),
        &format!("manifest: {}", existing.name),
        &format!("live: {}", existing.remote_name),
    );
    diff.push_str(&file_diff);
    if made.is_err() {
        let pinned = harness_contract::upstream::pinned_definition(live);
        diff.push_str("the live definition:\n");
        diff.push_str(&serde_json::to_string_pretty(&pinned).expect("JSON serializes"));
        diff.push('\n');
    }
    if diff.is_empty() {
        diff = "(the same entry and file: the change is in what the manifest does not state, such as the outputSchema or text the audit strips)\n".to_owned();
    }
    let updated = match (&made, target.update_pins) {
        (Ok(made), true) => {
            let replacement = Replacement {
                file,
                pin: &live_sha256,
                text: made.text.clone(),
                on_disk,
            };
            update(doc, staging, target, existing, replacement, &mut notes)?
        }
        (Err(_), true) => {
            notes.push(format!(
                "--update-pins: pin and {file} kept, as the file cannot be written from the live inputSchema"
            ));
            false
        }
        (_, false) => false,
    };
    Ok(ToolReport {
        name: existing.remote_name.clone(),
        outcome: Outcome::Drifted {
            pinned: existing.pin.clone().unwrap_or_default(),
            live: live_sha256,
            diff,
            updated,
            file: Some(file.to_owned()),
        },
        audits: fresh.audits,
        notes: fresh.notes.into_iter().chain(notes).collect(),
    })
}

/// What `--update-pins` puts in place of a drifted tool's pin and schema file.
struct Replacement<'a> {
    /// The schema file, as the manifest names it.
    file: &'a str,
    /// The live digest.
    pin: &'a str,
    /// The file the live inputSchema makes.
    text: String,
    /// The file as it is.
    on_disk: String,
}

/// `--update-pins` on a drifted tool with a schema file: the new pin and file, kept only if
/// the manifest validates with them.
fn update(
    doc: &mut DocumentMut,
    staging: &mut Staging,
    target: &Target<'_>,
    existing: &BoundTool,
    new: Replacement<'_>,
    notes: &mut Vec<String>,
) -> Result<bool, ImportError> {
    let file = new.file;
    let rewrite = new.text != new.on_disk;
    let repin = existing.pin.as_deref() != Some(new.pin);
    if repin && !edit::set_pin(doc, existing.index, new.pin) {
        notes.push("--update-pins: the entry has no pin_sha256 to update".to_owned());
        return Ok(false);
    }
    if rewrite {
        staging.stage(file, new.text, Some(new.on_disk))?;
    }
    let Err(errors) = staging.load(&doc.to_string(), target.name, target.base_dir) else {
        return Ok(true);
    };
    if rewrite {
        staging.unstage(file);
    }
    if repin && let Some(pin) = &existing.pin {
        edit::set_pin(doc, existing.index, pin);
    }
    notes.push(format!(
        "--update-pins: pin and {file} kept, as the manifest would not validate with them:\n{errors}"
    ));
    Ok(false)
}
