//! Prompts: arguments in the argument grammar (strings and enums, strings on the wire),
//! messages from the manifest (files read once, so a change is a snapshot diff), computed by a
//! body, or got from the upstream that serves the prompt.

use std::path::{Path, PathBuf};

use base64::Engine;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Role};
use crate::manifest_path::ManifestPath;
use crate::model::arguments::scalar_fields;
use crate::model::completion::{CompletionModel, completion};
use crate::model::input_files::{read_bytes, read_text};
use crate::model::names::{TypeNames, rust_names};
use crate::model::types::FieldModel;
use crate::model::upstreams::{Served, UpstreamBinding, bind};

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
    /// The upstream that serves it (its messages and completions come from there).
    pub upstream: Option<UpstreamBinding>,
}

/// Checks and resolves one `[[prompts]]` entry: its arguments, and its messages from the
/// manifest, a body or the upstream that serves it (exactly one of them).
pub(crate) fn prompt(
    prompt: &manifest::Prompt,
    path: &ManifestPath,
    base_dir: &Path,
    upstreams: &[manifest::Upstream],
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
    let upstream = bind(
        Served {
            what: "prompt",
            upstream: prompt.upstream.as_deref(),
            renamed: Some(("upstream_prompt", prompt.upstream_prompt.as_deref())),
            pin_sha256: prompt.pin_sha256.as_deref(),
            local_name: &prompt.name,
        },
        path,
        upstreams,
        errors,
    );
    if prompt.upstream.is_some() {
        let local = [
            ("messages", !prompt.messages.is_empty()),
            ("body", prompt.body),
            ("complete", !prompt.complete.is_empty()),
        ];
        for (key, _) in local.into_iter().filter(|(_, set)| *set) {
            errors.report(
                Diagnostic::key(path.key(key), format!("`{key}` on a prompt an upstream serves"))
                    .label("the upstream renders it")
                    .help("its messages and completions come from the upstream: remove it, or remove `upstream`"),
            );
        }
    } else if prompt.body != prompt.messages.is_empty() {
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
        upstream,
    })
}
