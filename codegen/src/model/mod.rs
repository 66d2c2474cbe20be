//! Stage 2: the validated model. Every name is resolved to its Rust identifiers, every
//! constraint is checked against its type, every default is applied, and every problem is
//! collected, not just the first. Emitters read only this model.
//!
//! One file per concern: [`server`] (`[server]`, `[transport]`, `[audit]`), [`guards`],
//! [`tools`] (tools, arguments, built-ins), [`types`] (argument types and constraints),
//! [`value`] (defaults as JSON), [`bundle`] (the Harbor task) and [`verifier`].

pub mod bundle;
pub mod guards;
pub mod server;
pub mod tools;
pub mod types;
pub mod value;
pub mod verifier;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::ident::{self, IdentError};
use crate::manifest::{self, Guards, Manifest};
use crate::manifest_path::ManifestPath;
use crate::model::guards::resolve_guards;
use crate::model::tools::builtin_tool;

pub use guards::{
    DEFAULT_TABULAR, GuardPolicy, MIN_MAX_CHARS, RateLimitPolicy, RateLimitStoreModel,
};
pub use server::{AuditModel, ServerModel, TransportModel};
pub use tools::{Annotations, Builtin, FieldModel, Presence, ToolModel};
pub use types::{IntRepr, TypeModel};
pub use value::check_value;

/// A manifest that passed every check; the only input the emitters see.
#[derive(Debug, Clone)]
pub struct Model {
    /// `[server]`.
    pub server: ServerModel,
    /// `[transport]`.
    pub transport: TransportModel,
    /// `[audit]`.
    pub audit: AuditModel,
    /// `[rate_limit_store]`.
    pub rate_limit_store: RateLimitStoreModel,
    /// `[[tools]]` in manifest order, then the built-in tools when registered.
    pub tools: Vec<ToolModel>,
    /// sha256 (hex) of the manifest's content (comments and layout aside), published by the
    /// `diagnostics` tool and pinned in the ledger.
    pub manifest_sha256: String,
    /// The Harbor task bundle, when the manifest has `[task]`.
    pub bundle: Option<bundle::BundleModel>,
    /// What `verify` checks.
    pub verifier: verifier::VerifierModel,
    /// Files besides the manifest that the output depends on (instruction, skill bodies).
    pub inputs: Vec<PathBuf>,
}

/// Names the generated module defines or uses unqualified; a tool or type may not take them.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Harness",
    "Tools",
    "Arc",
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Eq",
    "Err",
    "Future",
    "Hash",
    "None",
    "Ok",
    "Option",
    "PartialEq",
    "Result",
    "Send",
    "Some",
    "String",
    "Sync",
    "Vec",
];

impl Model {
    /// Whether any tool keeps its rate limit in Redis (the runtime then needs its `redis`
    /// feature).
    pub fn uses_redis_rate_limits(&self) -> bool {
        self.tools.iter().any(|tool| {
            tool.guards
                .rate_limit
                .is_some_and(|limit| limit.backend == manifest::RateLimitBackend::Redis)
        })
    }
}

