//! The skills extension (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`,
//! `resources/directory/read`, and each skill file read by `resources/read`, every entry
//! carrying the digest and size of the bytes served. The manifest's skills are served byte
//! for byte, not through the output guards: a host checks each file against its digest, and
//! the content is the manifest author's, reviewed in the manifest's diff and recorded in the
//! ledger. An upstream's skills, which are not, are served as the gateway kept them (checked
//! against the pin, then cleaned: see `upstream::skills`), by the same code, over the view of
//! `skill_files`. A read of a skill file is audited as every `resources/read` is; a get or
//! read of an upstream skill the gateway withholds is refused with `UpstreamDrift`.

use rmcp::model::{
    DIRECTORY_MIME_TYPE, ErrorData, GetSkillResult, ListResourcesResult, ListSkillsResult,
    ReadResourceResult, Resource, ResourceContents, Skill, SkillResource, SkillResources,
};

use crate::catalog::part::Catalog;
use crate::catalog::record::{Began, refusal_error};
use crate::pipeline::refusal::{Refusal, UpstreamFailure};
use crate::skill_files::{FileRef, SkillRef, UpstreamSkills};

impl Catalog<'_> {
    /// Every skill served: the manifest's, in manifest order, then the upstreams' listed ones.
    fn skills<'s>(&self, upstream: &'s UpstreamSkills) -> Vec<SkillRef<'s>> {
        self.server()
            .catalog
            .skills
            .iter()
            .map(SkillRef::from)
            .chain(upstream.views())
            .collect()
    }

    /// `skills/list`: every skill, in manifest order.
    pub fn list_skills(&self) -> ListSkillsResult {
        self.list_skills_with(&UpstreamSkills::default())
    }

    /// `skills/list` of a gateway: the manifest's skills, then the upstreams' `upstream`
    /// lists.
    pub fn list_skills_with(&self, upstream: &UpstreamSkills) -> ListSkillsResult {
        let cache = self.server().catalog.cache;
        let entries = self.skills(upstream).iter().map(skill_entry).collect();
        ListSkillsResult::with_all_items(entries)
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope())
    }

    /// `skills/get`: the skill whose `SKILL.md` is at `uri`; invalid params (-32602) for
    /// any other URI.
    pub fn get_skill(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        self.get_skill_with(uri, &UpstreamSkills::default())
    }

    /// `skills/get` of a gateway, where `upstream` holds what it serves of its upstreams'
    /// skills; a withheld one is refused with `UpstreamDrift`.
    pub fn get_skill_with(
        &self,
        uri: &str,
        upstream: &UpstreamSkills,
    ) -> Result<GetSkillResult, ErrorData> {
        if let Some(checked) = upstream.withholds(uri) {
            return Err(withheld(checked));
        }
        let cache = self.server().catalog.cache;
        let skills = self.skills(upstream);
        let skill = skills
            .iter()
            .find(|skill| skill.uri == uri)
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
        self.read_skill_directory_with(uri, &UpstreamSkills::default())
    }

    /// `resources/directory/read` of a gateway, over the manifest's skills and what
    /// `upstream` serves; a directory of a withheld skill is refused with `UpstreamDrift`.
    pub fn read_skill_directory_with(
        &self,
        uri: &str,
        upstream: &UpstreamSkills,
    ) -> Result<ListResourcesResult, ErrorData> {
        if let Some(checked) = upstream.withholds(uri) {
            return Err(withheld(checked));
        }
        let cache = self.server().catalog.cache;
        let prefix = format!("{}/", uri.trim_end_matches('/'));
        let mut children: Vec<Resource> = Vec::new();
        let mut found = false;
        for skill in self.skills(upstream) {
            if skill.root() != uri && !prefix.starts_with(&format!("{}/", skill.root())) {
                continue;
            }
            for file in &skill.files {
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

    /// What `resources/read` answers for the skill file at `uri`, if one is: its bytes as
    /// their digest was computed; `Err` with the drift refusal for a file of a withheld
    /// upstream skill.
    pub(crate) fn read_skill_file(
        &self,
        uri: &str,
        upstream: &UpstreamSkills,
    ) -> Option<Result<ReadResourceResult, Refusal>> {
        if let Some(checked) = upstream.withholds(uri) {
            return Some(Err(Refusal::Upstream(UpstreamFailure::Drifted { checked })));
        }
        let cache = self.server().catalog.cache;
        let skills = self.skills(upstream);
        let file = skills
            .iter()
            .flat_map(|skill| &skill.files)
            .find(|file| file.uri == uri)?;
        let contents = ResourceContents::text(file.text, file.uri).with_mime_type(file.mime_type);
        Some(Ok(ReadResourceResult::new(vec![contents])
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope())))
    }

    /// The `SKILL.md` of each skill, as `resources/list` lists it: its frontmatter's name and
    /// description, `text/markdown`, its size.
    pub(crate) fn skill_resources(&self, upstream: &UpstreamSkills) -> Vec<Resource> {
        self.skills(upstream)
            .iter()
            .filter_map(|skill| {
                let file: &FileRef<'_> = skill.files.first()?;
                Some(
                    Resource::new(file.uri, skill.frontmatter.name.as_str())
                        .with_description(skill.frontmatter.description.as_str())
                        .with_mime_type(file.mime_type)
                        .with_size(file.size),
                )
            })
            .collect()
    }
}

/// A skill's entry, as `skills/list` and `skills/get` carry it.
fn skill_entry(skill: &SkillRef<'_>) -> Skill {
    let files = skill
        .files
        .iter()
        .map(|file| SkillResource::new(file.uri, file.digest, file.size))
        .collect();
    Skill::new(
        skill.uri,
        skill.frontmatter.clone(),
        SkillResources::Files(files),
    )
}

/// The JSON-RPC error of a get or directory read of a withheld upstream skill (`checked`:
/// its pin was compared and drifted, rather than not compared yet).
fn withheld(checked: bool) -> ErrorData {
    let began = Began::now(None, None);
    let refusal = Refusal::Upstream(UpstreamFailure::Drifted { checked });
    refusal_error(refusal, &began.trace_id, None).0
}
