//! Resources, resource templates and prompts: names and URIs checked, files read once (their
//! content becomes part of the generated code, so a change is a snapshot diff), template
//! variables and prompt arguments resolved in the argument grammar, completions from enums.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use harness_contract::uri_template::{TemplateError, UriTemplate};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Manifest};
use crate::manifest_path::ManifestPath;
use crate::model::arguments::scalar_fields;
use crate::model::completion::{CompletionModel, completion};
use crate::model::guards::is_uri_scheme;
use crate::model::input_files::read_bytes;
use crate::model::names::{TypeNames, rust_names};
use crate::model::prompts::PromptModel;
use crate::model::types::{FieldModel, Presence};
use crate::model::upstreams::{Served, UpstreamBinding, bind};

/// Everything besides tools, validated.
#[derive(Debug, Clone, Default)]
pub struct CatalogModel {
    /// Static resources, in manifest order.
    pub resources: Vec<ResourceModel>,
    /// Resource templates, in manifest order.
    pub templates: Vec<TemplateModel>,
    /// Prompts, in manifest order.
    pub prompts: Vec<PromptModel>,
    /// Skills, in manifest order.
    pub skills: Vec<crate::model::skills::SkillModel>,
    /// Skills an upstream serves, in manifest order.
    pub upstream_skills: Vec<crate::model::upstream_skills::UpstreamSkillModel>,
    /// Caching hints: `(ttl_ms, public)`.
    pub cache: (u64, bool),
}

impl CatalogModel {
    /// The URI schemes of the manifest's resources and templates, sorted, each once.
    pub fn schemes(&self) -> Vec<String> {
        let uris = self.resources.iter().map(|r| r.uri.as_str());
        let templates = self.templates.iter().map(|t| t.uri_template.as_str());
        let mut schemes: Vec<String> = uris
            .chain(templates)
            .filter_map(|uri| {
                uri.split_once(':')
                    .map(|(scheme, _)| scheme.to_ascii_lowercase())
            })
            .collect();
        schemes.sort();
        schemes.dedup();
        schemes
    }
}

/// A static resource's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentModel {
    /// Text.
    Text(String),
    /// Bytes, as base64, and their length.
    Blob(String, u64),
    /// Read from the upstream that serves it, at every read.
    Upstream,
}

/// One `[[resources]]` entry.
#[derive(Debug, Clone)]
pub struct ResourceModel {
    /// URI.
    pub uri: String,
    /// Name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// MIME type.
    pub mime_type: String,
    /// Content.
    pub content: ContentModel,
    /// Subscribable.
    pub subscribe: bool,
    /// The upstream that serves it.
    pub upstream: Option<UpstreamBinding>,
}

/// One `[[resource_templates]]` entry.
#[derive(Debug, Clone)]
pub struct TemplateModel {
    /// The URI template.
    pub uri_template: String,
    /// Name.
    pub name: String,
    /// Body module (`snake_case`).
    pub module: String,
    /// Body trait name.
    pub trait_name: String,
    /// The variables struct.
    pub vars_type: String,
    /// Display name.
    pub title: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// MIME type.
    pub mime_type: String,
    /// Its variables, in manifest order.
    pub variables: Vec<FieldModel>,
    /// The variables a completion body completes, and that body's trait.
    pub completion: Option<CompletionModel>,
    /// The upstream that serves it (it then has no body: reads and completions go there).
    pub upstream: Option<UpstreamBinding>,
}

/// Whether a MIME type's content is text.
fn is_text_mime(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime == "application/json"
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
}

fn check_uri(uri: &str, path: &ManifestPath, errors: &ErrorSink<'_>) {
    let scheme_ok = uri
        .split_once(':')
        .is_some_and(|(scheme, _)| is_uri_scheme(&scheme.to_ascii_lowercase()));
    if !scheme_ok || uri.chars().any(char::is_whitespace) {
        errors.report(
            Diagnostic::value(path.clone(), format!("`{uri}` is not a URI"))
                .label("no scheme, or whitespace")
                .help("for example \"docs://runbook\" or \"file:///srv/report.md\""),
        );
    }
}

fn unique<'m>(
    seen: &mut BTreeMap<&'m str, ManifestPath>,
    key: &'m str,
    what: &str,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) {
    if let Some(first) = seen.insert(key, path.clone()) {
        errors.report(
            Diagnostic::value(path.clone(), format!("duplicate {what} `{key}`"))
                .label("already defined")
                .also_at(first, "first defined here")
                .help(format!("each {what} must be unique")),
        );
    }
}

