//! Tool bodies of the benchmark server.

crate::generated::tool_modules!();

/// The benchmark tools keep no state.
#[derive(Debug, Default)]
pub struct Toolbox;
