//! The server: one body trait per tool, the `Tools` bound over all of them, the rmcp
//! `ServerHandler` that dispatches `tools/call` through the pipeline, and the macro that
//! declares the user's tool modules.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::rust::tokens::{doc, int, rt};
use crate::ident::to_ident;
use crate::model::{Builtin, Model, ToolModel};

pub(crate) fn body_trait(tool: &ToolModel, tools_dir: &str) -> TokenStream {
    let rt = rt();
    let trait_name = format_ident!("{}", tool.trait_name);
    let method = to_ident(&tool.module);
    let args = format_ident!("{}", tool.args_type);
    let file = format!("{tools_dir}/{}.rs", tool.module);
    let message = format!("tool `{}` has no body for `{{Self}}`", tool.name);
    let label = format!("`{}` is missing", tool.trait_name);
    let note = format!(
        "write `impl {} for {{Self}}` in {file}; `harness-codegen scaffold` creates a stub (`cargo run -p harness-codegen-cli -- scaffold` in the harness repository)",
        tool.trait_name
    );
    let trait_doc = doc(&format!(
        "The body of tool `{}`: implement it in `{file}`.\n\n{}",
        tool.name, tool.description
    ));
    let output = match &tool.results {
        Some(results) => {
            let result = format_ident!("{}", results.type_name);
            let output_doc = doc(&format!(
                "The result: `{}` (the declared results), or a type that converts into it.",
                results.type_name
            ));
            quote! {
                #output_doc
                type Output: Into<#result> + Send;
            }
        }
        None => quote! {
            /// The result: a serializable value; a JSON object becomes structuredContent.
            type Output: #rt::serde::Serialize + Send;
        },
    };
    quote! {
        #trait_doc
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #trait_name: Send + Sync + 'static {
            #output

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

pub(crate) fn tools_trait(model: &Model) -> TokenStream {
    let bounds: Vec<_> = model
        .tools
        .iter()
        .filter(|tool| tool.has_user_body())
        .map(|tool| format_ident!("{}", tool.trait_name))
        .chain(
            crate::emit::rust::catalog::body_traits(model)
                .iter()
                .map(|name| format_ident!("{}", name)),
        )
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

pub(crate) fn harness(model: &Model) -> TokenStream {
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
                None if let Some(binding) = &tool.upstream => {
                    crate::emit::rust::upstreams::upstream_body(model, tool, binding)
                }
                None => {
                    let trait_name = format_ident!("{}", tool.trait_name);
                    let method = to_ident(&tool.module);
                    let args = format_ident!("{}", tool.args_type);
                    // The declared result, whatever the body's `Output` converts from.
                    let into = tool.results.as_ref().map(|results| {
                        let result = format_ident!("{}", results.type_name);
                        quote!(.map(Into::<#result>::into))
                    });
                    match (&tool.task, into) {
                        // A task's body outlives the request: it owns its handle on the bodies.
                        (Some(_), into) => quote! {
                            {
                                let tools = Arc::clone(&self.tools);
                                move |args: #args, ctx| async move {
                                    #trait_name::#method(&*tools, args, ctx).await #into
                                }
                            }
                        },
                        (None, Some(into)) => quote! {
                            |args: #args, ctx| {
                                let body = #trait_name::#method(&*self.tools, args, ctx);
                                async move { body.await #into }
                            }
                        },
                        (None, None) => {
                            quote!(|args: #args, ctx| #trait_name::#method(&*self.tools, args, ctx))
                        }
                    }
                }
            };
            let index = int(index as u64);
            if tool.task.is_some() {
                return quote! {
                    #name => #rt::Pipeline::respond_task(&self.pipeline, #index, call, #body).await,
                };
            }
            quote! {
                #name => self.pipeline.respond(#index, call, #body).await,
            }
        })
        .collect();
    let dispatch = if arms.is_empty() {
        quote! {
            Err(self.pipeline.unknown_tool(name, call))
        }
    } else {
        quote! {
            match name {
                #(#arms)*
                other => Err(self.pipeline.unknown_tool(other, call)),
            }
        }
    };
    let catalog_methods = crate::emit::rust::catalog::handler_methods(model);
    let gateway = Gateway::of(model);
    let auth_accessor = crate::emit::rust::auth::auth_accessor(model);
    let Gateway {
        field,
        clone,
        init,
        accessor,
        visible,
        info,
        initialized,
    } = &gateway;
    let tasks = model.tools.iter().any(|tool| tool.task.is_some());
    // The tasks extension is advertised, and its methods answered, only where a tool has tasks.
    let info = if tasks {
        quote!(#rt::tasks::advertise(#info))
    } else {
        info.clone()
    };
    let task_methods = tasks.then(|| {
        let context = quote!(#rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>);
        let error = quote!(#rt::rmcp::model::ErrorData);
        quote! {
            async fn get_task(&self, request: #rt::rmcp::model::GetTaskParams, context: #context) -> Result<#rt::rmcp::model::GetTaskResult, #error> {
                self.pipeline.tasks().get(&request.task_id, &context).await
            }

            async fn update_task(&self, request: #rt::rmcp::model::UpdateTaskParams, context: #context) -> Result<(), #error> {
                self.pipeline.tasks().update(&request.task_id, request.input_responses, &context).await
            }

            async fn cancel_task(&self, request: #rt::rmcp::model::CancelTaskParams, context: #context) -> Result<(), #error> {
                self.pipeline.tasks().cancel(&request.task_id, &context).await
            }
        }
    });
    quote! {
        /// The MCP server: dispatches `tools/call` to the tool bodies in `T`.
        pub struct Harness<T> {
            tools: Arc<T>,
            definitions: Arc<[#rt::rmcp::model::Tool]>,
            pipeline: Arc<#rt::Pipeline>,
            log_level: #rt::SessionLogLevel,
            #field
        }

        impl<T> Clone for Harness<T> {
            fn clone(&self) -> Self {
                Self {
                    tools: Arc::clone(&self.tools),
                    definitions: Arc::clone(&self.definitions),
                    pipeline: Arc::clone(&self.pipeline),
                    log_level: self.log_level.clone(),
                    #clone
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
                    log_level: #rt::SessionLogLevel::default(),
                    #init
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

            fn tool_definitions(&self) -> &[#rt::rmcp::model::Tool] {
                &self.definitions
            }

            #accessor

            #auth_accessor

            async fn dispatch(
                &self,
                name: &str,
                call: #rt::Call,
            ) -> Result<#rt::rmcp::model::CallToolResponse, #rt::rmcp::model::ErrorData> {
                #dispatch
            }
        }

        impl<T: Tools> #rt::rmcp::ServerHandler for Harness<T> {
            fn get_info(&self) -> #rt::rmcp::model::ServerConfig {
                #info
            }

            #initialized

            async fn list_tools(
                &self,
                _request: Option<#rt::rmcp::model::PaginatedRequestParams>,
                _context: #rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>,
            ) -> Result<#rt::rmcp::model::ListToolsResult, #rt::rmcp::model::ErrorData> {
                #visible
            }

            async fn call_tool(
                &self,
                request: #rt::rmcp::model::CallToolRequestParams,
                context: #rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>,
            ) -> Result<#rt::rmcp::model::CallToolResponse, #rt::rmcp::model::ErrorData> {
                let (name, call) = #rt::Call::split(request, context, self.log_level.get());
                #rt::GeneratedServer::dispatch(self, &name, call).await
            }

            #[allow(deprecated, reason = "2025-11-25 clients set the level; rmcp marks MCP logging deprecated (SEP-2577)")]
            async fn set_level(
                &self,
                request: #rt::rmcp::model::SetLevelRequestParams,
                _context: #rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>,
            ) -> Result<(), #rt::rmcp::model::ErrorData> {
                self.log_level.set(request.level);
                Ok(())
            }

            #catalog_methods

            #task_methods
        }
    }
}

/// What a gateway (a manifest with `[[upstreams]]`) adds to the handler; empty otherwise, so
/// a server without upstreams is generated as before.
struct Gateway {
    field: TokenStream,
    clone: TokenStream,
    init: TokenStream,
    accessor: TokenStream,
    visible: TokenStream,
    info: TokenStream,
    initialized: TokenStream,
}

impl Gateway {
    fn of(model: &Model) -> Self {
        let rt = rt();
        if model.upstreams.is_empty() {
            return Self {
                field: TokenStream::new(),
                clone: TokenStream::new(),
                init: TokenStream::new(),
                accessor: TokenStream::new(),
                visible: quote!(Ok(self.pipeline.catalog().list_tools(&self.definitions))),
                info: quote!(SERVER.server_info()),
                initialized: TokenStream::new(),
            };
        }
        Self {
            field: quote!(upstreams: Arc<#rt::Upstreams>,),
            clone: quote!(upstreams: Arc::clone(&self.upstreams),),
            init: quote!(upstreams: Arc::new(#rt::Upstreams::new(UPSTREAMS)),),
            accessor: quote! {
                fn upstreams(&self) -> Option<Arc<#rt::Upstreams>> {
                    Some(Arc::clone(&self.upstreams))
                }
            },
            // A tool whose upstream drifted with `on_drift = "drop"` is not listed.
            visible: quote!(Ok(self
                .pipeline
                .catalog()
                .list_tools(&self.upstreams.visible(&self.definitions)))),
            // Where that can happen, the capability says so and each session is told.
            info: quote!(self.upstreams.advertise(SERVER.server_info())),
            initialized: quote! {
                async fn on_initialized(
                    &self,
                    context: #rt::rmcp::service::NotificationContext<#rt::rmcp::service::RoleServer>,
                ) {
                    self.upstreams.watch_list(context.peer);
                }
            },
        }
    }
}

pub(crate) fn tool_modules(model: &Model) -> TokenStream {
    let modules = model
        .tools
        .iter()
        .filter(|tool| tool.has_user_body())
        .map(|tool| to_ident(&tool.module));
    quote! {
        /// Declares one module per tool (`src/tools/<tool>.rs`); invoke it in `src/tools/mod.rs`.
        #[allow(unused_macros)]
        macro_rules! tool_modules {
            () => {
                #(pub(crate) mod #modules;)*
            };
        }
        #[allow(unused_imports)]
        pub(crate) use tool_modules;
    }
}
