//! The skills extension (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`,
//! `resources/directory/read`, and each skill file read by `resources/read`, every entry
//! carrying the digest and size computed at build time from the bytes served. A skill's files
//! are served byte for byte, not through the output guards: a host checks each file against
//! its digest, and the content is the manifest author's, reviewed in the manifest's diff and
//! recorded in the ledger (an upstream's skills, which are not, pass through the gateway's
//! checks instead). A read of a skill file is audited as every `resources/read` is.

use rmcp::model::{
    DIRECTORY_MIME_TYPE, ErrorData, GetSkillResult, ListResourcesResult, ListSkillsResult,
    ReadResourceResult, Resource, ResourceContents, Skill, SkillFrontmatter, SkillResource,
    SkillResources,
};

use crate::catalog::part::Catalog;
use crate::spec::skills::{SkillFileSpec, SkillSpec};

impl Catalog<'_> {
    fn skills(&self) -> &'static [SkillSpec] {
        self.server().catalog.skills
    }

    /// `skills/list`: every skill, in manifest order.
    pub fn list_skills(&self) -> ListSkillsResult {
        let cache = self.server().catalog.cache;
        ListSkillsResult::with_all_items(self.skills().iter().map(skill_entry).collect())
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope())
    }

    /// `skills/get`: the skill whose `SKILL.md` is at `uri`; invalid params (-32602) for
    /// any other URI.
    pub fn get_skill(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        let cache = self.server().catalog.cache;
        let skill = self
            .skills()
            .iter()
            .find(|skill| skill.uri() == uri)
            .ok_or_else(|| {
                ErrorData::invalid_params(format!("No skill is served at {uri}"), None)
            })?;
        Ok(GetSkillResult::new(skill_entry(skill))
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope()))
    }

    /// `resources/directory/read`: the direct children of a skill's root or of a directory
    /// inside it, files with their metadata and subdirectories as `inode/directory`;
    /// invalid params (-32602) for anything that is not such a directory.
    pub fn read_skill_directory(&self, uri: &str) -> Result<ListResourcesResult, ErrorData> {
        let cache = self.server().catalog.cache;
        let prefix = format!("{}/", uri.trim_end_matches('/'));
        let mut children: Vec<Resource> = Vec::new();
        let mut found = false;
        for skill in self.skills() {
            if skill.root() != uri && !prefix.starts_with(&format!("{}/", skill.root())) {
                continue;
            }
            for file in skill.files {
                let Some(rest) = file.uri.strip_prefix(&prefix) else {
                    continue;
                };
                found = true;
                let child = match rest.split_once('/') {
                    Some((directory, _)) => {
                        let directory_uri = format!("{prefix}{directory}");
                        if children.iter().any(|child| child.uri == directory_uri) {
                            continue;
                        }
                        Resource::new(directory_uri, directory).with_mime_type(DIRECTORY_MIME_TYPE)
                    }
                    None => Resource::new(file.uri, rest)
                        .with_mime_type(file.mime_type)
                        .with_size(file.size),
                };
                children.push(child);
            }
        }
        if !found {
            return Err(ErrorData::invalid_params(
                format!("{uri} is not a directory resource"),
                None,
            ));
        }
        Ok(ListResourcesResult::with_all_items(children)
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope()))
    }

    /// The skill file at `uri`, if one is.
    pub(crate) fn skill_file(&self, uri: &str) -> Option<&'static SkillFileSpec> {
        self.skills()
            .iter()
            .flat_map(|skill| skill.files)
            .find(|file| file.uri == uri)
    }

    /// What `resources/read` answers for a skill file: its bytes as they were hashed.
    pub(crate) fn read_skill_file(&self, file: &SkillFileSpec) -> ReadResourceResult {
        let cache = self.server().catalog.cache;
        let contents = ResourceContents::text(file.text, file.uri).with_mime_type(file.mime_type);
        ReadResourceResult::new(vec![contents])
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope())
    }

    /// The `SKILL.md` of each skill, as `resources/list` lists it: its frontmatter's name and
    /// description, `text/markdown`, its size.
    pub(crate) fn skill_resources(&self) -> impl Iterator<Item = Resource> + 'static {
        self.skills().iter().filter_map(|skill| {
            let file = skill.files.first()?;
            Some(
                Resource::new(file.uri, skill.name)
                    .with_description(skill.description)
                    .with_mime_type(file.mime_type)
                    .with_size(file.size),
            )
        })
    }
}

/// A skill's entry, as `skills/list` and `skills/get` carry it.
fn skill_entry(skill: &SkillSpec) -> Skill {
    let frontmatter = serde_json::from_str::<SkillFrontmatter>(skill.frontmatter)
        .unwrap_or_else(|_| SkillFrontmatter::new(skill.name, skill.description));
    let files = skill
        .files
        .iter()
        .map(|file| SkillResource::new(file.uri, file.digest, file.size))
        .collect();
    Skill::new(skill.uri(), frontmatter, SkillResources::Files(files))
}