/// Checks and resolves `[[resources]]`, `[[resource_templates]]`, `[[prompts]]` and
/// `[caching]`.
pub(crate) fn build(
    manifest: &Manifest,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> CatalogModel {
    let mut uris = BTreeMap::new();
    let mut resources = Vec::new();
    for (index, resource) in manifest.resources.iter().enumerate() {
        let path = ManifestPath::root().key("resources").index(index);
        check_uri(&resource.uri, &path.key("uri"), errors);
        unique(
            &mut uris,
            &resource.uri,
            "resource URI",
            &path.key("uri"),
            errors,
        );
        let upstream = bind(
            Served {
                what: "resource",
                upstream: resource.upstream.as_deref(),
                renamed: None,
                pin_sha256: resource.pin_sha256.as_deref(),
                local_name: &resource.uri,
            },
            &path,
            &manifest.upstreams,
            errors,
        );
        let content = match (&resource.text, &resource.file) {
            (None, None) if resource.upstream.is_some() => Some(ContentModel::Upstream),
            (Some(text), None) if resource.upstream.is_none() => Some(ContentModel::Text(text.clone())),
            (None, Some(file)) => read_bytes(base_dir, file, &path.key("file"), inputs, errors).and_then(|bytes| {
                if is_text_mime(&resource.mime_type) {
                    match String::from_utf8(bytes) {
                        Ok(text) => Some(ContentModel::Text(text)),
                        Err(_) => {
                            errors.report(Diagnostic::value(path.key("file"), format!("{file} is not UTF-8 text, but mime_type is {}", resource.mime_type)).label("not text").help("give the file's real MIME type, e.g. \"application/octet-stream\""));
                            None
                        }
                    }
                } else {
                    let length = bytes.len() as u64;
                    Some(ContentModel::Blob(base64::engine::general_purpose::STANDARD.encode(bytes), length))
                }
            }),
            _ if resource.upstream.is_some() => {
                errors.report(Diagnostic::key(path.clone(), "a resource an upstream serves has no `text` or `file`").label("content").help("each read goes to the upstream: remove `text` and `file`, or remove `upstream`"));
                None
            }
            _ => {
                errors.report(Diagnostic::key(path.clone(), "a resource needs exactly one of `text` and `file`").label("content").help("text = \"...\" for inline text, file = \"path\" for a file beside the manifest"));
                None
            }
        };
        if let Some(content) = content {
            resources.push(ResourceModel {
                uri: resource.uri.clone(),
                name: resource.name.clone(),
                title: resource.title.clone(),
                description: resource.description.clone(),
                mime_type: resource.mime_type.clone(),
                content,
                subscribe: resource.subscribe,
                upstream,
            });
        }
    }
    let templates = manifest
        .resource_templates
        .iter()
        .enumerate()
        .filter_map(|(index, template)| {
            self::template(
                template,
                &ManifestPath::root().key("resource_templates").index(index),
                &manifest.upstreams,
                type_names,
                errors,
            )
        })
        .collect();
    let prompts = manifest
        .prompts
        .iter()
        .enumerate()
        .filter_map(|(index, prompt)| {
            crate::model::prompts::prompt(
                prompt,
                &ManifestPath::root().key("prompts").index(index),
                base_dir,
                &manifest.upstreams,
                inputs,
                type_names,
                errors,
            )
        })
        .collect();
    let mut names = BTreeMap::new();
    for (index, prompt) in manifest.prompts.iter().enumerate() {
        unique(
            &mut names,
            &prompt.name,
            "prompt",
            &ManifestPath::root().key("prompts").index(index).key("name"),
            errors,
        );
    }
    let skills = crate::model::skills::build(&manifest.skills, base_dir, inputs, errors);
    let upstream_skills = crate::model::upstream_skills::build(
        &manifest.skills,
        &skills,
        &manifest.upstreams,
        errors,
    );
    for (index, resource) in manifest.resources.iter().enumerate() {
        if resource.uri.to_ascii_lowercase().starts_with("skill://") {
            errors.report(
                Diagnostic::value(
                    ManifestPath::root()
                        .key("resources")
                        .index(index)
                        .key("uri"),
                    "skill:// is the namespace of [[skills]]",
                )
                .label("a skill's files are listed with their digests, not as resources")
                .help("publish it as a [[skills]] entry, or use another scheme"),
            );
        }
    }
    CatalogModel {
        resources,
        templates,
        prompts,
        skills,
        upstream_skills,
        cache: (
            manifest.caching.ttl_ms,
            manifest.caching.scope == manifest::CacheScope::Public,
        ),
    }
}

fn template(
    template: &manifest::ResourceTemplate,
    path: &ManifestPath,
    upstreams: &[manifest::Upstream],
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<TemplateModel> {
    let upstream = bind(
        Served {
            what: "resource template",
            upstream: template.upstream.as_deref(),
            renamed: None,
            pin_sha256: template.pin_sha256.as_deref(),
            local_name: &template.uri_template,
        },
        path,
        upstreams,
        errors,
    );
    if template.upstream.is_some() && !template.complete.is_empty() {
        errors.report(
            Diagnostic::key(
                path.key("complete"),
                "`complete` on a template an upstream serves",
            )
            .label("the upstream completes its variables")
            .help("remove it: every variable that is not an enum is completed by the upstream"),
        );
    }
    use manifest::ArgType::{Boolean, Enum, Integer, Number, String};
    let names = rust_names(&template.name, &path.key("name"), errors);
    let variables = scalar_fields(
        &template.variables,
        &path.key("variables"),
        names.as_ref().map(|(_, camel)| camel.as_str()),
        &[String, Integer, Number, Boolean, Enum],
        type_names,
        errors,
    );
    let expressions =
        template_expressions(&template.uri_template, &path.key("uri_template"), errors)?;
    let variables = variables?;
    for field in &variables {
        if field.presence != Presence::Required {
            errors.report(
                Diagnostic::value(
                    path.key("variables"),
                    format!("template variable `{}` is optional", field.name),
                )
                .label("every variable is in the URI")
                .help("remove `default` and `required = false`"),
            );
        }
    }
    let declared: Vec<&str> = variables.iter().map(|field| field.name.as_str()).collect();
    if expressions != declared {
        errors.report(
            Diagnostic::value(path.key("uri_template"), format!("the template's variables are {expressions:?}, the declared ones {declared:?}"))
                .label("variables differ")
                .help("declare one [[resource_templates.variables]] per `{name}`, in the order they appear"),
        );
        return None;
    }
    let (module, camel) = names?;
    let vars_type = format!("{camel}Vars");
    let trait_name = format!("{camel}Template");
    type_names.claim(&vars_type, &template.name, &path.key("name"));
    if upstream.is_none() {
        type_names.claim(&trait_name, &template.name, &path.key("name"));
    }
    let completion = completion(
        &template.complete,
        &variables,
        format!("{camel}TemplateCompletion"),
        &path.key("complete"),
        errors,
    );
    if let Some(completion) = &completion {
        type_names.claim(&completion.trait_name, &template.name, &path.key("name"));
    }
    Some(TemplateModel {
        uri_template: template.uri_template.clone(),
        name: template.name.clone(),
        module,
        trait_name,
        vars_type,
        title: template.title.clone(),
        description: template.description.clone(),
        mime_type: template.mime_type.clone(),
        variables,
        completion,
        upstream,
    })
}

/// The variable names of a level-1 template, or why it is not one.
fn template_expressions<'t>(
    template: &'t str,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<Vec<&'t str>> {
    let parsed = match UriTemplate::parse(template) {
        Ok(parsed) => parsed,
        Err(error) => {
            let (label, help) = match error {
                TemplateError::Unclosed { .. } => ("no `}`", EXAMPLE),
                TemplateError::StrayClose { .. } => ("unbalanced", EXAMPLE),
                TemplateError::EmptyName { .. } | TemplateError::InvalidName { .. } => (
                    "not a name",
                    "a variable name has letters, digits and `_` only",
                ),
                TemplateError::Operator { .. }
                | TemplateError::Modifier { .. }
                | TemplateError::Adjacent { .. } => ("unsupported", LEVEL_1_ONLY),
            };
            errors.report(
                Diagnostic::value(path.clone(), format!("not a level-1 URI template: {error}"))
                    .label(label)
                    .help(help),
            );
            return None;
        }
    };
    check_uri(template, path, errors);
    Some(parsed.variables().collect())
}

const EXAMPLE: &str = "for example \"tickets://{id}/summary\"";
const LEVEL_1_ONLY: &str = "only `{name}` expressions (letters, digits, `_`) separated by literal text are supported: operators (+ # . / ; ? &), prefixes (:3) and explode (*) would make matching a URI ambiguous";
