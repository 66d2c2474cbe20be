//! Everything a server offers besides tools: resources, resource templates and prompts, with
//! completion for their arguments and the caching hints on every list. Reads pass the same
//! output guards as tool results, every argument is validated strictly, and every request is
//! audited (see [`crate::audit`]: these records carry a `method`).

pub(crate) mod completion;
pub(crate) mod prompt_body;
pub(crate) mod prompts;
pub(crate) mod record;
pub(crate) mod resources;
pub(crate) mod subscriptions;
pub(crate) mod updates;

pub use self::prompt_body::PromptMessages;
pub use self::resources::{Resolved, ResourceBody, TemplateRead};
pub use self::subscriptions::NotSubscribable;
pub use crate::spec::catalog::{
    CacheSpec, CatalogSpec, MessageSpec, PromptSpec, PromptValidator, ResourceContent,
    ResourceSpec, RoleSpec, TemplateSpec, VariableKind,
};

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

impl crate::pipeline::Pipeline {
    /// `tools/list`: `tools` with the caching hints every list carries.
    pub fn list_tools(&self, tools: &[rmcp::model::Tool]) -> rmcp::model::ListToolsResult {
        let cache = self.server().catalog.cache;
        rmcp::model::ListToolsResult::with_all_items(tools.to_vec())
            .with_ttl_ms(cache.ttl_ms)
            .with_cache_scope(cache.scope())
    }
}
