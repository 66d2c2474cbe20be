//! Declared results (`[[tools.results]]`): the fields of a tool's result, in the grammar of
//! its arguments (checked by the same `crate::model::arguments` code, so a result field
//! may be anything an argument may be), with what only a result forbids: a `default` (the
//! body sets every field it returns), results on a tool an upstream serves (its result is
//! the upstream's), and a tabular guard that summarizes (a summary replaces an array with an
//! object, which no declared array field accepts).

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Argument};
use crate::manifest_path::ManifestPath;
use crate::model::arguments::fields;
use crate::model::guards::GuardPolicy;
use crate::model::names::TypeNames;
use crate::model::types::FieldModel;
use harness_contract::TabularAction;

/// A tool's declared result: the Rust struct its body returns and the fields it has.
#[derive(Debug, Clone)]
pub struct ResultModel {
    /// Name of the generated result struct (`<Tool>Result`).
    pub type_name: String,
    /// The fields, in manifest order.
    pub fields: Vec<FieldModel>,
}

/// The declared result of `tool` (at `path`), `None` when it declares none or when a field
/// failed (reported). `camel` is the tool's UpperCamelCase name, `None` when the name failed
/// (the fields are still checked); `guards` is its resolved policy.
pub(crate) fn results(
    tool: &manifest::Tool,
    path: &ManifestPath,
    camel: Option<&str>,
    guards: Option<&GuardPolicy>,
    type_names: &mut TypeNames<'_>,
    errors: &ErrorSink<'_>,
) -> Option<ResultModel> {
    if tool.results.is_empty() {
        return None;
    }
    let list = path.key("results");
    let errors = errors.child();
    if tool.upstream.is_some() {
        errors.report(
            Diagnostic::key(
                list.clone(),
                "a tool an upstream serves cannot declare `results`",
            )
            .label("served by an upstream")
            .help("its result is the upstream's; remove `[[tools.results]]`"),
        );
    }
    if let Some(guards) = guards
        && let Some((_, TabularAction::Summarize)) = guards.tabular
    {
        errors.report(
            Diagnostic::key(
                list.clone(),
                "a tool with declared results cannot summarize tables",
            )
            .label("the summary would not fit the declared result")
            .help(
                "set `guards = { tabular = { max_rows = ..., action = \"block\" } }` on this tool",
            ),
        );
    }
    report_defaults(&tool.results, &list, &errors);
    // Defaults are reported above, once; the argument checks would report them again.
    let without_defaults = strip_defaults(&tool.results);
    let type_name = camel.map(|camel| format!("{camel}Result"));
    if let Some(type_name) = &type_name {
        type_names.claim(type_name, &tool.name, &list);
    }
    let fields = fields(
        &without_defaults,
        &list,
        type_name.as_deref(),
        type_names,
        &errors,
    );
    let (type_name, fields) = (type_name?, fields?);
    errors.unless_failed(ResultModel { type_name, fields })
}

/// Reports every `default` among `fields` and the fields of their objects.
fn report_defaults(fields: &[Argument], list: &ManifestPath, errors: &ErrorSink<'_>) {
    for (index, field) in fields.iter().enumerate() {
        let path = list.index(index);
        if field.default.is_some() {
            errors.report(
                Diagnostic::key(path.key("default"), "a result field cannot have a default")
                    .label("not for results")
                    .help("the body sets every field it returns; use `required = false` for one it may leave out"),
            );
        }
        if let Some(nested) = &field.fields {
            report_defaults(nested, &path.key("fields"), errors);
        }
    }
}

fn strip_defaults(fields: &[Argument]) -> Vec<Argument> {
    fields
        .iter()
        .map(|field| Argument {
            default: None,
            fields: field.fields.as_deref().map(strip_defaults),
            ..field.clone()
        })
        .collect()
}
