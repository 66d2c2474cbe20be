//! Tool bodies: one module per tool of harness.toml. This file and the modules are yours;
//! `harness-codegen scaffold` creates them once, never overwrites them, and appends the
//! declaration of each new tool here.

pub(crate) mod escalate;
pub(crate) mod page_oncall;
pub(crate) mod runbook;

/// The state every tool body can use (connection pools, clients, fixtures...).
#[derive(Debug, Default)]
pub(crate) struct Toolbox;
