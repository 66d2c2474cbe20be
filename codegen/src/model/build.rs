//! The whole model, and the order its checks run in: each table's own checks first, then the
//! tools (which need the defaults), then the bundle and the verifier (which need the tools).

use std::path::{Path, PathBuf};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorStore;
use crate::manifest::{Guards, Manifest, RateLimitBackend};
use crate::manifest_path::ManifestPath;
use crate::model::auth::AuthModel;
use crate::model::bundle::{self, BundleModel};
use crate::model::catalog::{self, CatalogModel};
use crate::model::guards::GuardPolicy;
use crate::model::guards::{GuardDefaults, RateLimitStoreModel, check_guards, rate_limit_store};
use crate::model::names::TypeNames;
use crate::model::server::{AuditModel, ServerModel, TransportModel, audit, server, transport};
use crate::model::tools::{Builtin, ToolModel, builtin_tool, check_builtin_clashes, tools};
use crate::model::upstreams::{UpstreamModel, check_bundle, upstreams};
use crate::model::value::toml_to_json;
use crate::model::verifier::{self, VerifierModel};

/// A manifest that passed every check; the only input the emitters see.
#[derive(Debug, Clone)]
pub struct Model {
    /// `[server]`.
    pub server: ServerModel,
    /// `[transport]`.
    pub transport: TransportModel,
    /// `[audit]`.
    pub audit: AuditModel,
    /// `[auth]`, when the manifest has one.
    pub auth: Option<AuthModel>,
    /// `[rate_limit_store]`.
    pub rate_limit_store: RateLimitStoreModel,
    /// `[[tools]]` in manifest order, then the built-in tools when registered.
    pub tools: Vec<ToolModel>,
    /// `[[upstreams]]`, in manifest order.
    pub upstreams: Vec<UpstreamModel>,
    /// Resources, templates and prompts.
    pub catalog: CatalogModel,
    /// The guards on resource and prompt output: `[defaults.guards]` resolved.
    pub catalog_guards: GuardPolicy,
    /// sha256 (hex) of the manifest's content (comments and layout aside), published by the
    /// `diagnostics` tool and pinned in the ledger.
    pub manifest_sha256: String,
    /// The Harbor task bundle, when the manifest has `[task]`.
    pub bundle: Option<BundleModel>,
    /// What `verify` checks.
    pub verifier: VerifierModel,
    /// Files besides the manifest that the output depends on (instruction, skill bodies).
    pub inputs: Vec<PathBuf>,
}

impl Model {
    /// Whether any tool keeps its rate-limit windows, its idempotency keys or its tasks in
    /// Redis.
    pub fn uses_redis(&self) -> bool {
        self.tools.iter().any(|tool| {
            let limit = tool.guards.rate_limit.map(|limit| limit.backend);
            let keys = tool.write.idempotency.as_ref().map(|keys| keys.backend);
            let tasks = tool.task.as_ref().map(|task| task.store);
            [limit, keys, tasks].contains(&Some(RateLimitBackend::Redis))
        })
    }

    /// The harness-runtime features this manifest needs, in a fixed order: `gateway` for
    /// `[[upstreams]]`, `oauth` for `[auth]`, `redis` for state kept in Redis. Generated code
    /// stops the build naming a missing one; `import` writes them into Cargo.toml.
    pub fn runtime_features(&self) -> Vec<&'static str> {
        [
            (!self.upstreams.is_empty(), "gateway"),
            (self.auth.is_some(), "oauth"),
            (self.uses_redis(), "redis"),
        ]
        .into_iter()
        .filter_map(|(needed, feature)| needed.then_some(feature))
        .collect()
    }
}

/// Builds the model from a parsed manifest and its text (files it names are read relative
/// to `base_dir`), or returns every problem found.
pub fn build(
    manifest: &Manifest,
    manifest_text: &str,
    base_dir: &Path,
) -> Result<Model, Vec<Diagnostic>> {
    let store = ErrorStore::default();
    let errors = store.sink();
    let mut type_names = TypeNames::new(errors.child());
    let server = server(&manifest.server, &errors);
    let transport = transport(&manifest.transport, manifest.auth.is_some(), &errors);
    let audit = audit(&manifest.audit, &errors);
    let mut inputs = Vec::new();
    let auth = crate::model::auth::auth(manifest, base_dir, &mut inputs, &errors);
    let rate_limit_store = rate_limit_store(&manifest.rate_limit_store, &errors);
    let store_backend = manifest.rate_limit_store.backend;
    let defaults_path = ManifestPath::root().key("defaults").key("guards");
    check_guards(&manifest.defaults.guards, &defaults_path, &errors);
    let catalog = catalog::build(manifest, base_dir, &mut inputs, &mut type_names, &errors);
    let defaults = GuardDefaults {
        guards: &manifest.defaults.guards,
        store_backend,
        resource_schemes: catalog.schemes(),
    };
    let catalog_guards = defaults.resolve(&Guards::default());
    let upstreams = upstreams(manifest, base_dir, &mut inputs, &errors);
    crate::model::http_edge::check_request_timeout(manifest, &errors);
    let mut tools = tools(
        &manifest.tools,
        &manifest.upstreams,
        &defaults,
        &mut type_names,
        &errors,
    );
    crate::model::pinned_schema::attach(
        &manifest.tools,
        &mut tools,
        base_dir,
        &mut inputs,
        &errors,
    );
    if manifest.server.register_builtins {
        let guards = defaults.resolve(&Guards::default());
        check_builtin_clashes(&manifest.tools, &errors);
        tools.extend(
            Builtin::ALL
                .into_iter()
                .map(|builtin| builtin_tool(builtin, &guards)),
        );
    }
    crate::model::write::check_confirm_key(manifest, &errors);
    check_bundle(manifest, &errors);
    let bundle = bundle::build(manifest, &catalog.skills, base_dir, &mut inputs, &errors);
    let verifier = verifier::build(manifest, &tools, &errors);
    if errors.failed() {
        // The sinks borrow the store: release them before reading it.
        drop((errors, type_names));
        return Err(store.into_diagnostics());
    }
    Ok(Model {
        server,
        transport,
        audit,
        auth,
        rate_limit_store,
        tools,
        upstreams,
        catalog,
        catalog_guards,
        manifest_sha256: content_digest(manifest_text),
        bundle,
        verifier,
        inputs,
    })
}

/// sha256 of the manifest's content: the canonical JSON of its TOML, so comments, layout and
/// key order do not change it (the raw text's digest when the TOML has a date, which JSON
/// cannot hold; such a manifest is refused anyway).
fn content_digest(manifest_text: &str) -> String {
    let content = toml::from_str::<toml::Value>(manifest_text)
        .ok()
        .and_then(|value| toml_to_json(&value).ok());
    match content {
        Some(json) => harness_contract::sha256_hex(harness_contract::canonical_json(&json)),
        None => harness_contract::sha256_hex(manifest_text),
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
