//! `resources/list`, `resources/templates/list`, `resources/read` and subscriptions: static
//! resources from the manifest, templates read by bodies, resources an upstream serves read
//! through the gateway, everything through the output guards, every read audited, an unknown
//! URI answered with the specification's not-found error carrying the URI.

use crate::catalog::part::Catalog;
use harness_contract::uri_template::match_uri;
use rmcp::model::{
    ContentBlock, ErrorData, ListResourceTemplatesResult, ListResourcesResult,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::auth::Caller;
use crate::catalog::record::{Began, Finished};
use crate::content::guard::{ContentRefusal, guard_blocks};
use crate::content::{Binary, Block};
use crate::context::CallContext;
use crate::error::ToolError;
use crate::pipeline::bounded::{AskedFor, BodyRun, body_error, run_bounded};
use crate::pipeline::refusal::Refusal;
use crate::skill_files::UpstreamSkills;
use crate::spec::catalog::{ResourceContent, TemplateSpec, VariableKind};
use crate::validate::{FromArguments, JsonObject};

const READ: &str = "resources/read";

/// What a template's body returns: the resource's text or bytes (its MIME type defaults to
/// the template's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// What a read's body returns, as the content blocks of the resource read.
pub trait ReadOutput {
    /// The blocks of `uri`, whose MIME type is `mime_type` unless the output says otherwise.
    fn into_blocks(self, uri: &str, mime_type: &str) -> Vec<Block>;
}

impl ReadOutput for ResourceBody {
    fn into_blocks(self, uri: &str, mime_type: &str) -> Vec<Block> {
        vec![match self {
            Self::Text(text) => Block::EmbeddedText {
                uri: uri.to_owned(),
                mime_type: Some(mime_type.to_owned()),
                text,
            },
            Self::Blob(bytes) => Block::EmbeddedBlob {
                uri: uri.to_owned(),
                mime_type: mime_type.to_owned(),
                data: Binary::Bytes(bytes),
            },
        }]
    }
}

/// Contents as they are, each naming its own URI and MIME type (an upstream's read).
impl ReadOutput for Vec<Block> {
    fn into_blocks(self, _uri: &str, _mime_type: &str) -> Vec<Block> {
        self
    }
}

/// A `resources/read` a body must answer: a URI a template matched, or a resource an upstream
/// serves. The generated dispatcher picks the body by [`BodyRead::index`] and hands the
/// read to [`Catalog::read_template`].
#[derive(Debug)]
pub struct BodyRead {
    index: usize,
    name: &'static str,
    mime_type: &'static str,
    uri: String,
    variables: JsonObject,
    began: Began,
    cancellation: CancellationToken,
}

impl BodyRead {
    /// The index of what matched: in the manifest's `[[resource_templates]]` for
    /// [`Resolved::Template`], in its `[[resources]]` for [`Resolved::Upstream`].
    pub fn index(&self) -> usize {
        self.index
    }
}

/// Where a `resources/read` goes.
#[derive(Debug)]
pub enum Resolved {
    /// Answered already: a static resource, or a refusal (audited).
    Done(Result<ReadResourceResult, ErrorData>),
    /// A template's body must read it.
    Template(BodyRead),
    /// A resource an upstream serves: the gateway must read it.
    Upstream(BodyRead),
}

/// The text of a URI variable as the JSON its declared kind says, for the strict validator;
/// text that does not parse stays a string, which the validator then refuses.
fn typed(value: String, kind: VariableKind) -> Value {
    let parsed = match kind {
        VariableKind::Text => None,
        VariableKind::Integer => value.parse::<i64>().ok().map(Value::from),
        VariableKind::Number => value
            .parse::<f64>()
            .ok()
            .filter(|number| number.is_finite())
            .map(Value::from),
        VariableKind::Boolean => match value.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
    };
    parsed.unwrap_or(Value::String(value))
}

impl Catalog<'_> {
    /// `resources/list`.
    pub fn list_resources(&self) -> ListResourcesResult {
        self.list_resources_with(&UpstreamSkills::default())
    }

    /// `resources/list` of a gateway: the upstreams' skills that `upstream` lists are among
    /// the skill files.
    pub fn list_resources_with(&self, upstream: &UpstreamSkills) -> ListResourcesResult {
        let catalog = &self.server().catalog;
        let resources = catalog
            .resources
            .iter()
            .map(|spec| {
                let mut resource =
                    Resource::new(spec.uri, spec.name).with_mime_type(spec.mime_type);
                if !matches!(spec.content, ResourceContent::Upstream) {
                    resource = resource.with_size(spec.size);
                }
                if let Some(title) = spec.title {
                    resource = resource.with_title(title);
                }
                if let Some(description) = spec.description {
                    resource = resource.with_description(description);
                }
                resource
            })
            .chain(self.skill_resources(upstream))
            .collect();
        ListResourcesResult::with_all_items(resources)
            .with_ttl_ms(catalog.cache.ttl_ms)
            .with_cache_scope(catalog.cache.scope())
    }

    /// `resources/templates/list`.
    pub fn list_resource_templates(&self) -> ListResourceTemplatesResult {
        let catalog = &self.server().catalog;
        let templates = catalog
            .templates
            .iter()
            .map(|spec: &TemplateSpec| {
                let mut template = ResourceTemplate::new(spec.uri_template, spec.name);
                template.title = spec.title.map(str::to_owned);
                template.description = spec.description.map(str::to_owned);
                template.mime_type = Some(spec.mime_type.to_owned());
                template
            })
            .collect();
        ListResourceTemplatesResult::with_all_items(templates)
            .with_ttl_ms(catalog.cache.ttl_ms)
            .with_cache_scope(catalog.cache.scope())
    }

    /// Resolves a `resources/read`: a static resource is answered here; a URI a template
    /// matches goes to its body; anything else is refused as not found. Audited unless a body
    /// must still run.
    pub fn resolve_resource(
        &self,
        request: &ReadResourceRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Resolved {
        self.resolve_resource_with(request, context, &UpstreamSkills::default())
    }

    /// [`Catalog::resolve_resource`] of a gateway, where `upstream` holds what it serves of
    /// its upstreams' skills.
    pub fn resolve_resource_with(
        &self,
        request: &ReadResourceRequestParams,
        context: &RequestContext<RoleServer>,
        upstream: &UpstreamSkills,
    ) -> Resolved {
        let traceparent = request
            .meta
            .as_ref()
            .and_then(|meta| meta.get_traceparent());
        let began = Began::now(traceparent, Caller::of_context(context));
        let uri = request.uri.as_str();
        let args = json!({ "uri": uri });
        let catalog = &self.server().catalog;
        if let Some((index, spec)) = catalog
            .resources
            .iter()
            .enumerate()
            .find(|(_, spec)| spec.uri == uri)
        {
            let block = match spec.content {
                ResourceContent::Upstream => {
                    return Resolved::Upstream(BodyRead {
                        index,
                        name: spec.name,
                        mime_type: spec.mime_type,
                        uri: uri.to_owned(),
                        variables: Map::new(),
                        began,
                        cancellation: context.ct.clone(),
                    });
                }
                ResourceContent::Text(text) => Block::EmbeddedText {
                    uri: uri.to_owned(),
                    mime_type: Some(spec.mime_type.to_owned()),
                    text: text.to_owned(),
                },
                ResourceContent::Blob(base64) => Block::EmbeddedBlob {
                    uri: uri.to_owned(),
                    mime_type: spec.mime_type.to_owned(),
                    data: Binary::Base64(base64.to_owned()),
                },
            };
            return Resolved::Done(self.guarded_read(vec![block], &args, &began));
        }
        for (index, template) in catalog.templates.iter().enumerate() {
            let Some(values) = match_uri(template.uri_template, uri) else {
                continue;
            };
            let variables: Map<String, Value> = values
                .into_iter()
                .map(|(name, value)| {
                    let kind = template
                        .variables
                        .iter()
                        .find(|(variable, _)| *variable == name)
                        .map_or(VariableKind::Text, |(_, kind)| *kind);
                    (name.to_owned(), typed(value, kind))
                })
                .collect();
            return Resolved::Template(BodyRead {
                index,
                name: template.name,
                mime_type: template.mime_type,
                uri: uri.to_owned(),
                variables,
                began,
                cancellation: context.ct.clone(),
            });
        }
        match self.read_skill_file(uri, upstream) {
            Some(Ok(read)) => {
                self.audit_request(READ, uri, &args, &began, &Finished::OK);
                return Resolved::Done(Ok(read));
            }
            Some(Err(refusal)) => {
                let refused = self.refuse(refusal, READ, uri, Some("uri"), &args, &began);
                return Resolved::Done(Err(refused));
            }
            None => {}
        }
        let refusal = Refusal::UnknownResource(uri.to_owned());
        Resolved::Done(Err(self.refuse(
            refusal,
            READ,
            uri,
            Some("uri"),
            &args,
            &began,
        )))
    }

    /// Runs a read's body (a template's, or the gateway's for an upstream resource):
    /// variables validated strictly into `V` first, then the body under the catalog's timeout
    /// with panics caught, then the output guards; audited whatever happens.
    pub async fn read_template<V, F, Fut, O>(
        &self,
        read: BodyRead,
        body: F,
    ) -> Result<ReadResourceResult, ErrorData>
    where
        V: FromArguments,
        F: FnOnce(V, String, CallContext) -> Fut,
        Fut: Future<Output = Result<O, ToolError>>,
        O: ReadOutput,
    {
        let BodyRead {
            index: _,
            name,
            mime_type,
            uri,
            variables,
            began,
            cancellation,
        } = read;
        let trace_id = began.trace_id.as_str();
        let args = json!({ "uri": uri });
        let refuse =
            |refusal: Refusal| Err(self.refuse(refusal, READ, &uri, Some("uri"), &args, &began));
        if let Err(refusal) = self.limit(READ, &began).await {
            return refuse(refusal);
        }
        let vars = match V::from_call(Some(&variables)) {
            Ok(vars) => vars,
            Err(errors) => return refuse(Refusal::InvalidArguments(errors)),
        };
        let guards = &self.server().catalog.guards;
        let context = CallContext::new(name, trace_id.to_owned(), cancellation.clone());
        let uri_for_body = uri.clone();
        let ended = run_bounded(
            async move { body(vars, uri_for_body, context).await },
            BodyRun {
                kind: "resource",
                name,
                guards,
                cancellation: &cancellation,
                trace_id,
            },
        )
        .await;
        let output = match ended {
            Err(refusal) => return refuse(refusal),
            Ok(Err(error)) => {
                self.audit_request(READ, &uri, &args, &began, &Finished::failed(&error));
                return Err(body_error(
                    &error,
                    guards,
                    trace_id,
                    AskedFor {
                        field: "uri",
                        value: &uri,
                    },
                    rmcp::model::ErrorCode::RESOURCE_NOT_FOUND,
                ));
            }
            Ok(Ok(output)) => output,
        };
        self.guarded_read(output.into_blocks(&uri, mime_type), &args, &began)
    }

    /// Resource contents through the output guards, audited.
    fn guarded_read(
        &self,
        blocks: Vec<Block>,
        args: &Value,
        began: &Began,
    ) -> Result<ReadResourceResult, ErrorData> {
        let trace_id = began.trace_id.as_str();
        let catalog = &self.server().catalog;
        let uri = args["uri"].as_str().unwrap_or_default();
        match guard_blocks(blocks, &catalog.guards) {
            Ok((blocks, _)) => {
                let contents = blocks
                    .into_iter()
                    .filter_map(|block| match block {
                        ContentBlock::Resource(embedded) => Some(embedded.resource),
                        _ => None,
                    })
                    .collect::<Vec<ResourceContents>>();
                self.audit_request(READ, uri, args, began, &Finished::OK);
                Ok(ReadResourceResult::new(contents)
                    .with_ttl_ms(catalog.cache.ttl_ms)
                    .with_cache_scope(catalog.cache.scope()))
            }
            Err(refusal) => {
                if let ContentRefusal::InvalidBase64(reason) = &refusal {
                    tracing::error!(trace_id, uri, %reason, "resource content carries base64 that does not decode");
                }
                let refusal = Refusal::Content(refusal);
                Err(self.refuse(refusal, READ, uri, Some("uri"), args, began))
            }
        }
    }
}
