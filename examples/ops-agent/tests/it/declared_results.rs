//! Declared results through a real MCP client (rmcp over streamable HTTP) against the
//! ops-agent server: `get_incident_snapshot` publishes its outputSchema; a hostile result
//! comes back stripped, redacted and cut inside its free text only, and still validates
//! against the published schema (checked by the `jsonschema` crate, not by the server's own
//! validator); a result whose uncuttable fields are over the cap is refused with
//! `OutputTooLarge`, a result that breaks its schema with `InternalError`, both as JSON
//! text without structuredContent, and every call is audited.

use harness_test_support::{
    Client, HttpServer, ScratchFile, audit_records, call, scratch_file, text,
};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_ops-agent");
const TOOL: &str = "get_incident_snapshot";

async fn start(name: &str) -> (HttpServer, Client, ScratchFile) {
    let audit = scratch_file(name, "audit.jsonl");
    let server = HttpServer::start(SERVER, &audit);
    let client = server.client("/mcp").await;
    (server, client, audit)
}

/// The outputSchema `tools/list` publishes for the tool, compiled by an independent
/// JSON Schema 2020-12 validator.
async fn published_validator(client: &Client) -> (Value, jsonschema::Validator) {
    let tools = client.list_all_tools().await.expect("tools/list");
    for tool in &tools {
        if tool.name != TOOL {
            assert!(
                tool.output_schema.is_none(),
                "{} declares no results",
                tool.name
            );
        }
    }
    let tool = tools.iter().find(|tool| tool.name == TOOL).expect("listed");
    let schema = Value::Object((**tool.output_schema.as_ref().expect("an outputSchema")).clone());
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    (schema, validator)
}

/// The envelope of an error result of a tool with declared results: JSON text only.
fn text_envelope(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(true), "an error: {result:?}");
    assert!(
        result.structured_content.is_none(),
        "no structuredContent a client would hold to the outputSchema"
    );
    let envelope: Value = serde_json::from_str(text(result)).expect("the envelope as JSON text");
    assert_eq!(envelope["status"], "error");
    envelope
}

#[tokio::test]
async fn the_output_schema_is_published_and_a_guarded_result_still_fits_it() {
    let (_server, client, audit) = start("declared-valid").await;
    let (schema, validator) = published_validator(&client).await;
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["required"],
        json!(["id", "severity", "summary", "timeline", "tags"])
    );

    let brief = call(&client, TOOL, json!({"incident_id": 42}))
        .await
        .expect("answered");
    assert_eq!(brief.is_error, Some(false));
    let structured = brief.structured_content.clone().expect("structuredContent");
    assert_eq!(structured["id"], "inc-42");
    assert_eq!(structured["owner"], "sre-oncall");
    assert!(validator.is_valid(&structured));
    assert!(brief.meta.is_none(), "nothing cut or redacted");

    let full = call(&client, TOOL, json!({"incident_id": 7, "detail": "full"}))
        .await
        .expect("answered");
    assert_eq!(full.is_error, Some(false), "{full:?}");
    let structured = full.structured_content.clone().expect("structuredContent");
    let errors: Vec<String> = validator
        .iter_errors(&structured)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mirror = text(&full);
    assert_eq!(
        mirror,
        structured.to_string(),
        "the text is the structuredContent sent"
    );
    assert!(mirror.chars().count() <= 1500, "{}", mirror.chars().count());
    let summary = structured["summary"].as_str().unwrap();
    assert!(
        !summary.contains("IMPORTANT"),
        "tag block stripped: {summary}"
    );
    assert!(summary.contains("[REDACTED:aws_access_key]"), "{summary}");
    assert!(summary.ends_with("characters cut]"), "{summary}");
    assert_eq!(structured["id"], "inc-7", "a pattern field is never cut");
    assert_eq!(structured["tags"], json!(["checkout", "latency"]));
    assert_eq!(
        structured["timeline"].as_array().unwrap().len(),
        12,
        "no item dropped"
    );
    let meta = full.meta.as_ref().expect("_meta says what the guards did");
    assert!(meta.0["harness/truncated"]["strings_cut"].as_u64().unwrap() >= 1);
    assert_eq!(meta.0["harness/truncated"]["array_items_cut"], 0);
    assert_eq!(meta.0["harness/redacted"]["aws_access_key"], 1);

    let outcomes: Vec<Value> = audit_records(&audit)
        .into_iter()
        .map(|record| record["outcome"].clone())
        .collect();
    assert_eq!(outcomes, [json!("ok"), json!("ok")]);
}

#[tokio::test]
async fn a_result_that_cannot_fit_is_refused_and_one_that_breaks_its_schema_is_internal() {
    let (_server, client, audit) = start("declared-refused").await;
    let too_large = call(
        &client,
        TOOL,
        json!({"incident_id": 8, "detail": "every_tag"}),
    )
    .await
    .expect("answered");
    let envelope = text_envelope(&too_large);
    assert_eq!(envelope["error_code"], "OutputTooLarge");
    let message = envelope["message"].as_str().unwrap();
    assert!(message.contains("at most 1500"), "{message}");
    assert!(
        !text(&too_large).contains("shard-399"),
        "nothing of the result leaks"
    );

    let broken = call(&client, TOOL, json!({"incident_id": 9, "detail": "broken"}))
        .await
        .expect("answered");
    let envelope = text_envelope(&broken);
    assert_eq!(envelope["error_code"], "InternalError");
    assert_eq!(envelope["message"], "internal error");
    assert!(!text(&broken).contains("INC 42"));

    let invalid = call(&client, TOOL, json!({"incident_id": 0}))
        .await
        .expect("answered");
    assert_eq!(text_envelope(&invalid)["error_code"], "InvalidArguments");

    let records = audit_records(&audit);
    let outcomes: Vec<(&Value, &Value)> = records
        .iter()
        .map(|record| (&record["outcome"], &record["error_code"]))
        .collect();
    assert_eq!(
        outcomes,
        [
            (&json!("blocked"), &json!("OutputTooLarge")),
            (&json!("error"), &json!("InternalError")),
            (&json!("invalid_arguments"), &json!("InvalidArguments")),
        ]
    );
}
