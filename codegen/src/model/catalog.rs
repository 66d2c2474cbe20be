//! Resources, resource templates and prompts: names and URIs checked, files read once (their
//! content becomes part of the generated code, so a change is a snapshot diff), template
//! variables and prompt arguments resolved in the argument grammar, completions from enums.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use harness_contract::uri_template::{TemplateError, UriTemplate};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Manifest, Role};
use crate::manifest_path::ManifestPath;
use crate::model::arguments::fields;
use crate::model::guards::is_uri_scheme;
use crate::model::input_files::{read_bytes, read_text};
use crate::model::names::{TypeNames, rust_names};
use crate::model::types::{FieldModel, Presence, TypeModel};

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
}

/// A completion body: the arguments or variables it completes and its trait.
#[derive(Debug, Clone)]
pub struct CompletionModel {
    /// The names it completes, in manifest order.
    pub names: Vec<String>,
    /// The body trait.
    pub trait_name: String,
}

/// One prompt message's content.
#[derive(Debug, Clone)]
pub enum MessageModel {
    /// Text (inline or from a template file).
    Text(Role, String),
    /// An image: base64 and MIME type.
    Image(Role, String, String),
    /// An embedded text resource: URI, MIME type, text.
    Resource(Role, String, String, String),
}

/// One `[[prompts]]` entry.
#[derive(Debug, Clone)]
pub struct PromptModel {
    /// Name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// Description.
    pub description: String,
    /// The arguments struct.
    pub args_type: String,
    /// Its arguments.
    pub args: Vec<FieldModel>,
    /// Its messages (none when a body computes them).
    pub messages: Vec<MessageModel>,
    /// Body module (`snake_case`), for a body and a completion body.
    pub module: String,
    /// The body trait, when a body computes the messages.
    pub body_trait: Option<String>,
    /// The arguments a completion body completes, and that body's trait.
    pub completion: Option<CompletionModel>,
}

/// The completion values of each enum field, by name.
pub fn completions(fields: &[FieldModel]) -> Vec<(String, Vec<String>)> {
    fields
        .iter()
        .filter_map(|field| match &field.ty {
            TypeModel::Enum { variants, .. } => Some((
                field.name.clone(),
                variants.iter().map(|(value, _)| value.clone()).collect(),
            )),
            _ => None,
        })
        .collect()
}

