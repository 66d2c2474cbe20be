//! task.toml: the model's task configuration, serialized by the `toml` crate.

use crate::emit::{EmitOptions, generated_notice};
use crate::model::bundle::BundleModel;

/// The text of task.toml.
pub(super) fn task_toml(bundle: &BundleModel, options: &EmitOptions) -> String {
    let body = toml::to_string(&bundle.task_config).expect("task.toml is plain TOML");
    format!("# {}\n{body}", generated_notice(&options.manifest_name))
}
