//! Guard vocabulary the manifest states and the runtime enforces.

use serde::{Deserialize, Serialize};

use crate::contract_enum;

/// What the tabular blockade does with a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TabularAction {
    /// Refuse the result with `TokenStarvationError`.
    #[default]
    Block,
    /// Replace each table with a compact summary.
    Summarize,
}

contract_enum!(TabularAction {
    Block => "block",
    Summarize => "summarize",
});

/// The table blockade every tool has unless the manifest says otherwise: `(max_rows, action)`.
pub const DEFAULT_TABULAR: (u64, TabularAction) = (50, TabularAction::Block);

/// Smallest `max_chars` that leaves room for the truncation marker.
pub const MIN_MAX_CHARS: u64 = 64;