/// The completion body of `complete` (names of `fields`), or `None` when the list is empty;
/// a name that is not a field, an enum field (it completes from its members) or a repeat is
/// a located error.
fn completion(
    complete: &[String],
    fields: &[FieldModel],
    trait_name: String,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<CompletionModel> {
    let mut names: Vec<String> = Vec::new();
    for (index, name) in complete.iter().enumerate() {
        let at = path.index(index);
        match fields.iter().find(|field| &field.name == name) {
            None => {
                let known: Vec<&str> = fields.iter().map(|field| field.name.as_str()).collect();
                errors.report(
                    Diagnostic::value(at, format!("`{name}` is not one of its arguments"))
                        .label("unknown")
                        .help(format!("complete names declared arguments: {known:?}")),
                );
            }
            Some(field) if matches!(field.ty, TypeModel::Enum { .. }) => errors.report(
                Diagnostic::value(at, format!("`{name}` is an enum"))
                    .label("already completed")
                    .help("an enum completes from its members; remove it from `complete`"),
            ),
            Some(_) if names.contains(name) => errors.report(
                Diagnostic::value(at, format!("`{name}` is listed twice"))
                    .label("repeated")
                    .help("list each name once"),
            ),
            Some(_) => names.push(name.clone()),
        }
    }
    (!complete.is_empty()).then_some(CompletionModel { names, trait_name })
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
        let content = match (&resource.text, &resource.file) {
            (Some(text), None) => Some(ContentModel::Text(text.clone())),
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
            self::prompt(
                prompt,
                &ManifestPath::root().key("prompts").index(index),
                base_dir,
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
        cache: (
            manifest.caching.ttl_ms,
            manifest.caching.scope == manifest::CacheScope::Public,
        ),
    }
}

/// Variables or arguments in the argument grammar, all required and of the scalar kinds
/// `allowed` names.
pub(crate) fn scalar_fields(
    arguments: &[manifest::Argument],
    path: &ManifestPath,
    prefix: Option<&str>,
    allowed: &[manifest::ArgType],
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<Vec<FieldModel>> {
    for (index, argument) in arguments.iter().enumerate() {
        if !allowed.contains(&argument.ty) {
            let names: Vec<String> = allowed.iter().map(ToString::to_string).collect();
            errors.report(
                Diagnostic::value(
                    path.index(index).key("type"),
                    format!("type {} is not allowed here", argument.ty),
                )
                .label("not a scalar this can carry")
                .help(format!("use one of: {}", names.join(", "))),
            );
        }
    }
    let fields = fields(arguments, path, prefix, type_names, errors)?;
    Some(fields)
}

fn template(
    template: &manifest::ResourceTemplate,
    path: &ManifestPath,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<TemplateModel> {
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
    type_names.claim(&trait_name, &template.name, &path.key("name"));
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

fn prompt(
    prompt: &manifest::Prompt,
    path: &ManifestPath,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<PromptModel> {
    use manifest::ArgType::{Enum, String};
    let names = rust_names(&prompt.name, &path.key("name"), errors);
    let args = scalar_fields(
        &prompt.arguments,
        &path.key("arguments"),
        names.as_ref().map(|(_, camel)| camel.as_str()),
        &[String, Enum],
        type_names,
        errors,
    );
    if prompt.body != prompt.messages.is_empty() {
        let message = if prompt.body {
            "a prompt has either `messages` or `body = true`, not both"
        } else {
            "a prompt needs `messages`, or `body = true` for messages a body computes"
        };
        errors.report(
            Diagnostic::key(path.clone(), message)
                .label("messages")
                .help("messages = [{ role = \"user\", text = \"Summarize {topic}.\" }], or body = true and the body in src/prompts/"),
        );
    }
    let mut messages = Vec::new();
    for (index, message) in prompt.messages.iter().enumerate() {
        let at = path.key("messages").index(index);
        let role = message.role;
        let given = [
            message.text.is_some(),
            message.template.is_some(),
            message.image.is_some(),
            message.resource.is_some(),
        ];
        if given.iter().filter(|given| **given).count() != 1 {
            errors.report(
                Diagnostic::key(
                    at.clone(),
                    "a message needs exactly one of `text`, `template`, `image` and `resource`",
                )
                .label("content")
                .help("for example text = \"Summarize {topic}.\""),
            );
            continue;
        }
        if let Some(text) = &message.text {
            messages.push(MessageModel::Text(role, text.clone()));
        } else if let Some(file) = &message.template {
            if let Some(text) = read_text(base_dir, file, &at.key("template"), inputs, errors) {
                messages.push(MessageModel::Text(role, text));
            }
        } else if let Some(image) = &message.image {
            if let Some(bytes) = read_bytes(
                base_dir,
                &image.file,
                &at.key("image").key("file"),
                inputs,
                errors,
            ) {
                messages.push(MessageModel::Image(
                    role,
                    base64::engine::general_purpose::STANDARD.encode(bytes),
                    image.mime_type.clone(),
                ));
            }
        } else if let Some(resource) = &message.resource {
            messages.push(MessageModel::Resource(
                role,
                resource.uri.clone(),
                resource.mime_type.clone(),
                resource.text.clone(),
            ));
        }
    }
    let args = args?;
    let (module, camel) = names?;
    let args_type = format!("{camel}PromptArgs");
    type_names.claim(&args_type, &prompt.name, &path.key("name"));
    let body_trait = prompt.body.then(|| format!("{camel}Prompt"));
    if let Some(body_trait) = &body_trait {
        type_names.claim(body_trait, &prompt.name, &path.key("name"));
    }
    let completion = completion(
        &prompt.complete,
        &args,
        format!("{camel}PromptCompletion"),
        &path.key("complete"),
        errors,
    );
    if let Some(completion) = &completion {
        type_names.claim(&completion.trait_name, &prompt.name, &path.key("name"));
    }
    Some(PromptModel {
        name: prompt.name.clone(),
        title: prompt.title.clone(),
        description: prompt.description.clone(),
        args_type,
        args,
        messages,
        module,
        body_trait,
        completion,
    })
}
