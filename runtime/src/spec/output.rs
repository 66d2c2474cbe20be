//! A tool's declared result (`[[tools.results]]` in the manifest): the outputSchema
//! `tools/list` publishes and the generated strict validator the pipeline holds every
//! structuredContent to, after the guards.

use crate::validate::{ArgErrors, FromArguments, JsonObject};

/// The generated validator of a declared result: every way `object` breaks the result's
/// rules, or nothing.
pub type OutputValidator = fn(&JsonObject) -> Result<(), ArgErrors>;

/// A tool's declared result.
#[derive(Debug, Clone, Copy)]
pub struct OutputSpec {
    /// The published outputSchema (JSON Schema 2020-12), as JSON text.
    pub schema: &'static str,
    /// The generated strict validator of the result, built from the same model as `schema`.
    pub validate: OutputValidator,
}

/// The [`OutputValidator`] of the generated result type `R`.
pub fn validate_output<R: FromArguments>(object: &JsonObject) -> Result<(), ArgErrors> {
    R::from_call(Some(object)).map(drop)
}
