//! The generated validator of the fixture with every argument type: it never panics, and it
//! accepts exactly what the `jsonschema` crate accepts under the published inputSchema, but
//! for the one documented exception (a whole number written as 42.0 is an integer to JSON
//! Schema, not to strict typing): rewriting such numbers as integers must make it accept.

#![no_main]

use std::sync::LazyLock;

use harness_fixtures::all_types;
use harness_runtime::validate::{FromArguments, JsonObject};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

static SCHEMA: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(all_types::TOOLS[0].input_schema).expect("schema");
    jsonschema::draft202012::new(&schema).expect("a valid schema")
});

/// `value` with every whole float (42.0) written as an integer.
fn integral(value: &Value) -> Value {
    match value {
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().expect("f64");
            // Every whole float in i64's range (2^63 itself excluded) converts exactly, however
            // many digits its text had (3.3e16 written with a fraction is whole once read as an
            // f64, as JSON Schema reads it).
            if float.fract() == 0.0 && (i64::MIN as f64..i64::MAX as f64).contains(&float) {
                Value::from(float as i64)
            } else {
                value.clone()
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(integral).collect()),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, item)| (key.clone(), integral(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn accepts(arguments: &JsonObject) -> bool {
    all_types::SearchLogsArgs::from_call(Some(arguments)).is_ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(arguments)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let ours = accepts(&arguments);
    let schema = SCHEMA.is_valid(&Value::Object(arguments.clone()));
    if ours == schema {
        return;
    }
    assert!(
        schema && !ours,
        "the validator accepts what the schema refuses: {arguments:?}"
    );
    let Value::Object(rewritten) = integral(&Value::Object(arguments.clone())) else {
        unreachable!("an object stays an object");
    };
    assert!(
        rewritten != arguments && accepts(&rewritten),
        "the schema accepts and the validator refuses, beyond the 42.0 exception: {arguments:?}"
    );
});
