//! One import over manifest text and an upstream's live tools, writing nothing in the
//! project: which tools are added, which are checked against their pins, the edited text and
//! the schema files to write (staged, see `staging`). Each new entry is checked by the model
//! in the manifest it joins, with its schema file, before it stays, so a tool the model would
//! refuse (a name clash after case conversion, a bad default, a schema file the build
//! refuses...) is reported and left out instead of breaking the manifest.

use std::path::Path;

use serde_json::Value;
use toml_edit::DocumentMut;

use harness_runtime::upstream::Offered;

use crate::builder;
use crate::import::catalog;
use crate::import::diff::{definition_view, unified};
use crate::import::edit::{self, BoundTool};
use crate::import::entry::{Entry, entry, table};
use crate::import::error::ImportError;
use crate::import::join::{Target, edit_error, join, plain};
use crate::import::report::{Outcome, ToolReport};
use crate::import::schema_file;
use crate::import::selection::Selection;
use crate::import::staging::Staging;
use crate::model::{Model, UpstreamModel};

/// The edited manifest text, the schema files to write with it, and what happened to each
/// tool, and to each prompt, resource and template.
pub(crate) struct Plan {
    pub(crate) source: String,
    pub(crate) tools: Vec<ToolReport>,
    pub(crate) catalog: Vec<ToolReport>,
    pub(crate) staging: Staging,
}

/// The manifest's model, or its rendered errors.
pub(crate) fn load(source: &str, name: &str, base_dir: &Path) -> Result<Model, ImportError> {
    builder::load(source, name, base_dir)
        .map_err(|errors| ImportError::Manifest(errors.render_plain()))
}

/// The upstream named `name` in `model`.
pub(crate) fn find_upstream<'m>(
    model: &'m Model,
    name: &str,
    manifest: &str,
) -> Result<&'m UpstreamModel, ImportError> {
    model
        .upstreams
        .iter()
        .find(|upstream| upstream.name == name)
        .ok_or_else(|| ImportError::UnknownUpstream {
            name: name.to_owned(),
            manifest: manifest.to_owned(),
            known: model.upstreams.iter().map(|u| u.name.clone()).collect(),
        })
}

/// Plans the import of what the upstream offers into the target.
pub(crate) fn plan(target: &Target<'_>, offered: &Offered) -> Result<Plan, ImportError> {
    let live = offered.tools.as_slice();
    let model = load(target.source, target.name, target.base_dir)?;
    find_upstream(&model, target.upstream, target.name)?;
    let mut doc: DocumentMut = target
        .source
        .parse()
        .map_err(|error: toml_edit::TomlError| edit_error(target, error.to_string()))?;
    let bound =
        edit::bound_tools(&doc, target.upstream).map_err(|message| edit_error(target, message))?;
    let named = match target.selection {
        Selection::Named(names) => Some(names.as_slice()),
        Selection::ReadOnly | Selection::All => None,
    };
    let live_name = |tool: &Value| tool["name"].as_str().unwrap_or_default().to_owned();
    let mut reports = Vec::new();
    let mut staging = Staging::default();
    for tool in live {
        let name = live_name(tool);
        if named.is_some_and(|names| !names.contains(&name)) {
            continue;
        }
        let report = match bound.iter().find(|bound| bound.remote_name == name) {
            Some(existing) => match &existing.input_schema {
                Some(file) => {
                    schema_file::check(&mut doc, &mut staging, target, existing, file, tool)?
                }
                None => check_pin(&mut doc, existing, tool, target.update_pins),
            },
            None => match target.selection.leaves_out(tool) {
                Some(why) => plain(&name, Outcome::LeftOut { why }),
                None => add(&mut doc, &mut staging, target, tool)?,
            },
        };
        reports.push(report);
    }
    for asked in named.into_iter().flatten() {
        let offers = |kind: harness_contract::PinKind| {
            offered
                .of(kind)
                .iter()
                .any(|definition| catalog::answers_to(kind, definition, asked))
        };
        if !harness_contract::PinKind::ALL.iter().copied().any(offers) {
            reports.push(plain(asked, Outcome::NotOffered));
        }
    }
    if named.is_none() {
        for pinned in &bound {
            if !live
                .iter()
                .any(|tool| live_name(tool) == pinned.remote_name)
            {
                reports.push(plain(&pinned.remote_name, Outcome::Missing));
            }
        }
    }
    let catalog = catalog::plan(&mut doc, &staging, target, offered)?;
    Ok(Plan {
        source: doc.to_string(),
        tools: reports,
        catalog,
        staging,
    })
}

/// A tool the manifest already pins: unchanged, or drifted (re-pinned when asked).
fn check_pin(
    doc: &mut DocumentMut,
    existing: &BoundTool,
    live: &Value,
    update: bool,
) -> ToolReport {
    let fresh = entry(live);
    let live_sha256 = harness_contract::definition_sha256(live);
    if existing.pin.as_deref() == Some(live_sha256.as_str()) {
        return plain(&existing.remote_name, Outcome::Unchanged);
    }
    let current = edit::tool(doc, existing.index)
        .map(definition_view)
        .unwrap_or_default();
    let (diff, audits, notes) = match &fresh {
        Ok(fresh) => {
            let fresh_table = table(fresh, &existing.name, "");
            let diff = unified(
                &current,
                &definition_view(&fresh_table),
                &format!("manifest: {}", existing.name),
                &format!("live: {}", existing.remote_name),
            );
            let diff = if diff.is_empty() {
                "(the same entry: the change is in what the manifest does not state, such as the outputSchema or text the audit strips)\n".to_owned()
            } else {
                diff
            };
            (diff, fresh.audits.clone(), fresh.notes.clone())
        }
        Err(constructs) => {
            let pinned = harness_contract::upstream::pinned_definition(live);
            let mut text = format!(
                "the live definition (its inputSchema can no longer be said in the grammar: {}):\n",
                constructs
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            text.push_str(&serde_json::to_string_pretty(&pinned).expect("JSON serializes"));
            text.push('\n');
            (text, Vec::new(), Vec::new())
        }
    };
    let updated = update && edit::set_pin(doc, existing.index, &live_sha256);
    ToolReport {
        name: existing.remote_name.clone(),
        outcome: Outcome::Drifted {
            pinned: existing.pin.clone().unwrap_or_default(),
            live: live_sha256,
            diff,
            updated,
            file: None,
        },
        audits,
        notes,
    }
}

/// A tool the manifest does not have yet: added, or reported and left out.
fn add(
    doc: &mut DocumentMut,
    staging: &mut Staging,
    target: &Target<'_>,
    live: &Value,
) -> Result<ToolReport, ImportError> {
    let name = live["name"].as_str().unwrap_or_default().to_owned();
    if edit::tool_names(doc)
        .map_err(|message| edit_error(target, message))?
        .contains(&name)
    {
        return Ok(plain(&name, Outcome::Collision));
    }
    let entry: Entry = match entry(live) {
        Ok(entry) => entry,
        Err(constructs) => {
            return schema_file::add(doc, staging, target, live, &name, &constructs);
        }
    };
    let report = ToolReport {
        name: name.clone(),
        outcome: Outcome::Added {
            pin_sha256: entry.pin_sha256.clone(),
        },
        audits: entry.audits.clone(),
        notes: entry.notes.clone(),
    };
    join(doc, staging, target, &entry, report)
}
