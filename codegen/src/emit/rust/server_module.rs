//! The whole generated module, in the order a reader meets it: the specs, the argument types,
//! the body traits, then the handler and the tool modules.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::options::EmitOptions;
use crate::emit::rust::{auth, catalog, server, specs, types, upstreams};
use crate::model::Model;

/// The whole generated module (not yet formatted).
/// `bundle_paths` are the bundle's files (empty without `[task]`), embedded from OUT_DIR.
pub fn server_module(model: &Model, options: &EmitOptions, bundle_paths: &[&str]) -> TokenStream {
    let tools_dir = options.tools_dir.as_str();
    let bundle = specs::bundle_spec(model, bundle_paths, &options.out_prefix);
    let verifier = specs::verifier_spec(model);
    let server_spec = specs::server_spec(model);
    let upstream_specs = upstreams::upstream_specs(model);
    let auth_spec = auth::auth_spec(model);
    // Upstream tools have argument types (validated before the upstream sees them) but no
    // body trait.
    let types = model
        .tools
        .iter()
        .filter(|tool| tool.builtin.is_none())
        .map(types::tool_types);
    let traits = model
        .tools
        .iter()
        .filter(|tool| tool.has_user_body())
        .map(|tool| server::body_trait(tool, tools_dir));
    let catalog_types = catalog::catalog_types(model);
    let template_traits = model
        .catalog
        .templates
        .iter()
        .filter_map(catalog::template_trait);
    let prompt_traits = model
        .catalog
        .prompts
        .iter()
        .filter_map(catalog::prompt_trait);
    let completion_traits = catalog::completion_traits(model);
    let tools_bound = server::tools_trait(model);
    let harness = server::harness(model);
    let modules = server::tool_modules(model);
    quote! {
        use ::harness_runtime::__private as rt;
        use ::std::sync::Arc;

        #server_spec
        #upstream_specs
        #auth_spec
        #bundle
        #verifier
        #(#types)*
        #catalog_types
        #(#traits)*
        #(#template_traits)*
        #(#prompt_traits)*
        #completion_traits
        #tools_bound
        #harness
        #modules
    }
}
