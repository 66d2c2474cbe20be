//! The end of a call whose tool declares its result (`[[tools.results]]`): once the other
//! guards ran, the char cap cuts only what the outputSchema lets be cut (or refuses with
//! `OutputTooLarge`), and the generated validator checks the result that would be sent; one
//! that does not fit is an `InternalError` envelope (audited `error`, its problems logged
//! under the trace id). What the model reads as text is the JSON of exactly the
//! structuredContent sent.
//!
//! Such a tool's error envelopes go as JSON text only: a client that validates any
//! structuredContent against the outputSchema, error or not (the TypeScript SDK does), would
//! otherwise reject the envelope and the model would never read it.

use rmcp::model::CallToolResponse;
use serde_json::{Value, json};

use crate::guards::redact::Redactions;
use crate::guards::schema_cap;
use crate::pipeline::outcome::Outcome;
use crate::pipeline::refusal::Refusal;
use crate::pipeline::result::{json_result, with_meta};
use crate::spec::{OutputSpec, OutputValidator, ToolSpec};

/// A tool's declared result as the pipeline uses it: the outputSchema, parsed once, and the
/// generated validator.
#[derive(Debug)]
pub(crate) struct Declared {
    schema: Value,
    validate: OutputValidator,
}

impl Declared {
    /// The declared result of a generated tool spec.
    ///
    /// # Panics
    /// If the schema is not JSON, which harness-codegen never emits.
    pub(crate) fn of(spec: &OutputSpec) -> Self {
        Self {
            schema: serde_json::from_str(spec.schema).expect("generated outputSchema is JSON"),
            validate: spec.validate,
        }
    }

    /// The reply for a result of tool `spec`, through its guards: capped within the schema,
    /// then checked against it.
    pub(crate) fn finish(
        &self,
        spec: &ToolSpec,
        mut value: Value,
        redacted: &Redactions,
        trace_id: &str,
        args: Value,
    ) -> Outcome {
        let (guards, tool) = (&spec.guards, spec.name);
        let refused = |refusal, args| Outcome::refused(refusal, Some(guards), trace_id, args);
        let cut = match guards.max_chars {
            Some(max) => match schema_cap::cap_declared(&mut value, &self.schema, max) {
                Ok(cut) => cut,
                Err(too_large) => return refused(Refusal::ResultTooLarge(too_large), args),
            },
            None => Default::default(),
        };
        let checked = match &value {
            Value::Object(object) => (self.validate)(object).map_err(|errors| errors.to_string()),
            _ => Err("the result is not a JSON object".to_owned()),
        };
        if let Err(problems) = checked {
            tracing::error!(
                trace_id,
                tool,
                problems,
                "tool result does not fit its declared results"
            );
            return refused(Refusal::ResultInvalid, args);
        }
        let truncated = (!cut.is_empty()).then(|| {
            json!({"original_chars": cut.original_chars, "strings_cut": cut.strings, "array_items_cut": 0})
        });
        let text = value.to_string();
        Outcome::ok(
            with_meta(json_result(value, text), truncated, redacted),
            args,
        )
    }
}

/// Drops the structuredContent of an error envelope, which stays whole as JSON text.
pub(crate) fn envelope_as_text(outcome: &mut Outcome) {
    if let Ok(CallToolResponse::Complete(result)) = &mut outcome.result
        && result.is_error == Some(true)
    {
        result.structured_content = None;
    }
}
