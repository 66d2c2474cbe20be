//! A skill's files as the catalog serves them, wherever they are kept: the manifest's own,
//! embedded at build time ([`SkillSpec`]), or an upstream's, as the gateway read, checked and
//! cleaned them ([`UpstreamSkills`]). `skills/list`, `skills/get`, directory reads and file
//! reads are written once, over this view, so both kinds are served by the same code. It sits
//! below both the catalog, which serves skills, and the gateway, which fills what it kept, so
//! neither depends on the other for it.

use std::sync::Arc;

use rmcp::model::SkillFrontmatter;

use crate::spec::skills::{SkillFileSpec, SkillSpec};

/// One skill, borrowed: its `SKILL.md` URI, its frontmatter and its files (`SKILL.md` first).
#[derive(Debug, Clone)]
pub(crate) struct SkillRef<'a> {
    pub(crate) uri: &'a str,
    pub(crate) frontmatter: SkillFrontmatter,
    pub(crate) files: Vec<FileRef<'a>>,
}

/// One file of a skill, borrowed: the bytes served and the digest and size of those bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileRef<'a> {
    pub(crate) uri: &'a str,
    pub(crate) mime_type: &'a str,
    pub(crate) text: &'a str,
    pub(crate) size: u64,
    pub(crate) digest: &'a str,
}

impl SkillRef<'_> {
    /// The skill's root directory: its `SKILL.md` URI without `/SKILL.md`.
    pub(crate) fn root(&self) -> &str {
        self.uri.strip_suffix("/SKILL.md").unwrap_or(self.uri)
    }
}

impl<'a> From<&'a SkillSpec> for SkillRef<'a> {
    fn from(skill: &'a SkillSpec) -> Self {
        Self {
            uri: skill.uri(),
            frontmatter: serde_json::from_str::<SkillFrontmatter>(skill.frontmatter)
                .unwrap_or_else(|_| SkillFrontmatter::new(skill.name, skill.description)),
            files: skill.files.iter().map(FileRef::from).collect(),
        }
    }
}

impl<'a> From<&'a SkillFileSpec> for FileRef<'a> {
    fn from(file: &'a SkillFileSpec) -> Self {
        Self {
            uri: file.uri,
            mime_type: file.mime_type,
            text: file.text,
            size: file.size,
            digest: file.digest,
        }
    }
}

/// A skill an upstream serves, as the gateway kept it: its files read from the upstream,
/// each checked against the digest of the pinned entry, then cleaned; the digests and sizes
/// are those of the cleaned text, which is what a client receives.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptSkill {
    uri: String,
    frontmatter: SkillFrontmatter,
    files: Vec<KeptFile>,
}

/// One file of a [`KeptSkill`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptFile {
    pub(crate) uri: String,
    pub(crate) mime_type: String,
    pub(crate) text: String,
    pub(crate) digest: String,
}

impl KeptSkill {
    /// A skill at `uri` (its `SKILL.md`, which must be among `files`, and is put first).
    #[cfg_attr(
        not(feature = "gateway"),
        allow(dead_code, reason = "only a gateway keeps an upstream's skills")
    )]
    pub(crate) fn new(
        uri: String,
        frontmatter: SkillFrontmatter,
        mut files: Vec<KeptFile>,
    ) -> Self {
        files.sort_by_key(|file| file.uri != uri);
        Self {
            uri,
            frontmatter,
            files,
        }
    }

    fn view(&self) -> SkillRef<'_> {
        SkillRef {
            uri: &self.uri,
            frontmatter: self.frontmatter.clone(),
            files: self
                .files
                .iter()
                .map(|file| FileRef {
                    uri: &file.uri,
                    mime_type: &file.mime_type,
                    text: &file.text,
                    size: file.text.len() as u64,
                    digest: &file.digest,
                })
                .collect(),
        }
    }
}

/// What a gateway serves of its upstreams' skills at one moment: the skills it lists, and the
/// pinned ones it withholds (drifted, or not checked yet), whose gets and reads are refused
/// with `UpstreamDrift` rather than answered as unknown.
#[derive(Debug, Clone, Default)]
pub struct UpstreamSkills {
    pub(crate) listed: Vec<Arc<KeptSkill>>,
    /// `(SKILL.md URI, whether its pin was checked)`.
    pub(crate) withheld: Vec<(String, bool)>,
}

impl UpstreamSkills {
    /// The skills listed.
    pub(crate) fn views(&self) -> impl Iterator<Item = SkillRef<'_>> {
        self.listed.iter().map(|skill| skill.view())
    }

    /// Whether `uri` is a withheld skill or lies under its root, and whether its pin was
    /// checked.
    pub(crate) fn withholds(&self, uri: &str) -> Option<bool> {
        self.withheld.iter().find_map(|(skill, checked)| {
            let root = skill.strip_suffix("/SKILL.md").unwrap_or(skill);
            let under = uri == root
                || uri
                    .strip_prefix(root)
                    .is_some_and(|rest| rest.starts_with('/'));
            under.then_some(*checked)
        })
    }
}
