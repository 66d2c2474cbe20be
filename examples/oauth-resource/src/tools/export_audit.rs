//! Body of tool `export_audit`: runs until its task is cancelled.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{ExportAudit, ExportAuditArgs};
use crate::tools::Toolbox;

impl ExportAudit for Toolbox {
    type Output = String;

    async fn export_audit(
        &self,
        _args: ExportAuditArgs,
        ctx: CallContext,
    ) -> Result<String, ToolError> {
        ctx.cancelled().await;
        Ok("export stopped".to_owned())
    }
}
