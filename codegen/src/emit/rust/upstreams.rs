//! The gateway's part of the generated module: `UPSTREAMS` (each upstream and the pins of
//! the tools, prompts, resources and templates it serves) and the bodies that call it. Nothing
//! of it is emitted for a manifest without `[[upstreams]]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use harness_contract::PinKind;

use crate::emit::rust::tokens::{contract_enum, int, opt_str, rt};
use crate::model::{EndpointModel, Model, UpstreamBinding};

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
        let pins = pins_of(model, index).into_iter().map(|pin| {
            let schema = match pin.schema_static {
                Some(schema_static) => quote!(Some(&#schema_static)),
                None => quote!(None),
            };
            let kind = contract_enum(pin.kind);
            let (name, remote, sha256) = (pin.name, &pin.binding.remote_name, &pin.binding.pin_sha256);
            let subscribe = pin.subscribe;
            quote!(#rt::PinSpec { kind: #kind, name: #name, remote_name: #remote, sha256: #sha256, schema: #schema, subscribe: #subscribe })
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

/// One definition an upstream serves, as the manifest binds it.
struct Pinned<'m> {
    kind: PinKind,
    /// How this server publishes it.
    name: &'m str,
    binding: &'m UpstreamBinding,
    /// The static holding a tool's pinned JSON Schema, where it has one.
    schema_static: Option<proc_macro2::Ident>,
    /// A resource clients may subscribe to.
    subscribe: bool,
}

/// What upstream `index` serves, in the order of its pins: tools, prompts, resources,
/// resource templates, then skills, each in manifest order.
fn pins_of(model: &Model, index: usize) -> Vec<Pinned<'_>> {
    let tools = model.tools.iter().filter_map(|tool| {
        Some(Pinned {
            kind: PinKind::Tool,
            name: &tool.name,
            binding: tool.upstream.as_ref()?,
            schema_static: tool
                .pinned_schema
                .as_ref()
                .map(|_| format_ident!("{}_SCHEMA", tool.module.to_uppercase())),
            subscribe: false,
        })
    });
    let catalog = &model.catalog;
    let prompts = catalog.prompts.iter().filter_map(|prompt| {
        Some(Pinned {
            kind: PinKind::Prompt,
            name: &prompt.name,
            binding: prompt.upstream.as_ref()?,
            schema_static: None,
            subscribe: false,
        })
    });
    let resources = catalog.resources.iter().filter_map(|resource| {
        Some(Pinned {
            kind: PinKind::Resource,
            name: &resource.uri,
            binding: resource.upstream.as_ref()?,
            schema_static: None,
            subscribe: resource.subscribe,
        })
    });
    let templates = catalog.templates.iter().filter_map(|template| {
        Some(Pinned {
            kind: PinKind::ResourceTemplate,
            name: &template.uri_template,
            binding: template.upstream.as_ref()?,
            schema_static: None,
            subscribe: false,
        })
    });
    let skills = catalog.upstream_skills.iter().map(|skill| Pinned {
        kind: PinKind::Skill,
        name: &skill.uri,
        binding: &skill.upstream,
        schema_static: None,
        subscribe: false,
    });
    tools
        .chain(prompts)
        .chain(resources)
        .chain(templates)
        .chain(skills)
        .filter(|pin| pin.binding.upstream == index)
        .collect()
}

/// `(upstream, pin)` of the definition of `kind` published as `name`, bound by `binding`: the
/// indexes the runtime's upstream calls take.
pub(crate) fn pin_of(
    model: &Model,
    kind: PinKind,
    name: &str,
    binding: &UpstreamBinding,
) -> (proc_macro2::Literal, proc_macro2::Literal) {
    let pin = pins_of(model, binding.upstream)
        .iter()
        .position(|pin| pin.kind == kind && pin.name == name)
        .expect("a bound definition is one of its upstream's pins");
    (int(binding.upstream as u64), int(pin as u64))
}

/// The closure the dispatch arm of an upstream tool runs: the upstream call.
pub(crate) fn upstream_body(
    model: &Model,
    tool: &crate::model::ToolModel,
    binding: &UpstreamBinding,
) -> TokenStream {
    let (upstream, pin) = pin_of(model, PinKind::Tool, &tool.name, binding);
    let args = format_ident!("{}", tool.args_type);
    if tool.task.is_some() {
        // A task's body outlives the request: it owns its handle on the upstreams.
        return quote! {
            {
                let upstreams = Arc::clone(&self.upstreams);
                move |args: #args, ctx| async move { upstreams.call(#upstream, #pin, args, ctx).await }
            }
        };
    }
    quote!(|args: #args, ctx| self.upstreams.call(#upstream, #pin, args, ctx))
}
