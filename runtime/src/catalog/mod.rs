//! The catalog: what a server lists (tools, resources, resource templates, prompts, each
//! list with its caching hints), resource reads, prompt gets and argument completion, and the
//! skills extension's lists, gets and directory reads.
//! Reads pass the same output guards as tool results, every argument is validated strictly,
//! and every request is audited (see [`crate::audit`]: these records carry a `method`).
//! [`Catalog`] is this part of a server, borrowed from
//! [`Pipeline::catalog`](crate::Pipeline::catalog).

pub(crate) mod completion;
mod limits;
mod part;
pub(crate) mod prompt_body;
pub(crate) mod prompts;
pub(crate) mod record;
pub(crate) mod resources;
mod skills;

pub use self::part::Catalog;
pub use self::prompt_body::PromptMessages;
pub use self::resources::{BodyRead, Resolved, ResourceBody};
pub use crate::skill_files::{KeptSkill, UpstreamSkills};
pub use crate::spec::catalog::{
    CacheSpec, CatalogSpec, MessageSpec, PromptSpec, PromptValidator, ResourceContent,
    ResourceSpec, RoleSpec, TemplateSpec, VariableKind,
};
pub use crate::spec::skills::{SkillFileSpec, SkillSpec};

use crate::validate::{ArgErrors, JsonObject};

/// Validates prompt arguments into `A` and hands them back as JSON: what a generated
/// [`PromptSpec::validate`] is.
pub fn validate_prompt<A: crate::validate::FromArguments + serde::Serialize>(
    arguments: Option<&JsonObject>,
) -> Result<JsonObject, ArgErrors> {
    let args = A::from_call(arguments)?;
    match serde_json::to_value(args) {
        Ok(serde_json::Value::Object(object)) => Ok(object),
        _ => Ok(JsonObject::new()),
    }
}

impl Catalog<'_> {
    /// `tools/list`: `tools` with the caching hints every list carries.
    pub fn list_tools(&self, tools: &[rmcp::model::Tool]) -> rmcp::model::ListToolsResult {
        let cache = self.server().catalog.cache;
        rmcp::model::ListToolsResult::with_all_items(tools.to_vec())
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope())
    }
}
