//! The generated Rust module, one file per part: [`specs`] (the spec constants), [`types`]
//! (argument types and validators), [`server`] (body traits and the rmcp handler), and
//! [`format`] (prettyplease, the `@generated` header, blank lines between items).

pub mod format;
mod server;
mod specs;
mod types;

use harness_contract::ContractEnum;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit::EmitOptions;
use crate::model::Model;

/// The whole generated module (not yet formatted).
/// `bundle_paths` are the bundle's files (empty without `[task]`), embedded from OUT_DIR.
pub fn server_module(model: &Model, options: &EmitOptions, bundle_paths: &[&str]) -> TokenStream {
    let tools_dir = options.tools_dir.as_str();
    let bundle = specs::bundle_spec(model, bundle_paths, &options.out_prefix);
    let verifier = specs::verifier_spec(model);
    let server_spec = specs::server_spec(model);
    let user_tools = || model.tools.iter().filter(|tool| tool.builtin.is_none());
    let types = user_tools().map(types::tool_types);
    let traits = user_tools().map(|tool| server::body_trait(tool, tools_dir));
    let tools_bound = server::tools_trait(model);
    let harness = server::harness(model);
    let modules = server::tool_modules(model);
    quote! {
        use ::harness_runtime::__private as rt;
        use ::std::sync::Arc;

        #server_spec
        #bundle
        #verifier
        #(#types)*
        #(#traits)*
        #tools_bound
        #harness
        #modules
    }
}

/// The runtime facade, imported once as `rt` at the top of the generated module.
pub(super) fn rt() -> TokenStream {
    quote!(rt)
}

/// `Some("text")` or `None`.
pub(super) fn opt_str(value: Option<&String>) -> TokenStream {
    match value {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    }
}

/// `Some(value)` or `None`.
pub(super) fn opt<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

/// `rt::<Type>::<Variant>` for a value of an enum the runtime shares with the generator.
pub(super) fn contract_enum<E: ContractEnum>(value: E) -> TokenStream {
    let rt = rt();
    let (ty, variant) = (
        format_ident!("{}", E::NAME),
        format_ident!("{}", value.variant()),
    );
    quote!(#rt::#ty::#variant)
}

/// A raw string literal (`r#"..."#`) so pretty JSON stays readable in the generated file.
pub(super) fn raw_string(text: &str) -> Literal {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let fence = "#".repeat(hashes);
    format!("r{fence}\"{text}\"{fence}")
        .parse()
        .expect("a raw string literal")
}

/// `#[doc]` attributes, one per line of `text`.
pub(super) fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|line| format!(" {line}"));
    quote!(#(#[doc = #lines])*)
}

/// An integer literal without a type suffix (`4194304`, not `4194304u64`): the field's type
/// says what it is.
pub(super) fn int(value: impl Into<u64>) -> Literal {
    Literal::u64_unsuffixed(value.into())
}

/// `Some(<unsuffixed integer>)` or `None`.
pub(super) fn opt_u64(value: Option<u64>) -> TokenStream {
    opt(value.map(int))
}
