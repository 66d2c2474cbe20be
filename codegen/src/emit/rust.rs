//! The generated Rust server: argument types and their strict validators, one body trait per
//! tool, the `Tools` bound, the hand-written-style rmcp `ServerHandler`, and the macro that
//! declares the user's tool modules.

use harness_contract::ContractEnum;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit::EmitOptions;
use crate::emit::schema::input_schema;
use crate::ident::to_ident;
use crate::model::{Builtin, FieldModel, GuardPolicy, Model, Presence, ToolModel, TypeModel};

/// The whole generated module (not yet formatted).
/// `bundle_paths` are the bundle's files (empty without `[task]`), embedded from OUT_DIR.
pub fn server_module(model: &Model, options: &EmitOptions, bundle_paths: &[&str]) -> TokenStream {
    let tools_dir = options.tools_dir.as_str();
    let bundle = bundle_spec(model, bundle_paths, &options.out_prefix);
    let verifier = verifier_spec(model);
    let server_spec = server_spec(model);
    let user_tools = || model.tools.iter().filter(|tool| tool.builtin.is_none());
    let types = user_tools().map(tool_types);
    let traits = user_tools().map(|tool| body_trait(tool, tools_dir));
    let tools_bound = tools_trait(model);
    let harness = harness(model);
    let modules = tool_modules(model);
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
fn rt() -> TokenStream {
    quote!(rt)
}

/// `rt::<Type>::<Variant>` for a value of an enum the runtime shares with the generator.
fn contract_enum<E: ContractEnum>(value: E) -> TokenStream {
    let rt = rt();
    let (ty, variant) = (
        format_ident!("{}", E::NAME),
        format_ident!("{}", value.variant()),
    );
    quote!(#rt::#ty::#variant)
}

fn opt_str(value: Option<&String>) -> TokenStream {
    match value {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    }
}

fn opt<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

fn server_spec(model: &Model) -> TokenStream {
    let rt = rt();
    let server = &model.server;
    let (name, version) = (&server.name, &server.version);
    let title = opt_str(server.title.as_ref());
    let instructions = opt_str(server.instructions.as_ref());
    let transport = &model.transport;
    let kind = contract_enum(transport.kind);
    let http = transport;
    let (stateful, json_response, max_request_body_bytes, sse_keep_alive_seconds) = (
        http.stateful,
        http.json_response,
        http.max_request_body_bytes,
        http.sse_keep_alive_seconds,
    );
    let (allowed_hosts, allowed_origins) = (&http.allowed_hosts, &http.allowed_origins);
    let auth_token_env = opt_str(http.auth_token_env.as_ref());
    let (allow_public_bind, shutdown_grace_seconds) =
        (http.allow_public_bind, http.shutdown_grace_seconds);
    let (bind, path, health_path) = (&transport.bind, &transport.path, &transport.health_path);
    let audit = &model.audit;
    let (audit_path, schema_version, trace_id, error_code) = (
        &audit.path,
        audit.schema_version,
        audit.trace_id,
        audit.error_code,
    );
    let fsync = contract_enum(audit.fsync);
    let manifest_sha256 = &model.manifest_sha256;
    let tool_specs = model.tools.iter().map(tool_spec);
    quote! {
        /// `[server]` and `[transport]` of the manifest.
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
            },
            audit: #rt::AuditSpec {
                path: #audit_path,
                schema_version: #schema_version,
                trace_id: #trace_id,
                error_code: #error_code,
                fsync: #fsync,
            },
            manifest_sha256: #manifest_sha256,
        };

        /// Every tool as `tools/list` publishes it, in manifest order.
        pub const TOOLS: &[#rt::ToolSpec] = &[#(#tool_specs),*];
    }
}

fn tool_spec(tool: &ToolModel) -> TokenStream {
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
    quote! {
        #rt::ToolSpec {
            name: #name,
            title: #title,
            description: #description,
            input_schema: #schema,
            annotations: #rt::AnnotationSpec {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            },
            guards: #guards,
        }
    }
}

