//! Body of tool `search_logs`: filters a fixed log, so the validator bench has a real tool.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{SearchLogs, SearchLogsArgs};
use crate::payloads;
use crate::tools::Toolbox;

impl SearchLogs for Toolbox {
    type Output = String;

    async fn search_logs(
        &self,
        args: SearchLogsArgs,
        _ctx: CallContext,
    ) -> Result<String, ToolError> {
        let limit = args.limit.map_or(usize::MAX, |limit| limit as usize);
        let log = payloads::hostile_log();
        let lines: Vec<&str> = log
            .lines()
            .filter(|line| line.contains(&args.service))
            .filter(|line| {
                args.contains
                    .iter()
                    .flatten()
                    .all(|needle| line.contains(needle.as_str()))
            })
            .take(limit)
            .collect();
        Ok(lines.join("\n"))
    }
}
