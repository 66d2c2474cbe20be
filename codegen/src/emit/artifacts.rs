//! Every artifact of a model: the generated server, which embeds the bundle's files, and the
//! bundle itself, each rendered once.

use std::collections::BTreeMap;

use crate::emit::bundle;
use crate::emit::options::EmitOptions;
use crate::emit::rust;
use crate::model::Model;

/// File name of the generated Rust module inside OUT_DIR.
pub const SERVER_FILE: &str = "harness.rs";

/// Every generated artifact: relative path -> text, in sorted order.
pub type Artifacts = BTreeMap<String, String>;

/// Emits every artifact of `model`.
pub fn emit_all(model: &Model, options: &EmitOptions) -> Artifacts {
    let mut artifacts = Artifacts::new();
    // Rendered once: the files are artifacts, and their paths are what the server embeds.
    let bundle_files = model
        .bundle
        .as_ref()
        .map(|bundle_model| bundle::files(model, bundle_model, options))
        .unwrap_or_default();
    let bundle_paths: Vec<&str> = bundle_files.iter().map(|(path, _)| path.as_str()).collect();
    let tokens = rust::server_module(model, options, &bundle_paths);
    artifacts.insert(
        SERVER_FILE.to_owned(),
        rust::format::format_rust(tokens, &options.manifest_name),
    );
    for (path, text) in &bundle_files {
        artifacts.insert(format!("{}{path}", bundle::PREFIX), text.clone());
    }
    artifacts
}
