//! The static description of the Agent Skills a server publishes (`[[skills]]`), as generated:
//! each file's bytes embedded, with the SHA-256 digest and size computed at build time from
//! the same bytes the bundle ships (served by [`crate::catalog`]).

use rmcp::model::{SKILLS_EXTENSION_ID, ServerCapabilities, SkillsCapability};

/// Declares the skills extension (with `directoryRead`) in `capabilities`, and the resources
/// capability it requires, leaving either as it is where it is declared already: for a
/// server's own skills and for those a gateway serves of its upstreams.
pub(crate) fn declare_extension(capabilities: &mut ServerCapabilities) {
    capabilities.resources.get_or_insert_with(Default::default);
    let settings = serde_json::to_value(SkillsCapability::new().with_directory_read())
        .ok()
        .and_then(|value| value.as_object().cloned())
        .unwrap_or_default();
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .entry(SKILLS_EXTENSION_ID.to_owned())
        .or_insert(settings);
}

/// One skill: a directory whose `SKILL.md` begins with YAML frontmatter.
#[derive(Debug, Clone, Copy)]
pub struct SkillSpec {
    /// The frontmatter's `name`: the last segment of the skill's path.
    pub name: &'static str,
    /// The frontmatter's `description`.
    pub description: &'static str,
    /// The whole frontmatter as a JSON object (every field of the YAML, not a subset).
    pub frontmatter: &'static str,
    /// Its files, `SKILL.md` first, each a resource under the skill's root.
    pub files: &'static [SkillFileSpec],
}

/// One file of a skill.
#[derive(Debug, Clone, Copy)]
pub struct SkillFileSpec {
    /// `skill://<name>/<path>`.
    pub uri: &'static str,
    /// Its media type (`text/markdown` for `SKILL.md`).
    pub mime_type: &'static str,
    /// Its text (a skill's files are UTF-8 text), exactly the bytes its digest is of.
    pub text: &'static str,
    /// Its length in bytes.
    pub size: u64,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: &'static str,
}

impl SkillSpec {
    /// The `SKILL.md` resource's URI, which names the skill.
    pub fn uri(&self) -> &'static str {
        self.files.first().map_or("", |file| file.uri)
    }

    /// The skill's root directory: its `SKILL.md` URI without `/SKILL.md`.
    pub fn root(&self) -> &'static str {
        let uri = self.uri();
        uri.strip_suffix("/SKILL.md").unwrap_or(uri)
    }
}
