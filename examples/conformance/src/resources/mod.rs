//! Bodies of the resource templates of harness.toml.

pub(crate) mod template_data;