/// Builds the model from a parsed manifest and its text (files it names are read relative
/// to `base_dir`), or returns every problem found.
pub fn build(
    manifest: &Manifest,
    manifest_text: &str,
    base_dir: &Path,
) -> Result<Model, Vec<Diagnostic>> {
    let mut builder = ModelBuilder::default();
    for name in RESERVED_TYPE_NAMES {
        builder
            .type_names
            .insert((*name).to_owned(), ("the generated code".to_owned(), None));
    }
    let server = builder.server(&manifest.server);
    let transport = builder.transport(&manifest.transport);
    let audit = builder.audit(&manifest.audit);
    let rate_limit_store = builder.rate_limit_store(&manifest.rate_limit_store);
    let store_backend = manifest.rate_limit_store.backend;
    let root = ManifestPath::root();
    builder.check_guards(
        &manifest.defaults.guards,
        &root.key("defaults").key("guards"),
    );
    let mut tools = builder.tools(&manifest.tools, &manifest.defaults.guards, store_backend);
    if manifest.server.register_builtins {
        let defaults = resolve_guards(&Guards::default(), &manifest.defaults.guards, store_backend);
        for (index, tool) in manifest.tools.iter().enumerate() {
            if Builtin::ALL
                .iter()
                .any(|builtin| builtin.name() == tool.name)
            {
                builder.diagnostics.report(
                    Diagnostic::value(
                        root.key("tools").index(index).key("name"),
                        format!(
                            "tool `{}` clashes with the built-in tool of that name",
                            tool.name
                        ),
                    )
                    .label("a built-in tool")
                    .help("rename the tool, or set `register_builtins = false` in [server]"),
                );
            }
        }
        tools.extend(
            Builtin::ALL
                .into_iter()
                .map(|builtin| builtin_tool(builtin, &defaults)),
        );
    }
    let mut inputs = Vec::new();
    let bundle = bundle::build(manifest, base_dir, &mut inputs, &mut builder.diagnostics);
    let verifier = verifier::build(manifest, &tools, &mut builder.diagnostics);
    if builder.diagnostics.is_empty() {
        Ok(Model {
            server,
            transport,
            audit,
            rate_limit_store,
            tools,
            manifest_sha256: content_digest(manifest_text),
            bundle,
            verifier,
            inputs,
        })
    } else {
        Err(builder.diagnostics.into_vec())
    }
}

/// sha256 of the manifest's content: the canonical JSON of its TOML, so comments, layout and
/// key order do not change it (the raw text's digest when the TOML has a date, which JSON
/// cannot hold; such a manifest is refused anyway).
fn content_digest(manifest_text: &str) -> String {
    let content = toml::from_str::<toml::Value>(manifest_text)
        .ok()
        .and_then(|value| value::toml_to_json(&value).ok());
    match content {
        Some(json) => harness_contract::sha256_hex(harness_contract::canonical_json(&json)),
        None => harness_contract::sha256_hex(manifest_text),
    }
}

#[derive(Default)]
struct ModelBuilder {
    diagnostics: Diagnostics,
    /// Generated type and trait names, with what defined them, to catch collisions.
    type_names: BTreeMap<String, (String, Option<ManifestPath>)>,
}

impl ModelBuilder {
    /// The snake_case and UpperCamelCase forms of a name, or an error at `path`.
    pub(super) fn names(&mut self, name: &str, path: &ManifestPath) -> Option<(String, String)> {
        match ident::snake(name).and_then(|snake| Ok((snake, ident::camel(name)?))) {
            Ok(names) => Some(names),
            Err(error) => {
                self.ident_error(&error, name, path);
                None
            }
        }
    }

    pub(super) fn ident_error(&mut self, error: &IdentError, name: &str, path: &ManifestPath) {
        self.diagnostics.report(
            Diagnostic::value(path.clone(), error.describe(name))
                .label("cannot be a Rust identifier")
                .help("start with a letter and use ASCII letters, digits, `_` and `-`; avoid self, Self, super and crate"),
        );
    }

    /// Records a generated type name; two definitions of the same name are an error.
    pub(super) fn claim_type(&mut self, type_name: &str, owner: &str, path: &ManifestPath) {
        if let Some((previous, previous_path)) = self
            .type_names
            .insert(type_name.to_owned(), (owner.to_owned(), Some(path.clone())))
        {
            let mut diagnostic = Diagnostic::value(
                path.clone(),
                format!("`{owner}` and {previous} both define the Rust type `{type_name}`"),
            )
            .label("collides after case conversion")
            .help("rename the tool or argument so the generated type names differ");
            if let Some(previous_path) = previous_path {
                diagnostic =
                    diagnostic.also_at(previous_path, format!("defines `{type_name}` too"));
            }
            self.diagnostics.report(diagnostic);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::content_digest;

    #[test]
    fn the_manifest_digest_ignores_comments_layout_and_key_order() {
        let digest = content_digest("[server]\nname = \"a\"\nversion = \"1\"\n");
        assert_eq!(
            digest,
            content_digest("# A comment.\n[server]\nversion   = \"1\" # why\nname = \"a\"\n")
        );
        assert_ne!(
            digest,
            content_digest("[server]\nname = \"b\"\nversion = \"1\"\n")
        );
    }
}
