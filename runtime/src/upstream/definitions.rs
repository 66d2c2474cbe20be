//! Reading an upstream's lists (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`, `skills/list`, every page) as JSON definitions: what the pins are compared
//! with, and what `harness-codegen import` pins from.

use harness_contract::PinKind;
use rmcp::ServiceError;
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

use crate::upstream::pins::Live;
use crate::upstream::request::within;

/// Every entry of the upstream's list of `kind`, as JSON.
pub(crate) async fn list(
    peer: &Peer<RoleClient>,
    kind: PinKind,
) -> Result<Vec<Value>, ServiceError> {
    fn json<T: serde::Serialize>(items: Vec<T>) -> Vec<Value> {
        items
            .iter()
            .map(|item| serde_json::to_value(item).unwrap_or_default())
            .collect()
    }
    Ok(match kind {
        PinKind::Tool => json(peer.list_all_tools().await?),
        PinKind::Prompt => json(peer.list_all_prompts().await?),
        PinKind::Resource => json(peer.list_all_resources().await?),
        PinKind::ResourceTemplate => json(peer.list_all_resource_templates().await?),
        PinKind::Skill => json(peer.list_all_skills().await?),
    })
}

/// The lists of `kinds`, each bounded by `timeout_ms`; a list that fails is logged and left
/// out (`None`), so the pins of its kind keep their status.
pub(crate) async fn live(
    upstream: &str,
    peer: &Peer<RoleClient>,
    kinds: &[PinKind],
    timeout_ms: u64,
) -> Live {
    let mut live = Live::default();
    for &kind in kinds {
        let listing = match within(timeout_ms, list(peer, kind)).await {
            Ok(Ok(listed)) => Ok(listed),
            Ok(Err(error)) => Err(error.to_string()),
            Err(error) => Err(error.to_string()),
        };
        let listed = match listing {
            Ok(listed) => Some(listed),
            Err(error) => {
                tracing::warn!(
                    upstream,
                    kind = kind.as_str(),
                    error,
                    "a list of the upstream failed; its pins unchanged"
                );
                None
            }
        };
        match kind {
            PinKind::Tool => live.tools = listed,
            PinKind::Prompt => live.prompts = listed,
            PinKind::Resource => live.resources = listed,
            PinKind::ResourceTemplate => live.templates = listed,
            PinKind::Skill => live.skills = listed,
        }
    }
    live
}
