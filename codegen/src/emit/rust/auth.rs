//! `[auth]`'s part of the generated module: `AUTH` (the resource server's spec, each tool's
//! scopes included) and the `GeneratedServer::auth` accessor; nothing for a manifest without
//! the table, so such a server is generated as before.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::rust::tokens::{int, opt_str, rt};
use crate::model::Model;

/// `pub static AUTH: rt::AuthSpec`, or nothing.
pub(crate) fn auth_spec(model: &Model) -> TokenStream {
    let rt = rt();
    let Some(auth) = &model.auth else {
        return TokenStream::new();
    };
    let (issuer, audience) = (&auth.issuer, &auth.audience);
    let jwks_uri = opt_str(auth.jwks_uri.as_ref());
    let algorithms = &auth.algorithms;
    let required = &auth.required_scopes;
    let leeway = int(auth.leeway_seconds);
    let refresh = int(auth.jwks_refresh_seconds);
    let introspection = match &auth.introspection {
        Some(introspection) => {
            let (endpoint, id, secret) = (
                &introspection.endpoint,
                &introspection.client_id_env,
                &introspection.client_secret_env,
            );
            let cache = int(introspection.cache_seconds);
            quote!(Some(#rt::IntrospectionSpec {
                endpoint: #endpoint,
                client_id_env: #id,
                client_secret_env: #secret,
                cache_seconds: #cache,
            }))
        }
        None => quote!(None),
    };
    let ca_pem = opt_str(auth.ca_pem.as_ref());
    let tools = auth
        .tool_scopes
        .iter()
        .map(|(tool, scopes)| quote!((#tool, &[#(#scopes),*])));
    quote! {
        /// The manifest's `[auth]`: the OAuth 2.1 resource server in front of the HTTP transports.
        pub static AUTH: #rt::AuthSpec = #rt::AuthSpec {
            issuer: #issuer,
            audience: #audience,
            jwks_uri: #jwks_uri,
            algorithms: &[#(#algorithms),*],
            required_scopes: &[#(#required),*],
            leeway_seconds: #leeway,
            jwks_refresh_seconds: #refresh,
            introspection: #introspection,
            ca_pem: #ca_pem,
            tool_scopes: &[#(#tools),*],
        };
    }
}

/// The `GeneratedServer::auth` override, or nothing (the trait's default is `None`).
pub(crate) fn auth_accessor(model: &Model) -> TokenStream {
    let rt = rt();
    if model.auth.is_none() {
        return TokenStream::new();
    }
    quote! {
        fn auth(&self) -> Option<&'static #rt::AuthSpec> {
            Some(&AUTH)
        }
    }
}
