//! Completion of prompt arguments and template variables: an enum completes from its members,
//! and the names a completion body completes are checked against the fields they name.

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest_path::ManifestPath;
use crate::model::types::{FieldModel, TypeModel};

/// A completion body: the arguments or variables it completes and its trait.
#[derive(Debug, Clone)]
pub struct CompletionModel {
    /// The names it completes, in manifest order.
    pub names: Vec<String>,
    /// The body trait.
    pub trait_name: String,
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
pub(crate) fn completion(
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
