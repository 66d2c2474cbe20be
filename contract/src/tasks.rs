//! The tasks extension (`io.modelcontextprotocol/tasks`) as a manifest states it per tool:
//! whether a call may, must or must not become a task, and the bounds of its tasks.

use serde::{Deserialize, Serialize};

use crate::enums::contract_enum;

/// Whether a `tools/call` of the tool becomes a task, in the terms of the extension's earlier
/// `taskSupport`: a task is created only for a request that declares the extension.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Never a task: every call is answered inline.
    #[default]
    Forbidden,
    /// A task for a request that declares the extension, inline for any other.
    Optional,
    /// Always a task: a request that does not declare the extension is refused with the
    /// extension's missing-capability error (-32021) before anything runs.
    Required,
}

contract_enum!(TaskSupport {
    Forbidden => "forbidden",
    Optional => "optional",
    Required => "required",
});

/// A task's time to live when the manifest gives none: five minutes from its creation.
pub const DEFAULT_TTL_MS: u64 = 300_000;
/// The longest time to live a manifest may give: a day.
pub const MAX_TTL_MS: u64 = 86_400_000;
/// The shortest: a second.
pub const MIN_TTL_MS: u64 = 1_000;
/// The poll interval suggested to clients when the manifest gives none.
pub const DEFAULT_POLL_INTERVAL_MS: u64 = 1_000;
/// Bounds of the suggested poll interval.
pub const POLL_INTERVAL_RANGE_MS: std::ops::RangeInclusive<u64> = 100..=60_000;
/// How many of a tool's tasks may be alive (working or waiting for input) at once by default.
pub const DEFAULT_MAX_ALIVE: u32 = 16;
/// The most a manifest may allow.
pub const MAX_MAX_ALIVE: u32 = 10_000;
/// How long a task kept in Redis stays `working` without its replica renewing it: a replica
/// that dies leaves its tasks `failed` this long after its last renewal.
pub const DEFAULT_LEASE_MS: u64 = 30_000;
/// Bounds of the lease.
pub const LEASE_RANGE_MS: std::ops::RangeInclusive<u64> = 1_000..=600_000;
