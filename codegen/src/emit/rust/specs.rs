//! The spec constants: `SERVER`, `TOOLS`, `VERIFIER` and `BUNDLE`, every manifest decision
//! spelled out as a literal so a policy change is a one-line diff in review.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::rust::guards::guard_spec;
use crate::emit::rust::tokens::{contract_enum, int, opt, opt_str, opt_u64, raw_string, rt};
use crate::emit::schema::{input_schema, output_schema};
use crate::model::verifier::CheckModel;
use crate::model::{Model, ToolModel};

pub(crate) fn server_spec(model: &Model) -> TokenStream {
    let rt = rt();
    let server = &model.server;
    let (name, version) = (&server.name, &server.version);
    let title = opt_str(server.title.as_ref());
    let instructions = opt_str(server.instructions.as_ref());
    let transport = &model.transport;
    let kind = contract_enum(transport.kind);
    let (stateful, json_response) = (transport.stateful, transport.json_response);
    let max_request_body_bytes = int(transport.max_request_body_bytes);
    let sse_keep_alive_seconds = int(transport.sse_keep_alive_seconds);
    let (allowed_hosts, allowed_origins) = (&transport.allowed_hosts, &transport.allowed_origins);
    let auth_token_env = opt_str(transport.auth_token_env.as_ref());
    let allow_public_bind = transport.allow_public_bind;
    let shutdown_grace_seconds = int(transport.shutdown_grace_seconds);
    let header_read_timeout_ms = int(transport.header_read_timeout_ms);
    let keep_alive_idle_ms = int(transport.keep_alive_idle_ms);
    let first_byte_timeout_ms = int(transport.first_byte_timeout_ms);
    let request_timeout_ms = int(transport.request_timeout_ms);
    let max_headers = int(transport.max_headers);
    let max_header_bytes = int(transport.max_header_bytes);
    let max_connections = int(transport.max_connections);
    let max_streams = int(transport.max_streams);
    let (bind, path, health_path) = (&transport.bind, &transport.path, &transport.health_path);
    let audit = &model.audit;
    let (audit_path, trace_id, error_code) = (&audit.path, audit.trace_id, audit.error_code);
    let audit_subject = audit.subject;
    let schema_version = int(audit.schema_version);
    let fsync = contract_enum(audit.fsync);
    let store = &model.rate_limit_store;
    let (url_env, key_prefix) = (&store.url_env, &store.key_prefix);
    let store_timeout_ms = int(store.timeout_ms);
    let when_unreachable = contract_enum(store.when_unreachable);
    let manifest_sha256 = &model.manifest_sha256;
    let tool_specs = model.tools.iter().map(tool_spec);
    let catalog = crate::emit::rust::catalog::catalog_spec(model);
    let request_state_key_env = opt_str(server.request_state_key_env.as_ref());
    let max_in_flight = opt(server.max_in_flight.map(int));
    // Without a runtime feature the manifest needs, the build stops saying how to turn it on.
    let require_features = model.runtime_features().into_iter().map(|feature| {
        let require = format_ident!("require_{feature}_feature");
        quote!(#rt::#require!();)
    });
    quote! {
        #(#require_features)*
        /// `[server]`, `[transport]`, `[audit]` and `[rate_limit_store]` of the manifest.
        pub const SERVER: #rt::ServerSpec = #rt::ServerSpec {
            name: #name,
            version: #version,
            title: #title,
            instructions: #instructions,
            transport: #rt::TransportSpec {
                kind: #kind,
                bind: #bind,
                path: #path,
                health_path: #health_path,
                stateful: #stateful,
                json_response: #json_response,
                max_request_body_bytes: #max_request_body_bytes,
                sse_keep_alive_seconds: #sse_keep_alive_seconds,
                allowed_hosts: &[#(#allowed_hosts),*],
                allowed_origins: &[#(#allowed_origins),*],
                auth_token_env: #auth_token_env,
                allow_public_bind: #allow_public_bind,
                shutdown_grace_seconds: #shutdown_grace_seconds,
                header_read_timeout_ms: #header_read_timeout_ms,
                keep_alive_idle_ms: #keep_alive_idle_ms,
                first_byte_timeout_ms: #first_byte_timeout_ms,
                request_timeout_ms: #request_timeout_ms,
                max_headers: #max_headers,
                max_header_bytes: #max_header_bytes,
                max_connections: #max_connections,
                max_streams: #max_streams,
            },
            audit: #rt::AuditSpec {
                path: #audit_path,
                schema_version: #schema_version,
                trace_id: #trace_id,
                error_code: #error_code,
                subject: #audit_subject,
                fsync: #fsync,
            },
            rate_limit_store: #rt::RateLimitStoreSpec {
                url_env: #url_env,
                timeout_ms: #store_timeout_ms,
                when_unreachable: #when_unreachable,
                key_prefix: #key_prefix,
            },
            manifest_sha256: #manifest_sha256,
            catalog: #catalog,
            request_state_key_env: #request_state_key_env,
            max_in_flight: #max_in_flight,
        };

        /// Every tool as `tools/list` publishes it, in manifest order.
        pub const TOOLS: &[#rt::ToolSpec] = &[#(#tool_specs),*];
    }
}

