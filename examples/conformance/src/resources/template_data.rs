//! Body of resource template `template-data` (`test://template/{id}/data`).

use harness_runtime::catalog::ResourceBody;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TemplateDataTemplate, TemplateDataVars};
use crate::tools::Toolbox;

impl TemplateDataTemplate for Toolbox {
    async fn template_data(
        &self,
        vars: TemplateDataVars,
        _uri: String,
        _ctx: CallContext,
    ) -> Result<ResourceBody, ToolError> {
        let data = serde_json::json!({
            "id": vars.id,
            "templateTest": true,
            "data": format!("Data for ID: {}", vars.id),
        });
        Ok(ResourceBody::Text(data.to_string()))
    }
}
