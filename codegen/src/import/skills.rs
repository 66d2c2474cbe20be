//! An upstream's skills (the skills extension) as `[[skills]]` entries: `upstream`, `uri` (its
//! `SKILL.md` URI) and `pin_sha256`, the digest of its whole `skills/list` entry, which covers
//! its frontmatter and each file's URI, digest and size. The manifest holds nothing else of
//! the skill, so there is no text to clean into it; but a skill is instructions, and the
//! gateway serves its text cleaned by the same strip as descriptions, so every string of its
//! frontmatter and every file (read and checked against its listed digest by the runtime's
//! client when the lists were read) goes through the description audit, and the report says
//! what the gateway will remove and what it keeps that reads as an instruction. A skill
//! whose files could not be read and checked is not pinned: the gateway would withhold it.

use harness_contract::{PinKind, pin_sha256};
use harness_runtime::upstream::{Offered, SkillFile};
use serde_json::Value;
use toml_edit::Table;

use crate::import::poisoning::audit;
use crate::import::report::{Outcome, ToolReport};

/// Whether the skill `definition` (a `skills/list` entry) is the one `asked` names: by its
/// `SKILL.md` URI or by its frontmatter's name.
pub(crate) fn answers_to(definition: &Value, asked: &str) -> bool {
    PinKind::Skill.name_of(definition) == Some(asked)
        || definition["frontmatter"]["name"].as_str() == Some(asked)
}

/// The files `offered` read of the skill at `uri`, or why there are none to pin it by.
pub(crate) fn files<'o>(offered: &'o Offered, uri: &str) -> Result<&'o [SkillFile], String> {
    match offered.skill_files.get(uri) {
        Some(Ok(files)) => Ok(files),
        Some(Err(why)) => Err(why.clone()),
        None => Err("its files were not read with its listing".to_owned()),
    }
}

/// The `[[skills]]` table for the skill `live`, bound to `upstream`: what the gateway needs
/// to find it and check it, nothing the upstream says about it.
pub(crate) fn entry(live: &Value, upstream: &str) -> Table {
    let mut table = Table::new();
    table.decor_mut().set_prefix("\n");
    table.insert("upstream", toml_edit::value(upstream));
    let uri = PinKind::Skill.name_of(live).unwrap_or_default();
    table.insert("uri", toml_edit::value(uri));
    table.insert(
        "pin_sha256",
        toml_edit::value(pin_sha256(PinKind::Skill, live)),
    );
    table
}

/// Puts what the audit finds in the skill `live` and its `files` into `report`, with a note
/// that the files come with the skill.
pub(crate) fn audit_into(live: &Value, files: &[SkillFile], report: &mut ToolReport) {
    let mut strings = Vec::new();
    frontmatter_strings(&live["frontmatter"], "frontmatter", &mut strings);
    for (place, text) in strings.into_iter().chain(
        files
            .iter()
            .map(|file| (file.uri.clone(), file.text.as_str())),
    ) {
        let audit = audit(text);
        if !audit.is_clean() {
            report.audits.push((place, audit));
        }
    }
    let uris: Vec<&str> = files.iter().map(|file| file.uri.as_str()).collect();
    report.notes.push(format!(
        "its files come with it, each pinned by its digest and size (not as [[resources]]): {}; the gateway serves their text cleaned as the audit says (the manifest holds only the URI and the pin)",
        uris.join(", ")
    ));
}

/// Every string of a skill's frontmatter with its place (`frontmatter.description`): the
/// gateway cleans each, nested ones too.
fn frontmatter_strings<'v>(value: &'v Value, place: &str, out: &mut Vec<(String, &'v str)>) {
    match value {
        Value::String(text) => out.push((place.to_owned(), text)),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                frontmatter_strings(item, &format!("{place}[{index}]"), out);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                frontmatter_strings(item, &format!("{place}.{key}"), out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// What a skill the manifest pins already needs said besides its pin's check: when it
/// drifted, the audit of what the upstream serves now (for the review before
/// `--update-pins`); when its files could not be read and checked, that the gateway will
/// withhold it.
pub(crate) fn review_pinned(live: &Value, offered: &Offered, report: &mut ToolReport) {
    let uri = PinKind::Skill.name_of(live).unwrap_or_default();
    match files(offered, uri) {
        Ok(files) => {
            if matches!(report.outcome, Outcome::Drifted { .. }) {
                audit_into(live, files, report);
            }
        }
        Err(why) => report.notes.push(format!(
            "its files could not be read and checked against its entry ({why}): the gateway withholds the skill until they can"
        )),
    }
}