pub(crate) fn tool_spec(tool: &ToolModel) -> TokenStream {
    let rt = rt();
    let name = &tool.name;
    let title = opt_str(tool.title.as_ref());
    let description = &tool.description;
    let schema = serde_json::to_string_pretty(&input_schema(tool)).expect("schema serializes");
    let schema = raw_string(&schema);
    let hints = &tool.annotations;
    let (read_only, destructive, idempotent, open_world) = (
        opt(hints.read_only),
        opt(hints.destructive),
        opt(hints.idempotent),
        opt(hints.open_world),
    );
    let guards = guard_spec(&tool.guards);
    let confirm = tool.write.confirm;
    let idempotency = match &tool.write.idempotency {
        Some(keys) => {
            let (argument, backend) = (&keys.argument, contract_enum(keys.backend));
            let window_seconds = int(keys.window_seconds);
            quote! {
                Some(#rt::IdempotencySpec {
                    argument: #argument,
                    window_seconds: #window_seconds,
                    backend: #backend,
                })
            }
        }
        None => quote!(None),
    };
    let task = match &tool.task {
        Some(task) => {
            let support = contract_enum(task.support);
            let (ttl_ms, poll_interval_ms) = (int(task.ttl_ms), int(task.poll_interval_ms));
            let max_alive = int(u64::from(task.max_alive));
            let (store, lease_ms) = (contract_enum(task.store), int(task.lease_ms));
            let ask_first = task.ask_first.iter().map(|form| {
                let form = quote::format_ident!("{}", form);
                quote!(#rt::FormQuestion::of::<#form>())
            });
            quote! {
                Some(#rt::TaskSpec {
                    support: #support,
                    ttl_ms: #ttl_ms,
                    poll_interval_ms: #poll_interval_ms,
                    max_alive: #max_alive,
                    ask_first: &[#(#ask_first),*],
                    store: #store,
                    lease_ms: #lease_ms,
                })
            }
        }
        None => quote!(None),
    };
    let output = match (output_schema(tool), &tool.results) {
        (Some(schema), Some(results)) => {
            let schema = serde_json::to_string_pretty(&schema).expect("schema serializes");
            let schema = raw_string(&schema);
            let result = quote::format_ident!("{}", results.type_name);
            quote! {
                Some(#rt::OutputSpec {
                    schema: #schema,
                    validate: #rt::validate_output::<#result>,
                })
            }
        }
        _ => quote!(None),
    };
    quote! {
        #rt::ToolSpec {
            name: #name,
            title: #title,
            description: #description,
            input_schema: #schema,
            output: #output,
            annotations: #rt::AnnotationSpec {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            },
            guards: #guards,
            write: #rt::WriteSpec {
                confirm: #confirm,
                idempotency: #idempotency,
            },
            task: #task,
        }
    }
}

/// What `verify` checks, spelled out so each check is a reviewable diff.
pub(crate) fn verifier_spec(model: &Model) -> TokenStream {
    let rt = rt();
    let verifier = &model.verifier;
    let tools = model.tools.iter().map(|tool| &tool.name);
    let outcomes = &verifier.outcomes;
    let max_duration_ms = int(verifier.max_duration_ms);
    let artifacts = verifier
        .artifacts
        .iter()
        .map(|(source, destination)| quote!((#source, #destination)));
    let pairs = |pairs: &[(String, String)]| {
        let pairs = pairs.iter().map(|(name, json)| quote!((#name, #json)));
        quote!(&[#(#pairs),*])
    };
    let checks = verifier.checks.iter().map(|check| match check {
        CheckModel::AuditCall { tool, arguments, args_sha256, outcome } => quote! {
            #rt::CheckSpec::AuditCall {
                tool: #tool,
                arguments: #arguments,
                args_sha256: #args_sha256,
                outcome: #outcome,
            }
        },
        CheckModel::StateFile { path, fields, require, expect } => {
            let fields = fields.iter().map(|(name, ty)| {
                let ty = contract_enum(*ty);
                quote!((#name, #ty))
            });
            let (require, expect) = (pairs(require), pairs(expect));
            quote! {
                #rt::CheckSpec::StateFile {
                    path: #path,
                    fields: &[#(#fields),*],
                    require: #require,
                    expect: #expect,
                }
            }
        }
        CheckModel::FileExists { path } => quote!(#rt::CheckSpec::FileExists { path: #path }),
        CheckModel::CallBudget { max_calls, forbid_outcomes } => {
            let max_calls = opt_u64(*max_calls);
            quote!(#rt::CheckSpec::CallBudget { max_calls: #max_calls, forbid_outcomes: &[#(#forbid_outcomes),*] })
        }
    });
    quote! {
        /// What `verify` checks, and the audit format it expects.
        pub const VERIFIER: #rt::VerifierSpec = #rt::VerifierSpec {
            audit: SERVER.audit,
            tools: &[#(#tools),*],
            outcomes: &[#(#outcomes),*],
            max_duration_ms: #max_duration_ms,
            artifacts: &[#(#artifacts),*],
            checks: &[#(#checks),*],
        };
    }
}

/// The Harbor task directory, embedded from OUT_DIR so it always matches the binary.
pub(crate) fn bundle_spec(model: &Model, bundle_paths: &[&str], out_prefix: &str) -> TokenStream {
    let rt = rt();
    let Some(bundle) = &model.bundle else {
        return quote! {
            /// This manifest has no `[task]`, so there is no bundle.
            pub const BUNDLE: #rt::BundleSpec = #rt::BundleSpec { files: &[], binary_paths: &[] };
        };
    };
    let files = bundle_paths.iter().map(|path| {
        let include = format!("/{out_prefix}{}{path}", crate::emit::bundle::PREFIX);
        let executable = path.ends_with(".sh");
        quote! {
            #rt::BundleFile {
                path: #path,
                contents: include_str!(concat!(env!("OUT_DIR"), #include)),
                executable: #executable,
            }
        }
    });
    let binary_paths = crate::emit::bundle::binary_paths(bundle);
    quote! {
        /// The Harbor task directory (`bundle --out DIR` writes it, with this binary at
        /// `binary_paths`).
        pub const BUNDLE: #rt::BundleSpec = #rt::BundleSpec {
            files: &[#(#files),*],
            binary_paths: &[#(#binary_paths),*],
        };
    }
}
