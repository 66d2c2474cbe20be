//! The gateway's part of the generated module: `UPSTREAMS` (each upstream and the pins of
//! the tools it serves) and the body of an upstream tool. Nothing of it is emitted for a
//! manifest without `[[upstreams]]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::rust::tokens::{contract_enum, int, opt_str, rt};
use crate::model::{EndpointModel, Model, ToolModel, UpstreamBinding};

/// `pub const UPSTREAMS: &[rt::UpstreamSpec]`, or nothing.
pub(crate) fn upstream_specs(model: &Model) -> TokenStream {
    if model.upstreams.is_empty() {
        return TokenStream::new();
    }
    let rt = rt();
    let specs = model.upstreams.iter().enumerate().map(|(index, upstream)| {
        let name = &upstream.name;
        let endpoint = match &upstream.endpoint {
            EndpointModel::Stdio {
                command,
                args,
                cwd,
                env,
            } => {
                let cwd = opt_str(cwd.as_ref());
                quote! {
                    #rt::EndpointSpec::Stdio {
                        command: #command,
                        args: &[#(#args),*],
                        cwd: #cwd,
                        env: &[#(#env),*],
                    }
                }
            }
            EndpointModel::StreamableHttp {
                url,
                headers,
                ca_pem,
            } => {
                let headers = headers
                    .iter()
                    .map(|(header, variable)| quote!((#header, #variable)));
                let ca_pem = opt_str(ca_pem.as_ref());
                quote! {
                    #rt::EndpointSpec::StreamableHttp {
                        url: #url,
                        headers: &[#(#headers),*],
                        ca_pem: #ca_pem,
                    }
                }
            }
        };
        let pins = pins_of(model, index).map(|(tool, binding)| {
            let schema = match tool.pinned_schema {
                Some(_) => {
                    let schema_static = format_ident!("{}_SCHEMA", tool.module.to_uppercase());
                    quote!(Some(&#schema_static))
                }
                None => quote!(None),
            };
            let (tool, remote, sha256) = (&tool.name, &binding.remote_name, &binding.pin_sha256);
            quote!(#rt::PinSpec { tool: #tool, remote_name: #remote, sha256: #sha256, schema: #schema })
        });
        let timeout_ms = int(upstream.timeout_ms);
        let max_restarts = int(upstream.max_restarts);
        let backoff_ms = int(upstream.backoff_ms);
        let on_drift = contract_enum(upstream.on_drift);
        let forward = upstream.forward.iter().map(|request| contract_enum(*request));
        let protocol = contract_enum(upstream.protocol);
        quote! {
            #rt::UpstreamSpec {
                name: #name,
                endpoint: #endpoint,
                timeout_ms: #timeout_ms,
                max_restarts: #max_restarts,
                backoff_ms: #backoff_ms,
                on_drift: #on_drift,
                protocol: #protocol,
                forward: &[#(#forward),*],
                pins: &[#(#pins),*],
            }
        }
    });
    quote! {
        /// The upstream MCP servers the gateway tools call, each with the pins of its tools.
        pub const UPSTREAMS: &[#rt::UpstreamSpec] = &[#(#specs),*];
    }
}

/// The tools upstream `index` serves, in manifest order: the order of its pins.
fn pins_of(model: &Model, index: usize) -> impl Iterator<Item = (&ToolModel, &UpstreamBinding)> {
    model.tools.iter().filter_map(move |tool| {
        tool.upstream
            .as_ref()
            .filter(|binding| binding.upstream == index)
            .map(|binding| (tool, binding))
    })
}

/// The closure the dispatch arm of an upstream tool runs: the upstream call.
pub(crate) fn upstream_body(
    model: &Model,
    tool: &ToolModel,
    binding: &UpstreamBinding,
) -> TokenStream {
    let pin = pins_of(model, binding.upstream)
        .position(|(other, _)| other.name == tool.name)
        .expect("the tool is one of its upstream's pins");
    let (upstream, pin) = (int(binding.upstream as u64), int(pin as u64));
    let args = format_ident!("{}", tool.args_type);
    quote!(|args: #args, ctx| self.upstreams.call(#upstream, #pin, args, ctx))
}
