//! Names the manifest gives that become names elsewhere: Rust identifiers (with the one error
//! every unconvertible name gets), the registry of generated type names that catches two
//! definitions of one type, and environment variable names.

use std::collections::BTreeMap;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::ident::{self, IdentError};
use crate::manifest_path::ManifestPath;

/// Names the generated module defines or uses unqualified; a tool or type may not take them.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Harness",
    "Tools",
    "Arc",
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Eq",
    "Err",
    "Future",
    "Hash",
    "None",
    "Ok",
    "Option",
    "PartialEq",
    "Result",
    "Send",
    "Some",
    "String",
    "Sync",
    "Vec",
];

/// The snake_case and UpperCamelCase forms of `name`, or an error at `path`.
pub(crate) fn rust_names(
    name: &str,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) -> Option<(String, String)> {
    match ident::snake(name).and_then(|snake| Ok((snake, ident::camel(name)?))) {
        Ok(names) => Some(names),
        Err(error) => {
            report_ident_error(&error, name, path, errors);
            None
        }
    }
}

/// Reports that `name`, at `path`, cannot become a Rust identifier.
pub(crate) fn report_ident_error(
    error: &IdentError,
    name: &str,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) {
    errors.report(
        Diagnostic::value(path.clone(), error.describe(name))
            .label("cannot be a Rust identifier")
            .help("start with a letter and use ASCII letters, digits, `_` and `-`; avoid self, Self, super and crate"),
    );
}

/// The Rust type names the generated module defines, with what defined them. A collision is
/// reported to the registry's own sink: it fails the manifest, but not the type that claimed
/// the name, which is still checked through.
pub(crate) struct TypeNames<'store> {
    owners: BTreeMap<String, (String, Option<ManifestPath>)>,
    errors: ErrorSink<'store>,
}

impl<'store> TypeNames<'store> {
    /// A registry holding the reserved names, reporting into `errors`.
    pub(crate) fn new(errors: ErrorSink<'store>) -> Self {
        let owners = RESERVED_TYPE_NAMES
            .iter()
            .map(|name| ((*name).to_owned(), ("the generated code".to_owned(), None)))
            .collect();
        Self { owners, errors }
    }

    /// Records that `owner`, at `path`, defines the Rust type `type_name`; a second definition
    /// of one name is an error.
    pub(crate) fn claim(&mut self, type_name: &str, owner: &str, path: &ManifestPath) {
        let Some((previous, previous_path)) = self
            .owners
            .insert(type_name.to_owned(), (owner.to_owned(), Some(path.clone())))
        else {
            return;
        };
        let mut diagnostic = Diagnostic::value(
            path.clone(),
            format!("`{owner}` and {previous} both define the Rust type `{type_name}`"),
        )
        .label("collides after case conversion")
        .help("rename the tool or argument so the generated type names differ");
        if let Some(previous_path) = previous_path {
            diagnostic = diagnostic.also_at(previous_path, format!("defines `{type_name}` too"));
        }
        self.errors.report(diagnostic);
    }
}

/// A portable environment variable name: uppercase letters, digits and `_`, not starting
/// with a digit.
pub(crate) fn is_env_var_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}
