//! What import pins besides tools: an upstream's prompts, resources, resource templates and
//! skills, each a `[[prompts]]`, `[[resources]]`, `[[resource_templates]]` or `[[skills]]`
//! entry bound to the upstream and pinned by the digest of its definition (the fields
//! [`PinKind::pinned_fields`] names), its text audited and cleaned as a tool's description
//! is (a skill's text stays upstream: see `skills`). An entry already pinned is compared with
//! its live definition (`--update-pins` replaces the pin); a new one joins only if the
//! manifest still validates with it. None of them changes anything upstream, so least
//! privilege imports them all; with `--tools`, only those named (a prompt's name, a
//! resource's URI, a template's URI template, a skill's `SKILL.md` URI or name). What prompts
//! and resources return is capped by `[defaults.guards]`: import writes the starting caps
//! there when it adds one and the defaults lack them.

use harness_contract::{PinKind, pin_sha256};
use serde_json::Value;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table};

use crate::import::edit;
use crate::import::error::ImportError;
use crate::import::join::{Target, edit_error, plain};
use crate::import::poisoning::audit;
use crate::import::report::{Outcome, ToolReport};
use crate::import::selection::Selection;
use crate::import::skills;
use crate::import::staging::Staging;
use harness_runtime::upstream::Offered;

/// The kinds this file imports, in the order they are reported.
const KINDS: [PinKind; 4] = [
    PinKind::Prompt,
    PinKind::Resource,
    PinKind::ResourceTemplate,
    PinKind::Skill,
];

/// Why an upstream's skill file is not imported as a resource.
const SKILL_FILE: &str = "a file of one of its skills (skill://): it comes with its skill, a [[skills]] entry whose pin covers each of its files";

/// The manifest's array of tables for entries of `kind`.
fn array_key(kind: PinKind) -> &'static str {
    match kind {
        PinKind::Prompt => "prompts",
        PinKind::Resource => "resources",
        PinKind::ResourceTemplate => "resource_templates",
        PinKind::Tool => "tools",
        PinKind::Skill => "skills",
    }
}

/// The manifest key that holds the upstream's name for an entry of `kind`.
fn manifest_key(kind: PinKind) -> &'static str {
    match kind {
        PinKind::Prompt | PinKind::Tool => "name",
        PinKind::Resource | PinKind::Skill => "uri",
        PinKind::ResourceTemplate => "uri_template",
    }
}

/// How a report names an entry of `kind`: `prompt review`, `resource docs://guide`.
fn label(kind: PinKind, name: &str) -> String {
    let kind = match kind {
        PinKind::Tool => "tool",
        PinKind::Prompt => "prompt",
        PinKind::Resource => "resource",
        PinKind::ResourceTemplate => "resource template",
        PinKind::Skill => "skill",
    };
    format!("{kind} {name}")
}

/// An entry of the manifest of some kind, bound to the upstream being imported.
struct Bound {
    index: usize,
    remote_name: String,
    pin: Option<String>,
}

fn tables(doc: &DocumentMut, kind: PinKind) -> Result<Vec<&Table>, String> {
    match doc.get(array_key(kind)) {
        None => Ok(Vec::new()),
        Some(Item::ArrayOfTables(array)) => Ok(array.iter().collect()),
        Some(_) => Err(format!(
            "`{}` is not written as [[{}]] tables",
            array_key(kind),
            array_key(kind)
        )),
    }
}

fn text<'a>(table: &'a Table, key: &str) -> Option<&'a str> {
    table.get(key).and_then(Item::as_str)
}

/// The entries of `kind` `upstream` serves, by the upstream's name for each.
fn bound(doc: &DocumentMut, kind: PinKind, upstream: &str) -> Result<Vec<Bound>, String> {
    Ok(tables(doc, kind)?
        .into_iter()
        .enumerate()
        .filter(|(_, table)| text(table, "upstream") == Some(upstream))
        .filter_map(|(index, table)| {
            let own = text(table, manifest_key(kind))?;
            let remote = match kind {
                PinKind::Prompt => text(table, "upstream_prompt").unwrap_or(own),
                _ => own,
            };
            Some(Bound {
                index,
                remote_name: remote.to_owned(),
                pin: text(table, "pin_sha256").map(str::to_owned),
            })
        })
        .collect())
}

/// Whether `definition`, a list entry of `kind`, is the one `asked` (a `--tools` name) names.
pub(crate) fn answers_to(kind: PinKind, definition: &Value, asked: &str) -> bool {
    match kind {
        PinKind::Skill => skills::answers_to(definition, asked),
        _ => kind.name_of(definition) == Some(asked),
    }
}

