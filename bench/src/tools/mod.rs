//! Tool bodies of the benchmark server.

pub(crate) mod echo;
pub(crate) mod echo_shared;
pub(crate) mod echo_task;
pub(crate) mod list_orders;
pub(crate) mod search_logs;

/// The benchmark tools keep no state.
#[derive(Debug, Default)]
pub struct Toolbox;
