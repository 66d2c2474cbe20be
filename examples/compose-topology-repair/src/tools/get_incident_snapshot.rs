//! Body of tool `get_incident_snapshot`: the topology's read-only incident monitor.

use harness_runtime::{CallContext, ToolError};
use serde::Serialize;

use crate::generated::{GetIncidentSnapshot, GetIncidentSnapshotArgs, GetIncidentSnapshotView};
use crate::tools::Toolbox;

/// What the tool returns; `schema_version` lets clients detect format changes.
#[derive(Debug, Serialize)]
pub(crate) struct IncidentSnapshot {
    schema_version: u32,
    incident_id: u32,
    view: GetIncidentSnapshotView,
    status: &'static str,
    signals: &'static [&'static str],
    untrusted_observation: &'static str,
}

impl GetIncidentSnapshot for Toolbox {
    type Output = IncidentSnapshot;

    async fn get_incident_snapshot(
        &self,
        args: GetIncidentSnapshotArgs,
        _ctx: CallContext,
    ) -> Result<IncidentSnapshot, ToolError> {
        let incident = self
            .incidents
            .iter()
            .find(|incident| incident.id == args.incident_id)
            // The message must not leak credentials, internal paths or raw errors.
            .ok_or_else(|| ToolError::not_found("incident not found"))?;
        Ok(IncidentSnapshot {
            schema_version: 1,
            incident_id: incident.id,
            view: args.view,
            status: incident.status,
            signals: match args.view {
                GetIncidentSnapshotView::Signals => incident.signals,
                GetIncidentSnapshotView::Summary => &[],
            },
            untrusted_observation: incident.untrusted_observation,
        })
    }
}
