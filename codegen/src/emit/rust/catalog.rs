//! Resources, templates and prompts in the generated code: the catalog in `SERVER`, the
//! variables and arguments types with their strict validators, one body trait per template,
//! and the `ServerHandler` methods that hand each request to the runtime.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use harness_contract::PinKind;

use crate::emit::rust::guards::guard_spec;
use crate::emit::rust::tokens::{doc, int, opt_str, rt};
use crate::emit::rust::types::struct_with_validator;
use crate::emit::rust::upstreams::pin_of;
use crate::ident::to_ident;
use crate::manifest::Role;
use crate::model::completion::completions;
use crate::model::{
    ContentModel, FieldModel, MessageModel, Model, PromptModel, TemplateModel, TypeModel,
};

fn completion_tokens(fields: &[FieldModel]) -> TokenStream {
    let entries = completions(fields)
        .into_iter()
        .map(|(name, values)| quote!((#name, &[#(#values),*])));
    quote!(&[#(#entries),*])
}

fn role(role: Role) -> TokenStream {
    let rt = rt();
    match role {
        Role::User => quote!(#rt::RoleSpec::User),
        Role::Assistant => quote!(#rt::RoleSpec::Assistant),
    }
}

/// `catalog: CatalogSpec { .. }` of `SERVER`.
pub(crate) fn catalog_spec(model: &Model) -> TokenStream {
    let rt = rt();
    let catalog = &model.catalog;
    let resources = catalog.resources.iter().map(|resource| {
        let (uri, name, mime) = (&resource.uri, &resource.name, &resource.mime_type);
        let (title, description) = (opt_str(resource.title.as_ref()), opt_str(resource.description.as_ref()));
        let (content, size) = match &resource.content {
            ContentModel::Text(text) => (quote!(#rt::ResourceContent::Text(#text)), int(text.len() as u64)),
            ContentModel::Blob(base64, length) => (quote!(#rt::ResourceContent::Blob(#base64)), int(*length)),
            ContentModel::Upstream => (quote!(#rt::ResourceContent::Upstream), int(0u64)),
        };
        let subscribe = resource.subscribe;
        quote!(#rt::ResourceSpec { uri: #uri, name: #name, title: #title, description: #description, mime_type: #mime, content: #content, size: #size, subscribe: #subscribe })
    });
    let templates = catalog.templates.iter().map(|template| {
        let (uri_template, name, mime) = (&template.uri_template, &template.name, &template.mime_type);
        let (title, description) = (opt_str(template.title.as_ref()), opt_str(template.description.as_ref()));
        let variables = template.variables.iter().map(|field| {
            let name = &field.name;
            let kind = match field.ty {
                TypeModel::Integer { .. } => quote!(Integer),
                TypeModel::Number { .. } => quote!(Number),
                TypeModel::Boolean => quote!(Boolean),
                _ => quote!(Text),
            };
            quote!((#name, #rt::VariableKind::#kind))
        });
        let completions = completion_tokens(&template.variables);
        quote!(#rt::TemplateSpec { uri_template: #uri_template, name: #name, title: #title, description: #description, mime_type: #mime, variables: &[#(#variables),*], completions: #completions })
    });
    let prompts = catalog.prompts.iter().map(|prompt| {
        let (name, description) = (&prompt.name, &prompt.description);
        let title = opt_str(prompt.title.as_ref());
        let arguments = prompt.args.iter().map(|field| {
            let name = &field.name;
            let description = opt_str(field.description.as_ref());
            let required = field.presence == crate::model::Presence::Required;
            quote!((#name, #description, #required))
        });
        let completions = completion_tokens(&prompt.args);
        let args_type = format_ident!("{}", prompt.args_type);
        let messages = prompt.messages.iter().map(|message| match message {
            MessageModel::Text(speaker, text) => {
                let speaker = role(*speaker);
                quote!(#rt::MessageSpec::Text(#speaker, #text))
            }
            MessageModel::Image(speaker, base64, mime) => {
                let speaker = role(*speaker);
                quote!(#rt::MessageSpec::Image(#speaker, #base64, #mime))
            }
            MessageModel::Resource(speaker, uri, mime, text) => {
                let speaker = role(*speaker);
                quote!(#rt::MessageSpec::Resource(#speaker, #uri, #mime, #text))
            }
        });
        let computed = prompt.body_trait.is_some() || prompt.upstream.is_some();
        quote!(#rt::PromptSpec { name: #name, title: #title, description: #description, arguments: &[#(#arguments),*], completions: #completions, validate: #rt::validate_prompt::<#args_type>, messages: &[#(#messages),*], computed: #computed })
    });
    let skills = catalog.skills.iter().map(|skill| {
        let (name, description) = (&skill.name, &skill.description);
        let frontmatter = serde_json::Value::Object(skill.frontmatter.clone()).to_string();
        let files = skill.files.iter().map(|file| {
            let (uri, mime, text, digest) = (skill.uri_of(file), file.mime_type, &file.text, file.digest());
            let size = int(file.text.len() as u64);
            quote!(#rt::SkillFileSpec { uri: #uri, mime_type: #mime, text: #text, size: #size, digest: #digest })
        });
        quote!(#rt::SkillSpec { name: #name, description: #description, frontmatter: #frontmatter, files: &[#(#files),*] })
    });
    let guards = guard_spec(&model.catalog_guards);
    let (ttl_ms, public) = (int(catalog.cache.0), catalog.cache.1);
    quote! {
        #rt::CatalogSpec {
            resources: &[#(#resources),*],
            templates: &[#(#templates),*],
            prompts: &[#(#prompts),*],
            skills: &[#(#skills),*],
            guards: #guards,
            cache: #rt::CacheSpec { ttl_ms: #ttl_ms, public: #public },
        }
    }
}

/// The variables and arguments types.
pub(crate) fn catalog_types(model: &Model) -> TokenStream {
    let templates = model.catalog.templates.iter().map(|template| {
        let name = format_ident!("{}", template.vars_type);
        struct_with_validator(
            &name,
            &format!(
                "Validated variables of resource template `{}`.",
                template.name
            ),
            &template.variables,
        )
    });
    let prompts = model.catalog.prompts.iter().map(|prompt| {
        let name = format_ident!("{}", prompt.args_type);
        struct_with_validator(
            &name,
            &format!("Validated arguments of prompt `{}`.", prompt.name),
            &prompt.args,
        )
    });
    quote!(#(#templates)* #(#prompts)*)
}

/// The body trait of a resource template (none for one an upstream serves).
pub(crate) fn template_trait(template: &TemplateModel) -> Option<TokenStream> {
    if template.upstream.is_some() {
        return None;
    }
    let rt = rt();
    let trait_name = format_ident!("{}", template.trait_name);
    let method = to_ident(&template.module);
    let vars = format_ident!("{}", template.vars_type);
    let file = format!("src/resources/{}.rs", template.module);
    let message = format!(
        "resource template `{}` has no body for `{{Self}}`",
        template.name
    );
    let label = format!("`{}` is missing", template.trait_name);
    let note = format!(
        "write `impl {} for {{Self}}` (for example in {file})",
        template.trait_name
    );
    let trait_doc = doc(&format!(
        "The body of resource template `{}` (`{}`).",
        template.name, template.uri_template
    ));
    Some(quote! {
        #trait_doc
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #trait_name: Send + Sync + 'static {
            /// Reads the resource `uri`, whose variables are already validated.
            fn #method(
                &self,
                vars: #vars,
                uri: String,
                ctx: #rt::CallContext,
            ) -> impl ::core::future::Future<Output = Result<#rt::ResourceBody, #rt::ToolError>> + Send;
        }
    })
}

/// The body trait of a prompt whose messages a body computes.
pub(crate) fn prompt_trait(prompt: &PromptModel) -> Option<TokenStream> {
    let rt = rt();
    let trait_name = prompt.body_trait.as_ref()?;
    let trait_ident = format_ident!("{}", trait_name);
    let method = to_ident(&prompt.module);
    let args = format_ident!("{}", prompt.args_type);
    let file = format!("src/prompts/{}.rs", prompt.module);
    let message = format!("prompt `{}` has no body for `{{Self}}`", prompt.name);
    let label = format!("`{trait_name}` is missing");
    let note = format!("write `impl {trait_name} for {{Self}}` (for example in {file})");
    let trait_doc = doc(&format!("The body of prompt `{}`.", prompt.name));
    Some(quote! {
        #trait_doc
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #trait_ident: Send + Sync + 'static {
            /// The prompt's messages for these validated arguments; `ctx` can ask the client
            /// for input first.
            fn #method(
                &self,
                args: #args,
                ctx: #rt::CallContext,
            ) -> impl ::core::future::Future<Output = Result<#rt::PromptMessages, #rt::ToolError>> + Send;
        }
    })
}

/// The completion body traits of prompts and templates that list arguments in `complete`.
pub(crate) fn completion_traits(model: &Model) -> TokenStream {
    let rt = rt();
    let prompts = model.catalog.prompts.iter().filter_map(|prompt| {
        let completion = prompt.completion.as_ref()?;
        Some((
            completion,
            &prompt.module,
            format!("prompt `{}`", prompt.name),
            format!("src/prompts/{}.rs", prompt.module),
        ))
    });
    let templates = model.catalog.templates.iter().filter_map(|template| {
        let completion = template.completion.as_ref()?;
        Some((
            completion,
            &template.module,
            format!("resource template `{}`", template.name),
            format!("src/resources/{}.rs", template.module),
        ))
    });
    let traits = prompts.chain(templates).map(|(completion, module, what, file)| {
        let trait_name = &completion.trait_name;
        let trait_ident = format_ident!("{}", trait_name);
        let method = format_ident!("complete_{}", module);
        let message = format!("{what} has no completion body for `{{Self}}`");
        let label = format!("`{trait_name}` is missing");
        let note = format!("write `impl {trait_name} for {{Self}}` (for example in {file})");
        let names = completion.names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
        let trait_doc = doc(&format!("Completions of {names} of {what}."));
        quote! {
            #trait_doc
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
            pub trait #trait_ident: Send + Sync + 'static {
                /// Suggested values for `argument` that go with what the client typed
                /// (`value`); the harness strips, redacts and caps them.
                fn #method(
                    &self,
                    argument: String,
                    value: String,
                    ctx: #rt::CallContext,
                ) -> impl ::core::future::Future<Output = Result<Vec<String>, #rt::ToolError>> + Send;
            }
        }
    });
    quote!(#(#traits)*)
}

/// The traits of every catalog body, for the `Tools` bound.
pub(crate) fn body_traits(model: &Model) -> Vec<String> {
    let catalog = &model.catalog;
    let templates = catalog.templates.iter().flat_map(|template| {
        let body = template
            .upstream
            .is_none()
            .then(|| template.trait_name.clone());
        body.into_iter().chain(
            template
                .completion
                .iter()
                .map(|completion| completion.trait_name.clone()),
        )
    });
    let prompts = catalog.prompts.iter().flat_map(|prompt| {
        prompt.body_trait.iter().cloned().chain(
            prompt
                .completion
                .iter()
                .map(|completion| completion.trait_name.clone()),
        )
    });
    templates.chain(prompts).collect()
}

/// The `ServerHandler` methods for what the manifest has: resources (and subscriptions),
/// prompts, completion.
pub(crate) fn handler_methods(model: &Model) -> TokenStream {
    let rt = rt();
    let catalog = &model.catalog;
    let context = quote!(#rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>);
    let error = quote!(#rt::rmcp::model::ErrorData);
    let mut methods = Vec::new();
    // An upstream's skills are served from what the gateway kept of them, beside the
    // manifest's own: every skill request hands the catalog that view.
    let upstream_skills = !catalog.upstream_skills.is_empty();
    let (suffix, kept, kept_only) = if upstream_skills {
        let kept = quote!(&self.upstreams.skills());
        ("_with", quote!(, #kept), kept)
    } else {
        ("", TokenStream::new(), TokenStream::new())
    };
    let resolve = format_ident!("resolve_resource{suffix}");
    let list_resources = format_ident!("list_resources{suffix}");
    let list_skills = format_ident!("list_skills{suffix}");
    let get_skill = format_ident!("get_skill{suffix}");
    let read_directory = format_ident!("read_skill_directory{suffix}");
    let has_skills = !catalog.skills.is_empty() || upstream_skills;
    if !catalog.resources.is_empty() || !catalog.templates.is_empty() || has_skills {
        let template_arms = catalog.templates.iter().enumerate().map(|(index, template)| {
            let index = int(index as u64);
            let vars = format_ident!("{}", template.vars_type);
            if let Some(binding) = &template.upstream {
                let (upstream, pin) = pin_of(model, PinKind::ResourceTemplate, &template.uri_template, binding);
                return quote!(#index => self.pipeline.catalog().read_template(read, |_vars: #vars, uri, ctx| self.upstreams.read_resource(#upstream, #pin, uri, ctx)).await,);
            }
            let trait_name = format_ident!("{}", template.trait_name);
            let method = to_ident(&template.module);
            quote!(#index => self.pipeline.catalog().read_template(read, |vars: #vars, uri, ctx| #trait_name::#method(&*self.tools, vars, uri, ctx)).await,)
        });
        let upstream_arms: Vec<_> = catalog
            .resources
            .iter()
            .enumerate()
            .filter_map(|(index, resource)| {
                let (upstream, pin) = pin_of(model, PinKind::Resource, &resource.uri, resource.upstream.as_ref()?);
                let index = int(index as u64);
                Some(quote!(#index => self.pipeline.catalog().read_template(read, |_vars: #rt::NoArguments, uri, ctx| self.upstreams.read_resource(#upstream, #pin, uri, ctx)).await,))
            })
            .collect();
        let templated = if catalog.templates.is_empty() {
            quote!(#rt::Resolved::Template(_) => unreachable!("the manifest has no templates"),)
        } else {
            quote! {
                #rt::Resolved::Template(read) => match read.index() {
                    #(#template_arms)*
                    _ => unreachable!("templates are matched by index"),
                },
            }
        };
        let upstreamed = if upstream_arms.is_empty() {
            quote!(#rt::Resolved::Upstream(_) => unreachable!("no resource of the manifest is an upstream's"),)
        } else {
            quote! {
                #rt::Resolved::Upstream(read) => match read.index() {
                    #(#upstream_arms)*
                    _ => unreachable!("upstream resources are matched by index"),
                },
            }
        };
        let read = quote! {
            let result = match self.pipeline.catalog().#resolve(&request, &context #kept) {
                #rt::Resolved::Done(result) => result,
                #templated
                #upstreamed
            };
            result.map(Into::into)
        };
        let listed_resources = visible(
            model,
            catalog
                .resources
                .iter()
                .any(|resource| resource.upstream.is_some()),
            quote!(visible_resources),
            quote!(self.pipeline.catalog().#list_resources(#kept_only)),
        );
        let listed_templates = visible(
            model,
            catalog
                .templates
                .iter()
                .any(|template| template.upstream.is_some()),
            quote!(visible_templates),
            quote!(self.pipeline.catalog().list_resource_templates()),
        );
        methods.push(quote! {
            async fn list_resources(&self, _request: Option<#rt::rmcp::model::PaginatedRequestParams>, _context: #context) -> Result<#rt::rmcp::model::ListResourcesResult, #error> {
                Ok(#listed_resources)
            }

            async fn list_resource_templates(&self, _request: Option<#rt::rmcp::model::PaginatedRequestParams>, _context: #context) -> Result<#rt::rmcp::model::ListResourceTemplatesResult, #error> {
                Ok(#listed_templates)
            }

            async fn read_resource(&self, request: #rt::rmcp::model::ReadResourceRequestParams, context: #context) -> Result<#rt::rmcp::model::ReadResourceResponse, #error> {
                #read
            }
        });
    }
    if has_skills {
        methods.push(quote! {
            async fn list_skills(&self, _request: Option<#rt::rmcp::model::PaginatedRequestParams>, _context: #context) -> Result<#rt::rmcp::model::ListSkillsResult, #error> {
                Ok(self.pipeline.catalog().#list_skills(#kept_only))
            }

            async fn get_skill(&self, request: #rt::rmcp::model::GetSkillRequestParams, _context: #context) -> Result<#rt::rmcp::model::GetSkillResult, #error> {
                self.pipeline.catalog().#get_skill(&request.uri #kept)
            }

            async fn read_resource_directory(&self, request: #rt::rmcp::model::ReadResourceDirectoryRequestParams, _context: #context) -> Result<#rt::rmcp::model::ReadResourceDirectoryResult, #error> {
                self.pipeline.catalog().#read_directory(&request.uri #kept)
            }
        });
    }
    if catalog.resources.iter().any(|resource| resource.subscribe) {
        methods.push(quote! {
            #[allow(deprecated, reason = "2025-11-25 clients subscribe; 2026-07-28 clients listen (subscriptions/listen, below)")]
            async fn subscribe(&self, request: #rt::rmcp::model::SubscribeRequestParams, context: #context) -> Result<(), #error> {
                self.pipeline.subscriptions().subscribe(&request.uri, context.peer)
            }

            #[allow(deprecated, reason = "2025-11-25 clients subscribe; 2026-07-28 clients listen (subscriptions/listen, below)")]
            async fn unsubscribe(&self, request: #rt::rmcp::model::UnsubscribeRequestParams, context: #context) -> Result<(), #error> {
                self.pipeline.subscriptions().unsubscribe(&request.uri, &context.peer)
            }

            fn accepted_subscription_filter(&self, requested: &#rt::rmcp::model::SubscriptionFilter) -> Option<#rt::rmcp::model::SubscriptionFilter> {
                Some(self.pipeline.subscriptions().accepted_subscriptions(requested))
            }

            async fn listen(&self, subscription: #rt::rmcp::service::SubscriptionContext) -> Result<(), #error> {
                self.pipeline.subscriptions().listen(subscription).await
            }
        });
    }
    if !catalog.prompts.is_empty() {
        let computed: Vec<_> = catalog
            .prompts
            .iter()
            .filter_map(|prompt| {
                let name = &prompt.name;
                let args = format_ident!("{}", prompt.args_type);
                if let Some(binding) = &prompt.upstream {
                    let (upstream, pin) = pin_of(model, PinKind::Prompt, name, binding);
                    return Some(quote!(#name => self.pipeline.catalog().get_computed_prompt(request, context, |args: #args, ctx| self.upstreams.get_prompt(#upstream, #pin, args, ctx)).await,));
                }
                let trait_name = format_ident!("{}", prompt.body_trait.as_ref()?);
                let method = to_ident(&prompt.module);
                Some(quote!(#name => self.pipeline.catalog().get_computed_prompt(request, context, |args: #args, ctx| #trait_name::#method(&*self.tools, args, ctx)).await,))
            })
            .collect();
        let get = if computed.is_empty() {
            quote!(
                self.pipeline
                    .catalog()
                    .get_prompt(&request, &context)
                    .map(Into::into)
            )
        } else {
            quote! {
                match request.name.as_str() {
                    #(#computed)*
                    _ => self.pipeline.catalog().get_prompt(&request, &context).map(Into::into),
                }
            }
        };
        let listed_prompts = visible(
            model,
            catalog
                .prompts
                .iter()
                .any(|prompt| prompt.upstream.is_some()),
            quote!(visible_prompts),
            quote!(self.pipeline.catalog().list_prompts()),
        );
        methods.push(quote! {
            async fn list_prompts(&self, _request: Option<#rt::rmcp::model::PaginatedRequestParams>, _context: #context) -> Result<#rt::rmcp::model::ListPromptsResult, #error> {
                Ok(#listed_prompts)
            }

            async fn get_prompt(&self, request: #rt::rmcp::model::GetPromptRequestParams, context: #context) -> Result<#rt::rmcp::model::GetPromptResponse, #error> {
                #get
            }
        });
    }
    if !catalog.prompts.is_empty() || !catalog.templates.is_empty() {
        methods.push(complete_method(model));
    }
    quote!(#(#methods)*)
}

/// `completion/complete`: the arguments a completion body completes go to it, the rest to
/// the enum members.
fn complete_method(model: &Model) -> TokenStream {
    let rt = rt();
    let context = quote!(#rt::rmcp::service::RequestContext<#rt::rmcp::service::RoleServer>);
    let error = quote!(#rt::rmcp::model::ErrorData);
    let prompts = model.catalog.prompts.iter().filter_map(|prompt| {
        let completion = prompt.completion.as_ref()?;
        let (name, names) = (&prompt.name, &completion.names);
        let trait_name = format_ident!("{}", completion.trait_name);
        let method = format_ident!("complete_{}", prompt.module);
        Some(quote! {
            (#rt::rmcp::model::Reference::Prompt(reference), #(#names)|*) if reference.name == #name => {
                self.pipeline.catalog().complete_with(&request, &context, |argument, value, ctx| #trait_name::#method(&*self.tools, argument, value, ctx)).await
            }
        })
    });
    let templates = model.catalog.templates.iter().filter_map(|template| {
        let completion = template.completion.as_ref()?;
        let (uri_template, names) = (&template.uri_template, &completion.names);
        let trait_name = format_ident!("{}", completion.trait_name);
        let method = format_ident!("complete_{}", template.module);
        Some(quote! {
            (#rt::rmcp::model::Reference::Resource(reference), #(#names)|*) if reference.uri == #uri_template => {
                self.pipeline.catalog().complete_with(&request, &context, |argument, value, ctx| #trait_name::#method(&*self.tools, argument, value, ctx)).await
            }
        })
    });
    let upstream_prompts = model.catalog.prompts.iter().filter_map(|prompt| {
        let binding = prompt.upstream.as_ref()?;
        let names = upstream_completed(&prompt.args)?;
        let name = &prompt.name;
        let (upstream, pin) = pin_of(model, PinKind::Prompt, name, binding);
        Some(quote! {
            (#rt::rmcp::model::Reference::Prompt(reference), #(#names)|*) if reference.name == #name => {
                self.pipeline.catalog().complete_with(&request, &context, |argument, value, ctx| self.upstreams.complete(#upstream, #pin, argument, value, ctx)).await
            }
        })
    });
    let upstream_templates = model.catalog.templates.iter().filter_map(|template| {
        let binding = template.upstream.as_ref()?;
        let names = upstream_completed(&template.variables)?;
        let uri_template = &template.uri_template;
        let (upstream, pin) = pin_of(model, PinKind::ResourceTemplate, uri_template, binding);
        Some(quote! {
            (#rt::rmcp::model::Reference::Resource(reference), #(#names)|*) if reference.uri == #uri_template => {
                self.pipeline.catalog().complete_with(&request, &context, |argument, value, ctx| self.upstreams.complete(#upstream, #pin, argument, value, ctx)).await
            }
        })
    });
    let arms: Vec<_> = prompts
        .chain(templates)
        .chain(upstream_prompts)
        .chain(upstream_templates)
        .collect();
    if arms.is_empty() {
        return quote! {
            async fn complete(&self, request: #rt::rmcp::model::CompleteRequestParams, context: #context) -> Result<#rt::rmcp::model::CompleteResult, #error> {
                self.pipeline.catalog().complete(&request, &context)
            }
        };
    }
    quote! {
        async fn complete(&self, request: #rt::rmcp::model::CompleteRequestParams, context: #context) -> Result<#rt::rmcp::model::CompleteResult, #error> {
            match (&request.r#ref, request.argument.name.as_str()) {
                #(#arms)*
                _ => self.pipeline.catalog().complete(&request, &context),
            }
        }
    }
}

/// The names of `fields` an upstream completes: all but enums, which complete from their
/// members here (the manifest may have narrowed them); `None` when that leaves none.
fn upstream_completed(fields: &[FieldModel]) -> Option<Vec<&str>> {
    let names: Vec<&str> = fields
        .iter()
        .filter(|field| !matches!(field.ty, TypeModel::Enum { .. }))
        .map(|field| field.name.as_str())
        .collect();
    (!names.is_empty()).then_some(names)
}

/// `list` (a catalog list), without what an upstream drifted on (`upstreams.#filter`) where
/// the manifest binds some of its entries to an upstream.
fn visible(model: &Model, bound: bool, filter: TokenStream, list: TokenStream) -> TokenStream {
    if bound && !model.upstreams.is_empty() {
        quote!(self.upstreams.#filter(#list))
    } else {
        list
    }
}
