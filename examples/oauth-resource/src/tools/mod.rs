//! Tool bodies of the OAuth example: one module per tool of harness.toml.

pub(crate) mod export_audit;
pub(crate) mod read_status;
pub(crate) mod restart_service;

/// The tool bodies (stateless).
#[derive(Debug, Default)]
pub(crate) struct Toolbox;