/// What `verify` checks, spelled out so each check is a reviewable diff.
fn verifier_spec(model: &Model) -> TokenStream {
    use crate::model::verifier::CheckModel;
    let rt = rt();
    let verifier = &model.verifier;
    let tools = model.tools.iter().map(|tool| &tool.name);
    let outcomes = &verifier.outcomes;
    let max_duration_ms = verifier.max_duration_ms;
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
            let max_calls = opt(*max_calls);
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
fn bundle_spec(model: &Model, bundle_paths: &[&str], out_prefix: &str) -> TokenStream {
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

/// The resolved guard policy, spelled out so a policy change is a reviewable diff.
fn guard_spec(guards: &GuardPolicy) -> TokenStream {
    let rt = rt();
    let rate_limit = opt(guards.rate_limit.map(|(calls, period_seconds)| {
        let period_seconds = Literal::f64_unsuffixed(period_seconds);
        quote!(#rt::RateLimitSpec { calls: #calls, period_seconds: #period_seconds })
    }));
    let tabular = opt(guards.tabular.map(|(max_rows, action)| {
        let action = contract_enum(action);
        quote!(#rt::TabularSpec { max_rows: #max_rows, action: #action })
    }));
    let (timeout_ms, max_lines, max_chars) = (
        opt(guards.timeout_ms),
        opt(guards.max_lines),
        opt(guards.max_chars),
    );
    let (catch_unhandled, strip_xml) = (guards.catch_unhandled, guards.strip_xml);
    quote! {
        #rt::GuardSpec {
            rate_limit: #rate_limit,
            timeout_ms: #timeout_ms,
            catch_unhandled: #catch_unhandled,
            tabular: #tabular,
            max_lines: #max_lines,
            strip_xml: #strip_xml,
            max_chars: #max_chars,
        }
    }
}

/// A raw string literal (`r#"..."#`) so pretty JSON stays readable in the generated file.
fn raw_string(text: &str) -> Literal {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let fence = "#".repeat(hashes);
    format!("r{fence}\"{text}\"{fence}")
        .parse()
        .expect("a raw string literal")
}

fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|line| format!(" {line}"));
    quote!(#(#[doc = #lines])*)
}

/// The arguments struct of a tool, and every enum and object type inside it.
fn tool_types(tool: &ToolModel) -> TokenStream {
    let args_doc = format!("Validated arguments of tool `{}`.", tool.name);
    let name = format_ident!("{}", tool.args_type);
    struct_with_validator(&name, &args_doc, &tool.args)
}

fn struct_with_validator(
    name: &proc_macro2::Ident,
    doc_text: &str,
    fields: &[FieldModel],
) -> TokenStream {
    let rt = rt();
    let serde_crate = "::harness_runtime::__private::serde";
    let doc = doc(doc_text);
    let field_decls = fields.iter().map(|field| {
        let ident = to_ident(&field.ident);
        let json_name = &field.name;
        let ty = rust_type(&field.ty);
        let doc = field.description.as_deref().map(self::doc);
        let rename = (field.ident != field.name).then(|| quote!(#[serde(rename = #json_name)]));
        match field.presence {
            Presence::Optional => quote! {
                #doc
                #rename
                #[serde(skip_serializing_if = "Option::is_none")]
                pub #ident: Option<#ty>,
            },
            _ => quote! {
                #doc
                #rename
                pub #ident: #ty,
            },
        }
    });
    let allowed = fields.iter().map(|field| &field.name);
    let bindings = fields.iter().map(|field| {
        let ident = to_ident(&field.ident);
        let json_name = &field.name;
        let parse = parse_expr(&field.ty, quote!(value), quote!(path.field(#json_name)));
        let absent = match &field.presence {
            Presence::Required => quote! {{
                errors.missing(path.field(#json_name));
                None
            }},
            Presence::Optional => {
                quote!(Some(None))
            }
            Presence::Default(value) => {
                let literal = default_literal(&field.ty, value);
                quote!(Some(#literal))
            }
        };
        let present = match field.presence {
            Presence::Optional => quote!((#parse).map(Some)),
            _ => parse,
        };
        quote! {
            let #ident = match object.get(#json_name) {
                Some(value) => #present,
                None => #absent,
            };
        }
    });
    let assemble = fields.iter().map(|field| {
        let ident = to_ident(&field.ident);
        quote!(#ident: #ident?)
    });
    let nested = fields.iter().map(|field| nested_types(&field.ty));
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, #rt::serde::Serialize)]
        #[serde(crate = #serde_crate)]
        pub struct #name {
            #(#field_decls)*
        }

        impl #rt::FromArguments for #name {
            fn from_arguments(
                object: &#rt::JsonObject,
                path: #rt::ArgPath<'_>,
                errors: &mut #rt::ArgErrors,
            ) -> Option<Self> {
                #rt::reject_unknown_fields(object, path, &[#(#allowed),*], errors);
                #(#bindings)*
                Some(Self { #(#assemble),* })
            }
        }

        #(#nested)*
    }
}

fn nested_types(ty: &TypeModel) -> TokenStream {
    match ty {
        TypeModel::Enum {
            type_name,
            variants,
        } => enum_type(type_name, variants),
        TypeModel::Object { type_name, fields } => {
            let name = format_ident!("{}", type_name);
            struct_with_validator(
                &name,
                &format!("The `{type_name}` object argument."),
                fields,
            )
        }
        TypeModel::Array { items, .. } => nested_types(items),
        _ => TokenStream::new(),
    }
}

fn enum_type(type_name: &str, variants: &[(String, String)]) -> TokenStream {
    let rt = rt();
    let serde_crate = "::harness_runtime::__private::serde";
    let name = format_ident!("{}", type_name);
    let idents: Vec<_> = variants
        .iter()
        .map(|(_, variant)| to_ident(variant))
        .collect();
    let values: Vec<_> = variants.iter().map(|(value, _)| value).collect();
    let variant_docs = values.iter().map(|value| format!(" `{value:?}`"));
    quote! {
        #[doc = " One of the allowed values of an enum argument."]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, #rt::serde::Serialize)]
        #[serde(crate = #serde_crate)]
        pub enum #name {
            #(
                #[doc = #variant_docs]
                #[serde(rename = #values)]
                #idents,
            )*
        }

        impl #name {
            /// Every allowed value, in manifest order.
            pub const VALUES: &'static [&'static str] = &[#(#values),*];

            /// The JSON value of this member.
            #[allow(dead_code, reason = "API for tool bodies, which may not need it")]
            pub fn as_str(self) -> &'static str {
                match self {
                    #(Self::#idents => #values,)*
                }
            }

            fn from_json(
                value: &#rt::serde_json::Value,
                path: #rt::ArgPath<'_>,
                errors: &mut #rt::ArgErrors,
            ) -> Option<Self> {
                match value.as_str() {
                    #(Some(#values) => Some(Self::#idents),)*
                    _ => #rt::not_a_member(value, path, Self::VALUES, errors),
                }
            }
        }
    }
}

fn rust_type(ty: &TypeModel) -> TokenStream {
    match ty {
        TypeModel::String { .. } => quote!(String),
        TypeModel::Integer { repr, .. } => {
            let repr = format_ident!("{}", repr.rust_type());
            quote!(#repr)
        }
        TypeModel::Number { .. } => quote!(f64),
        TypeModel::Boolean => quote!(bool),
        TypeModel::Enum { type_name, .. } | TypeModel::Object { type_name, .. } => {
            let name = format_ident!("{}", type_name);
            quote!(#name)
        }
        TypeModel::Array { items, .. } => {
            let item = rust_type(items);
            quote!(Vec<#item>)
        }
    }
}

/// An expression of type `Option<T>` validating `value` at `path` into the field's type.
fn parse_expr(ty: &TypeModel, value: TokenStream, path: TokenStream) -> TokenStream {
    let rt = rt();
    match ty {
        TypeModel::String {
            min_length,
            max_length,
            pattern,
        } => {
            let (min_length, max_length) = (opt(*min_length), opt(*max_length));
            match pattern {
                Some(pattern) => quote! {{
                    static PATTERN: #rt::LazyLock<#rt::Regex> = #rt::LazyLock::new(|| {
                        #rt::Regex::new(#pattern).expect("harness-codegen checked this pattern")
                    });
                    #rt::string(#value, #path, &#rt::StringRules {
                        min_length: #min_length,
                        max_length: #max_length,
                        pattern: Some((&*PATTERN, #pattern)),
                    }, errors)
                }},
                None => quote! {
                    #rt::string(#value, #path, &#rt::StringRules {
                        min_length: #min_length,
                        max_length: #max_length,
                        pattern: None,
                    }, errors)
                },
            }
        }
        TypeModel::Integer {
            minimum,
            maximum,
            repr,
        } => {
            let repr = format_ident!("{}", repr.rust_type());
            let (minimum, maximum) = (
                Literal::i64_suffixed(*minimum),
                Literal::i64_suffixed(*maximum),
            );
            quote!(#rt::integer::<#repr>(#value, #path, #minimum, #maximum, errors))
        }
        TypeModel::Number {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
        } => {
            let [minimum, maximum, exclusive_minimum, exclusive_maximum] =
                [minimum, maximum, exclusive_minimum, exclusive_maximum]
                    .map(|bound| opt(bound.map(Literal::f64_suffixed)));
            quote! {
                #rt::number(#value, #path, &#rt::NumberRules {
                    minimum: #minimum,
                    maximum: #maximum,
                    exclusive_minimum: #exclusive_minimum,
                    exclusive_maximum: #exclusive_maximum,
                }, errors)
            }
        }
        TypeModel::Boolean => quote!(#rt::boolean(#value, #path, errors)),
        TypeModel::Enum { type_name, .. } => {
            let name = format_ident!("{}", type_name);
            quote!(#name::from_json(#value, #path, errors))
        }
        TypeModel::Object { type_name, .. } => {
            let name = format_ident!("{}", type_name);
            quote!(#rt::object::<#name>(#value, #path, errors))
        }
        TypeModel::Array {
            items,
            min_items,
            max_items,
        } => {
            let (min_items, max_items) = (opt(*min_items), opt(*max_items));
            // A bare function where one exists: clippy flags a closure that only forwards.
            let item = match &**items {
                TypeModel::Boolean => quote!(#rt::boolean),
                TypeModel::Enum { type_name, .. } => {
                    let name = format_ident!("{}", type_name);
                    quote!(#name::from_json)
                }
                _ => {
                    let parse = parse_expr(items, quote!(item), quote!(path));
                    quote!(|item, path, errors| #parse)
                }
            };
            quote! {
                #rt::array(#value, #path, #min_items, #max_items, errors, #item)
            }
        }
    }
}

/// A Rust expression for a default value the model already checked against `ty`.
fn default_literal(ty: &TypeModel, value: &serde_json::Value) -> TokenStream {
    match (ty, value) {
        (TypeModel::String { .. }, serde_json::Value::String(text)) => {
            quote!(String::from(#text))
        }
        (TypeModel::Integer { repr, .. }, serde_json::Value::Number(number)) => {
            let literal: Literal = format!("{}{}", number, repr.rust_type())
                .parse()
                .expect("an integer literal");
            quote!(#literal)
        }
        (TypeModel::Number { .. }, serde_json::Value::Number(number)) => {
            let literal = Literal::f64_suffixed(number.as_f64().expect("a finite number"));
            quote!(#literal)
        }
        (TypeModel::Boolean, serde_json::Value::Bool(flag)) => quote!(#flag),
        (
            TypeModel::Enum {
                type_name,
                variants,
            },
            serde_json::Value::String(text),
        ) => {
            let name = format_ident!("{}", type_name);
            let (_, variant) = variants
                .iter()
                .find(|(member, _)| member == text)
                .expect("the model checked the default is a member");
            let variant = to_ident(variant);
            quote!(#name::#variant)
        }
        (TypeModel::Array { items, .. }, serde_json::Value::Array(values)) => {
            let values = values.iter().map(|value| default_literal(items, value));
            quote!(vec![#(#values),*])
        }
        _ => unreachable!("the model checked every default against its type"),
    }
}

fn body_trait(tool: &ToolModel, tools_dir: &str) -> TokenStream {
    let rt = rt();
    let trait_name = format_ident!("{}", tool.trait_name);
    let method = to_ident(&tool.module);
    let args = format_ident!("{}", tool.args_type);
    let file = format!("{tools_dir}/{}.rs", tool.module);
    let message = format!("tool `{}` has no body for `{{Self}}`", tool.name);
    let label = format!("`{}` is missing", tool.trait_name);
    let note = format!(
        "write `impl {} for {{Self}}` in {file}; `cargo run -p harness-codegen -- scaffold` creates a stub",
        tool.trait_name
    );
    let trait_doc = doc(&format!(
        "The body of tool `{}`: implement it in `{file}`.\n\n{}",
        tool.name, tool.description
    ));
    quote! {
        #trait_doc
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #trait_name: Send + Sync + 'static {
            /// The result: a serializable value; a JSON object becomes structuredContent.
            type Output: #rt::serde::Serialize + Send;

            /// Runs one call with validated arguments.
            fn #method(
                &self,
                args: #args,
                ctx: #rt::CallContext,
            ) -> impl ::core::future::Future<
                Output = Result<Self::Output, #rt::ToolError>,
            > + Send;
        }
    }
}

fn tools_trait(model: &Model) -> TokenStream {
    let bounds: Vec<_> = model
        .tools
        .iter()
        .filter(|tool| tool.builtin.is_none())
        .map(|tool| format_ident!("{}", tool.trait_name))
        .collect();
    quote! {
        /// Every tool body of the manifest; implemented for any type that implements them all.
        #[diagnostic::on_unimplemented(
            message = "`{Self}` does not implement every tool body of the manifest",
            note = "the other errors name each missing tool and the file its body belongs in"
        )]
        pub trait Tools: #(#bounds +)* Send + Sync + 'static {}

        impl<T> Tools for T where T: #(#bounds +)* Send + Sync + 'static {}
    }
}

fn harness(model: &Model) -> TokenStream {
    let rt = rt();
    let arms: Vec<_> = model
        .tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            let name = &tool.name;
            let body = match tool.builtin {
                Some(Builtin::Health) => quote!(|_: #rt::NoArguments, _| #rt::builtins::health()),
                Some(Builtin::Ping) => quote!(|_: #rt::NoArguments, _| #rt::builtins::ping()),
                Some(Builtin::Diagnostics) => {
                    quote!(|_: #rt::NoArguments, _| #rt::builtins::diagnostics(&self.pipeline))
                }
                None => {
                    let trait_name = format_ident!("{}", tool.trait_name);
                    let method = to_ident(&tool.module);
                    let args = format_ident!("{}", tool.args_type);
                    quote!(|args: #args, ctx| #trait_name::#method(&*self.tools, args, ctx))
                }
            };
            quote! {
                #name => self.pipeline.run(#index, call, #body).await,
            }
        })
        .collect();
    let dispatch = if arms.is_empty() {
        quote! {
            let (name, call) = #rt::Call::split(request, context);
            Err(self.pipeline.unknown_tool(&name, call))
        }
    } else {
        quote! {
            let (name, call) = #rt::Call::split(request, context);
            let result = match name.as_ref() {
                #(#arms)*
                other => return Err(self.pipeline.unknown_tool(other, call)),
            };
            result.map(Into::into)
        }
    };
    quote! {
        /// The MCP server: dispatches `tools/call` to the tool bodies in `T`.
        pub struct Harness<T> {
            tools: Arc<T>,
            definitions: Arc<[#rt::rmcp::model::Tool]>,
            pipeline: Arc<#rt::Pipeline>,
        }

        impl<T> Clone for Harness<T> {
            fn clone(&self) -> Self {
                Self {
                    tools: Arc::clone(&self.tools),
                    definitions: Arc::clone(&self.definitions),
                    pipeline: Arc::clone(&self.pipeline),
                }
            }
        }

        impl<T: Tools> Harness<T> {
            /// A server whose tool bodies are `tools`.
            pub fn new(tools: T) -> Self {
                Self {
                    tools: Arc::new(tools),
                    definitions: TOOLS.iter().map(#rt::ToolSpec::to_tool).collect(),
                    pipeline: Arc::new(#rt::Pipeline::new(&SERVER, TOOLS)),
                }
            }

            /// The tool bodies.
            #[allow(dead_code, reason = "API for the binary, which may not need it")]
            pub fn tools(&self) -> &T {
                &self.tools
            }
        }

        impl<T: Tools> #rt::GeneratedServer for Harness<T> {
            fn spec(&self) -> &'static #rt::ServerSpec {
                &SERVER
            }

            fn tool_specs(&self) -> &'static [#rt::ToolSpec] {
                TOOLS
            }

            fn pipeline(&self) -> &#rt::Pipeline {
                &self.pipeline
            }

            fn bundle(&self) -> &'static #rt::BundleSpec {
                &BUNDLE
            }

            fn verifier(&self) -> &'static #rt::VerifierSpec {
                &VERIFIER
            }
        }

        impl<T: Tools> #rt::rmcp::ServerHandler for Harness<T> {
            fn get_info(&self) -> #rt::rmcp::model::ServerConfig {
                SERVER.server_info()
            }

            async fn list_tools(
                &self,
                _request: Option<#rt::rmcp::model::PaginatedRequestParams>,
                _context: #rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>,
            ) -> Result<#rt::rmcp::model::ListToolsResult, #rt::rmcp::model::ErrorData> {
                Ok(#rt::rmcp::model::ListToolsResult::with_all_items(
                    self.definitions.to_vec(),
                ))
            }

            async fn call_tool(
                &self,
                request: #rt::rmcp::model::CallToolRequestParams,
                context: #rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>,
            ) -> Result<#rt::rmcp::model::CallToolResponse, #rt::rmcp::model::ErrorData> {
                #dispatch
            }
        }
    }
}

fn tool_modules(model: &Model) -> TokenStream {
    let modules = model
        .tools
        .iter()
        .filter(|tool| tool.builtin.is_none())
        .map(|tool| to_ident(&tool.module));
    quote! {
        /// Declares one module per tool (`src/tools/<tool>.rs`); invoke it in `src/tools/mod.rs`.
        #[allow(unused_macros)]
        macro_rules! tool_modules {
            () => {
                #(pub mod #modules;)*
            };
        }
        #[allow(unused_imports)]
        pub(crate) use tool_modules;
    }
}
