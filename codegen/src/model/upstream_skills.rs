//! `[[skills]]` an upstream serves (`upstream`, `uri`, `pin_sha256`): the gateway lists the
//! upstream's skills, compares the entry with the pin, reads every file, checks each against
//! its digest and serves the cleaned text. The manifest holds no file of such a skill: only
//! the `SKILL.md` URI that names it and the pin, bound to the upstream as every other kind
//! is (`upstreams::bind`). `name`, `description`, `dir` and `body_file` say what a local
//! skill is, so beside `upstream` they are errors.

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{Upstream, bundle::Skill};
use crate::manifest_path::ManifestPath;
use crate::model::skills::{SKILL_MD, SkillModel, is_upstream};
use crate::model::upstreams::{Served, UpstreamBinding, bind};

/// A skill an upstream serves, pinned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamSkillModel {
    /// Its `SKILL.md` URI, as the upstream lists it (and the gateway serves it).
    pub uri: String,
    /// Its upstream and pin.
    pub upstream: UpstreamBinding,
}

/// Checks the upstream skills of `[[skills]]` and binds each to its upstream and pin.
pub(crate) fn build(
    skills: &[Skill],
    local: &[SkillModel],
    upstreams: &[Upstream],
    errors: &ErrorSink<'_>,
) -> Vec<UpstreamSkillModel> {
    let root = ManifestPath::root().key("skills");
    let mut models: Vec<UpstreamSkillModel> = Vec::new();
    for (index, skill) in skills.iter().enumerate() {
        if !is_upstream(skill) {
            continue;
        }
        let path = root.index(index);
        let each = errors.child();
        if skill.upstream.is_some() {
            for (key, value) in [
                ("dir", &skill.dir),
                ("body_file", &skill.body_file),
                ("name", &skill.name),
                ("description", &skill.description),
            ] {
                if value.is_some() {
                    each.report(
                        Diagnostic::key(path.key(key), format!("`{key}` beside `upstream`"))
                            .label("an upstream's skill is read from the upstream")
                            .help(format!("remove {key}: the upstream's skills/list entry says what the skill is, and its pin covers it")),
                    );
                }
            }
        } else if skill.uri.is_some() {
            each.report(
                Diagnostic::key(path.key("uri"), "`uri` without `upstream`")
                    .label("only for a skill an upstream serves")
                    .help("add upstream = \"NAME\", or remove it (a local skill's URI is skill://<name>/SKILL.md)"),
            );
        }
        let uri = skill.uri.as_deref().unwrap_or_default();
        let binding = bind(
            Served {
                what: "skill",
                upstream: skill.upstream.as_deref(),
                renamed: None,
                pin_sha256: skill.pin_sha256.as_deref(),
                local_name: uri,
            },
            &path,
            upstreams,
            &each,
        );
        let Some(binding) = binding else { continue };
        if !is_skill_md_uri(uri) {
            each.report(
                Diagnostic::value(
                    if skill.uri.is_some() { path.key("uri") } else { path.key("upstream") },
                    format!("an upstream skill needs `uri`, its SKILL.md URI (got `{uri}`)"),
                )
                .label("not a skill:// URI ending in /SKILL.md")
                .help("e.g. uri = \"skill://triage/SKILL.md\", as the upstream's skills/list names it; `harness-codegen import NAME` writes it"),
            );
            continue;
        }
        let taken = models.iter().any(|other| other.uri == uri)
            || local.iter().any(|other| {
                other
                    .files
                    .first()
                    .is_some_and(|file| other.uri_of(file) == uri)
            });
        if taken {
            each.report(
                Diagnostic::value(path.key("uri"), format!("a second skill at `{uri}`"))
                    .label("one URI names one skill")
                    .help("remove one of them"),
            );
            continue;
        }
        if let Some(model) = each.unless_failed(UpstreamSkillModel {
            uri: uri.to_owned(),
            upstream: binding,
        }) {
            models.push(model);
        }
    }
    models
}

/// `skill://<path>/SKILL.md`, with no query or fragment.
fn is_skill_md_uri(uri: &str) -> bool {
    uri.strip_prefix("skill://")
        .and_then(|rest| rest.strip_suffix(SKILL_MD))
        .and_then(|rest| rest.strip_suffix('/'))
        .is_some_and(|path| !path.is_empty() && !path.contains(['?', '#']))
}
