//! Arguments checked by a pinned JSON Schema (2020-12) instead of a generated validator: for
//! an upstream tool whose schema the manifest's argument grammar cannot say. The generator
//! has already made the schema strict (no undeclared properties unless it says so); here it
//! is compiled once, and every violation becomes an argument error at its path.

use std::sync::OnceLock;

use serde_json::Value;

use crate::guards::strip::sanitize;
use crate::validate::errors::{ArgErrors, JsonObject};

/// Characters of one violation's description that reach the model.
const MAX_RULE_CHARS: usize = 200;

/// A pinned JSON Schema, compiled on first use.
pub struct PinnedSchema {
    text: &'static str,
    compiled: OnceLock<Result<jsonschema::Validator, String>>,
}

impl std::fmt::Debug for PinnedSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedSchema").finish_non_exhaustive()
    }
}

impl PinnedSchema {
    /// The schema whose JSON text is `text`.
    pub const fn new(text: &'static str) -> Self {
        Self {
            text,
            compiled: OnceLock::new(),
        }
    }

    fn compiled(&self) -> &Result<jsonschema::Validator, String> {
        self.compiled.get_or_init(|| {
            let schema: Value = serde_json::from_str(self.text).map_err(|e| e.to_string())?;
            jsonschema::draft202012::new(&schema).map_err(|e| e.to_string())
        })
    }

    /// Whether the schema compiles (checked before a server serves), and why not.
    pub fn check(&self) -> Result<(), String> {
        self.compiled().as_ref().map(|_| ()).map_err(Clone::clone)
    }

    /// Records every violation of `object` in `errors`; true when there was none.
    pub fn validate(&self, object: &JsonObject, errors: &mut ArgErrors) -> bool {
        let validator = match self.compiled() {
            Ok(validator) => validator,
            Err(reason) => {
                errors.push_at(
                    "arguments".to_owned(),
                    format!("the server's pinned schema does not compile ({reason})"),
                );
                return false;
            }
        };
        let instance = Value::Object(object.clone());
        let mut valid = true;
        for error in validator.iter_errors(&instance) {
            valid = false;
            let path = display_path(&instance, error.instance_path().as_str());
            let rule: String = sanitize(&error.to_string(), true)
                .chars()
                .take(MAX_RULE_CHARS)
                .collect();
            errors.push_at(path, rule);
        }
        valid
    }
}

/// A JSON pointer into `instance` as the validators write paths (`filter.tags[2]`).
fn display_path(instance: &Value, pointer: &str) -> String {
    let mut path = String::from("arguments");
    let mut at = Some(instance);
    let mut first = true;
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        match at {
            Some(Value::Array(items)) => {
                path.push_str(&format!("[{segment}]"));
                at = segment.parse::<usize>().ok().and_then(|i| items.get(i));
            }
            other => {
                let name: String = sanitize(&segment, true).chars().take(64).collect();
                if first {
                    path = name;
                } else {
                    path.push('.');
                    path.push_str(&name);
                }
                at = other.and_then(|value| value.get(&segment));
            }
        }
        first = false;
    }
    path
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    static SCHEMA: PinnedSchema = PinnedSchema::new(
        r#"{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"oneOf":[{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},"required":["old","new"],"unevaluatedProperties":false},{"type":"string"}]}}},"required":["path"],"unevaluatedProperties":false}"#,
    );

    fn violations(value: Value) -> Vec<String> {
        let mut errors = ArgErrors::default();
        let object = value.as_object().unwrap();
        let valid = SCHEMA.validate(object, &mut errors);
        assert_eq!(valid, errors.is_empty());
        errors.errors().iter().map(|e| e.path.clone()).collect()
    }

    #[test]
    fn a_valid_object_passes_and_each_violation_is_located() {
        assert!(
            violations(json!({"path": "a", "edits": [{"old": "x", "new": "y"}, "z"]})).is_empty()
        );
        assert_eq!(violations(json!({"path": 1})), ["path"]);
        assert_eq!(
            violations(json!({"path": "a", "extra": true})),
            ["arguments"]
        );
        assert_eq!(
            violations(json!({"path": "a", "edits": [{"old": "x"}]})),
            ["edits[0]"]
        );
        assert_eq!(violations(json!({})), ["arguments"]);
    }

    #[test]
    fn a_schema_that_does_not_compile_is_reported_not_panicked_on() {
        static BROKEN: PinnedSchema = PinnedSchema::new(r#"{"type": 12}"#);
        assert!(BROKEN.check().is_err());
        let mut errors = ArgErrors::default();
        assert!(!BROKEN.validate(&JsonObject::new(), &mut errors));
        assert!(errors.to_string().contains("does not compile"), "{errors}");
    }
}
