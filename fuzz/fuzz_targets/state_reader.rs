//! The verifier's strict state-file reader on any bytes: it never panics, and it passes only
//! an object with exactly the declared fields, the required values and the expected ones.

#![no_main]

use harness_runtime::verify::{FieldType, parse_state};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

const FIELDS: &[(&str, FieldType)] = &[
    ("restart_request_present", FieldType::Boolean),
    ("schema_version", FieldType::Integer),
];

fuzz_target!(|data: &[u8]| {
    let passed = parse_state(
        data,
        FIELDS,
        &[("schema_version", "1")],
        &[("restart_request_present", "false")],
    );
    if passed.is_ok() {
        let value: Value = serde_json::from_slice(data).expect("a passed state file is JSON");
        assert_eq!(
            value,
            json!({"restart_request_present": false, "schema_version": 1})
        );
    }
});