/// Plans the import of the upstream's prompts, resources, templates and skills into `doc`:
/// one report per entry considered, then one per pin the upstream no longer offers.
pub(crate) fn plan(
    doc: &mut DocumentMut,
    staging: &Staging,
    target: &Target<'_>,
    offered: &Offered,
) -> Result<Vec<ToolReport>, ImportError> {
    let named = match target.selection {
        Selection::Named(names) => Some(names.as_slice()),
        Selection::ReadOnly | Selection::All => None,
    };
    let mut reports = Vec::new();
    for kind in KINDS {
        let pinned = bound(doc, kind, target.upstream).map_err(|e| edit_error(target, e))?;
        let live = offered.of(kind);
        for definition in live {
            let Some(name) = kind.name_of(definition) else {
                continue;
            };
            if named.is_some_and(|names| {
                !names
                    .iter()
                    .any(|named| answers_to(kind, definition, named))
            }) {
                continue;
            }
            let report = match pinned.iter().find(|entry| entry.remote_name == name) {
                Some(entry) => {
                    let mut report = check_pin(doc, kind, entry, definition, target.update_pins);
                    if kind == PinKind::Skill {
                        skills::review_pinned(definition, offered, &mut report);
                    }
                    report
                }
                None => add(doc, staging, target, kind, definition, offered)?,
            };
            reports.push(report);
        }
        if named.is_none() {
            for entry in &pinned {
                if !live
                    .iter()
                    .any(|definition| kind.name_of(definition) == Some(&entry.remote_name))
                {
                    reports.push(plain(&label(kind, &entry.remote_name), Outcome::Missing));
                }
            }
        }
    }
    Ok(reports)
}

/// An entry the manifest pins already: unchanged, or drifted (re-pinned when asked).
fn check_pin(
    doc: &mut DocumentMut,
    kind: PinKind,
    entry: &Bound,
    live: &Value,
    update: bool,
) -> ToolReport {
    let name = label(kind, &entry.remote_name);
    let live_sha256 = pin_sha256(kind, live);
    if entry.pin.as_deref() == Some(live_sha256.as_str()) {
        return plain(&name, Outcome::Unchanged);
    }
    let mut diff =
        String::from("the live definition (the digest cannot say what it was before):\n");
    let pinned = harness_contract::upstream::pinned_part(kind, live);
    diff.push_str(&serde_json::to_string_pretty(&pinned).expect("JSON serializes"));
    diff.push('\n');
    let updated = update && edit::set_pin_in(doc, array_key(kind), entry.index, &live_sha256);
    ToolReport {
        name,
        outcome: Outcome::Drifted {
            pinned: entry.pin.clone().unwrap_or_default(),
            live: live_sha256,
            diff,
            updated,
            file: None,
        },
        audits: Vec::new(),
        notes: Vec::new(),
    }
}

