//! A resolved guard policy as generated code spells it out.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::emit::rust::tokens::{contract_enum, int, opt, opt_u64, raw_string, rt};
use crate::model::GuardPolicy;

/// The resolved guard policy, spelled out so a policy change is a reviewable diff.
pub(crate) fn guard_spec(guards: &GuardPolicy) -> TokenStream {
    let rt = rt();
    let rate_limit = opt(guards.rate_limit.map(|limit| {
        let (calls, period_seconds) = (int(limit.calls), Literal::f64_unsuffixed(limit.period_seconds));
        let (backend, per) = (contract_enum(limit.backend), contract_enum(limit.per));
        quote!(#rt::RateLimitSpec { calls: #calls, period_seconds: #period_seconds, backend: #backend, per: #per })
    }));
    let tabular = opt(guards.tabular.map(|(max_rows, action)| {
        let (max_rows, action) = (int(max_rows), contract_enum(action));
        quote!(#rt::TabularSpec { max_rows: #max_rows, action: #action })
    }));
    let (timeout_ms, max_lines, max_chars) = (
        opt_u64(guards.timeout_ms),
        opt_u64(guards.max_lines),
        opt_u64(guards.max_chars),
    );
    let (catch_unhandled, strip_xml, redact_secrets) = (
        guards.catch_unhandled,
        guards.strip_xml,
        guards.redact_secrets,
    );
    let redact_patterns = guards.redact_patterns.iter().map(|added| {
        let (kind, pattern) = (&added.kind, raw_string(&added.pattern));
        quote!(#rt::RedactPattern { kind: #kind, pattern: #pattern })
    });
    let max_concurrent = opt(guards.max_concurrent.map(int));
    let max_bytes = int(guards.max_bytes);
    let (mime_types, link_schemes) = (&guards.mime_types, &guards.link_schemes);
    quote! {
        #rt::GuardSpec {
            rate_limit: #rate_limit,
            timeout_ms: #timeout_ms,
            max_concurrent: #max_concurrent,
            catch_unhandled: #catch_unhandled,
            tabular: #tabular,
            max_lines: #max_lines,
            strip_xml: #strip_xml,
            redact_secrets: #redact_secrets,
            redact_patterns: &[#(#redact_patterns),*],
            max_chars: #max_chars,
            max_bytes: #max_bytes,
            mime_types: &[#(#mime_types),*],
            link_schemes: &[#(#link_schemes),*],
        }
    }
}
