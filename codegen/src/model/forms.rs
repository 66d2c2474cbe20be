//! `[[tools.forms]]`: the forms a tool's body puts to the user through elicitation. Each is a
//! generated type with a strict validator, so an answer is client input checked exactly as
//! arguments are; its fields are flat scalars because elicitation allows nothing else.

use std::collections::BTreeMap;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::ident;
use crate::manifest::{self, ArgType};
use crate::manifest_path::ManifestPath;
use crate::model::arguments::scalar_fields;
use crate::model::names::TypeNames;
use crate::model::types::FieldModel;

/// One form of a tool.
#[derive(Debug, Clone)]
pub struct FormModel {
    /// Its key, unique within the tool.
    pub key: String,
    /// What the user is asked.
    pub message: String,
    /// The generated type (`<Tool><Key>Form`).
    pub type_name: String,
    /// Its fields, in manifest order.
    pub fields: Vec<FieldModel>,
}

/// The forms of the tool whose Rust name is `camel` (`None` when its name failed: the forms
/// are still checked); every error located.
pub(crate) fn forms(
    tool: &manifest::Tool,
    path: &ManifestPath,
    camel: Option<&str>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Vec<FormModel> {
    if tool.upstream.is_some() && !tool.forms.is_empty() {
        errors.report(
            Diagnostic::key(
                path.key("forms"),
                "an upstream tool has no body to ask with",
            )
            .label("forms of an upstream tool")
            .help("forms belong to tools with a body in src/tools/; remove them"),
        );
        return Vec::new();
    }
    let mut keys: BTreeMap<&str, ManifestPath> = BTreeMap::new();
    let mut models = Vec::new();
    for (index, form) in tool.forms.iter().enumerate() {
        let at = path.key("forms").index(index);
        let key_camel = match ident::snake(&form.key) {
            Ok(snake) if snake == form.key => ident::camel(&form.key).ok(),
            _ => None,
        };
        if key_camel.is_none() {
            errors.report(
                Diagnostic::value(
                    at.key("key"),
                    format!("`{}` is not a snake_case key", form.key),
                )
                .label("not snake_case")
                .help("for example key = \"approval\""),
            );
        }
        // A repeated key would also repeat the type; its fields are still checked.
        let repeated = keys.get(form.key.as_str()).cloned();
        if let Some(first) = &repeated {
            errors.report(
                Diagnostic::value(at.key("key"), format!("duplicate form `{}`", form.key))
                    .label("already defined")
                    .also_at(first.clone(), "first defined here")
                    .help("each form of a tool needs its own key"),
            );
        } else {
            keys.insert(&form.key, at.key("key"));
        }
        if form.message.trim().is_empty() {
            errors.report(
                Diagnostic::value(at.key("message"), "the form's message is empty")
                    .label("empty")
                    .help("say what the user is asked"),
            );
        }
        for (field_index, field) in form.fields.iter().enumerate() {
            if field.ty == ArgType::String && field.pattern.is_some() {
                errors.report(
                    Diagnostic::key(
                        at.key("fields").index(field_index).key("pattern"),
                        "a form field cannot carry a pattern",
                    )
                    .label("clients cannot show it")
                    .help("elicitation schemas have no pattern, so a user could not know why an answer is refused; use an enum or lengths"),
                );
            }
        }
        let type_name = camel
            .zip(key_camel)
            .filter(|_| repeated.is_none())
            .map(|(tool, key)| format!("{tool}{key}Form"));
        let fields = scalar_fields(
            &form.fields,
            &at.key("fields"),
            type_name.as_deref(),
            &[
                ArgType::String,
                ArgType::Integer,
                ArgType::Number,
                ArgType::Boolean,
                ArgType::Enum,
            ],
            type_names,
            errors,
        );
        if let (Some(type_name), Some(fields)) = (type_name, fields) {
            type_names.claim(&type_name, &tool.name, &at.key("key"));
            models.push(FormModel {
                key: form.key.clone(),
                message: form.message.clone(),
                type_name,
                fields,
            });
        }
    }
    models
}