/// An entry the manifest does not have yet: appended and kept if the manifest still
/// validates, else reported and left out.
fn add(
    doc: &mut DocumentMut,
    staging: &Staging,
    target: &Target<'_>,
    kind: PinKind,
    live: &Value,
    offered: &Offered,
) -> Result<ToolReport, ImportError> {
    let remote = kind.name_of(live).unwrap_or_default();
    let name = label(kind, remote);
    if kind == PinKind::Resource && remote.to_ascii_lowercase().starts_with("skill://") {
        return Ok(plain(&name, Outcome::NotCarried { why: SKILL_FILE }));
    }
    let skill_files = match kind {
        // A skill whose files cannot be read and checked would be withheld by the gateway.
        PinKind::Skill => match skills::files(offered, remote) {
            Ok(files) => files,
            Err(why) => return Ok(plain(&name, Outcome::Unread { why })),
        },
        _ => &[],
    };
    let taken = tables(doc, kind)
        .map_err(|e| edit_error(target, e))?
        .iter()
        .any(|table| text(table, manifest_key(kind)) == Some(remote));
    if taken {
        return Ok(plain(&name, Outcome::Collision));
    }
    let mut report = plain(
        &name,
        Outcome::Added {
            pin_sha256: pin_sha256(kind, live),
        },
    );
    let mut table = match kind {
        PinKind::Skill => {
            skills::audit_into(live, skill_files, &mut report);
            skills::entry(live, target.upstream)
        }
        _ => entry(kind, live, target.upstream, &mut report),
    };
    if kind == PinKind::Resource && offered.subscribe {
        // The gateway subscribes upstream and passes the updates on to its own subscribers.
        table.insert("subscribe", toml_edit::value(true));
    }
    // A skill's text is cleaned, not capped: it is served whole or not at all.
    let caps_added = if kind == PinKind::Skill {
        Vec::new()
    } else {
        cap_the_defaults(doc)
    };
    doc.entry(array_key(kind))
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| {
            edit_error(
                target,
                format!("`{}` is not an array of tables", array_key(kind)),
            )
        })?
        .push(table);
    if let Err(errors) = staging.load(&doc.to_string(), target.name, target.base_dir) {
        if let Some(array) = doc
            .get_mut(array_key(kind))
            .and_then(Item::as_array_of_tables_mut)
        {
            array.remove(array.len() - 1);
            if array.is_empty() {
                doc.remove(array_key(kind));
            }
        }
        uncap_the_defaults(doc, &caps_added);
        report.outcome = Outcome::Invalid { errors };
        return Ok(report);
    }
    if !caps_added.is_empty() {
        report.notes.push(format!(
            "what prompts and resources return is capped by [defaults.guards]: import wrote {} there (it set no such cap); raise it there on purpose",
            caps_added
                .iter()
                .map(|(key, value)| format!("{key} = {value}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(report)
}

/// Writes the starting output caps `[defaults.guards]` lacks into it; returns those written.
fn cap_the_defaults(doc: &mut DocumentMut) -> Vec<(&'static str, u64)> {
    let caps = crate::import::edit::caps_the_defaults_lack(doc);
    if caps.is_empty() {
        return caps;
    }
    let defaults = doc.entry("defaults").or_insert_with(|| {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    let Some(guards) = defaults
        .as_table_like_mut()
        .map(|defaults| {
            defaults
                .entry("guards")
                .or_insert_with(|| Item::Table(Table::new()))
        })
        .and_then(Item::as_table_like_mut)
    else {
        return Vec::new();
    };
    for (key, value) in &caps {
        guards.insert(
            key,
            toml_edit::value(i64::try_from(*value).unwrap_or(i64::MAX)),
        );
    }
    caps
}

/// Takes back what [`cap_the_defaults`] wrote.
fn uncap_the_defaults(doc: &mut DocumentMut, caps: &[(&'static str, u64)]) {
    if let Some(guards) = doc
        .get_mut("defaults")
        .and_then(|defaults| defaults.get_mut("guards"))
        .and_then(Item::as_table_like_mut)
    {
        for (key, _) in caps {
            guards.remove(key);
        }
    }
}

/// The table for `live`, bound to `upstream`; every text is audited and cleaned, and what
/// the audit changed or warns about goes to `report`.
fn entry(kind: PinKind, live: &Value, upstream: &str, report: &mut ToolReport) -> Table {
    let mut clean = |place: &str, text: &str| {
        let audit = audit(text);
        let cleaned = audit.cleaned.clone();
        if !audit.is_clean() {
            report.audits.push((place.to_owned(), audit));
        }
        cleaned
    };
    let mut table = Table::new();
    table.decor_mut().set_prefix("\n");
    let remote = kind.name_of(live).unwrap_or_default();
    table.insert(manifest_key(kind), toml_edit::value(remote));
    if kind != PinKind::Prompt {
        let name = live["name"].as_str().unwrap_or(remote);
        table.insert("name", toml_edit::value(clean("name", name)));
    }
    if let Some(title) = live["title"].as_str() {
        let title = clean("title", title);
        if !title.is_empty() {
            table.insert("title", toml_edit::value(title));
        }
    }
    let description = clean(
        "description",
        live["description"].as_str().unwrap_or_default(),
    );
    if kind == PinKind::Prompt || !description.is_empty() {
        table.insert("description", toml_edit::value(description));
    }
    if kind != PinKind::Prompt {
        // Listed as the upstream says; a read's contents carry their own types.
        let mime_type = live["mimeType"]
            .as_str()
            .unwrap_or("application/octet-stream");
        table.insert("mime_type", toml_edit::value(mime_type));
    }
    table.insert("upstream", toml_edit::value(upstream));
    table.insert("pin_sha256", toml_edit::value(pin_sha256(kind, live)));
    let arguments = match kind {
        PinKind::Prompt => prompt_arguments(live, &mut clean),
        PinKind::ResourceTemplate => template_variables(remote),
        PinKind::Resource | PinKind::Tool | PinKind::Skill => Vec::new(),
    };
    if !arguments.is_empty() {
        let key = if kind == PinKind::Prompt {
            "arguments"
        } else {
            "variables"
        };
        let mut list = ArrayOfTables::new();
        for argument in arguments {
            list.push(argument);
        }
        table.insert(key, Item::ArrayOfTables(list));
    }
    table
}

/// A prompt's arguments as `[[prompts.arguments]]` (strings, as prompt arguments are on the
/// wire; optional where the upstream does not require them).
fn prompt_arguments(live: &Value, clean: &mut impl FnMut(&str, &str) -> String) -> Vec<Table> {
    let Some(arguments) = live["arguments"].as_array() else {
        return Vec::new();
    };
    arguments
        .iter()
        .filter_map(|argument| {
            let name = argument["name"].as_str()?;
            let mut table = argument_table(name);
            if let Some(description) = argument["description"].as_str() {
                let description = clean(&format!("arguments.{name}.description"), description);
                if !description.is_empty() {
                    table.insert("description", toml_edit::value(description));
                }
            }
            if argument["required"].as_bool() != Some(true) {
                table.insert("required", toml_edit::value(false));
            }
            Some(table)
        })
        .collect()
}

/// A template's variables as `[[resource_templates.variables]]`, strings, in the order they
/// appear (a template that is not level 1 gets none, and the model says why it is refused).
fn template_variables(uri_template: &str) -> Vec<Table> {
    harness_contract::uri_template::UriTemplate::parse(uri_template)
        .map(|parsed| parsed.variables().map(argument_table).collect())
        .unwrap_or_default()
}

fn argument_table(name: &str) -> Table {
    let mut table = Table::new();
    table.decor_mut().set_prefix("\n");
    table.insert("name", toml_edit::value(name));
    table.insert("type", toml_edit::value("string"));
    table
}
