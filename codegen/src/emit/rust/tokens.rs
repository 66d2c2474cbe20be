//! Small token builders every part of the generated module uses: the runtime facade, options,
//! literals and doc attributes.

use harness_contract::ContractEnum;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The runtime facade, imported once as `rt` at the top of the generated module.
pub(crate) fn rt() -> TokenStream {
    quote!(rt)
}

/// `Some("text")` or `None`.
pub(crate) fn opt_str(value: Option<&String>) -> TokenStream {
    match value {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    }
}

/// `Some(value)` or `None`.
pub(crate) fn opt<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

/// `rt::<Type>::<Variant>` for a value of an enum the runtime shares with the generator.
pub(crate) fn contract_enum<E: ContractEnum>(value: E) -> TokenStream {
    let rt = rt();
    let (ty, variant) = (
        format_ident!("{}", E::NAME),
        format_ident!("{}", value.variant()),
    );
    quote!(#rt::#ty::#variant)
}

/// A raw string literal (`r#"..."#`) so pretty JSON stays readable in the generated file.
pub(crate) fn raw_string(text: &str) -> Literal {
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
pub(crate) fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|line| format!(" {line}"));
    quote!(#(#[doc = #lines])*)
}

/// An integer literal without a type suffix (`4194304`, not `4194304u64`): the field's type
/// says what it is.
pub(crate) fn int(value: impl Into<u64>) -> Literal {
    Literal::u64_unsuffixed(value.into())
}

/// `Some(<unsuffixed integer>)` or `None`.
pub(crate) fn opt_u64(value: Option<u64>) -> TokenStream {
    opt(value.map(int))
}
