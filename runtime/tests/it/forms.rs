//! Declared forms (`[[tools.forms]]`, `ctx.ask::<F>()`): the client is asked with the form's
//! generated message and schema, and its answer reaches the body only through the form's
//! strict validator: asked again on 2026-07-28 when it does not fit, refused in a session.

use std::sync::Once;

use harness_runtime::input::{Form, FormAnswer};
use harness_runtime::spec::{ServerSpec, ToolSpec};
use harness_runtime::validate::{ArgErrors, ArgPath, FromArguments, JsonObject};
use harness_runtime::{CallContext, Pipeline, ToolError};
use rmcp::model::{CallToolResponse, CallToolResult};
use serde_json::{Value, json};

use crate::common;

use common::clients::Session;
use common::{GUARDS, SERVER, tool};

const KEY_ENV: &str = "HARNESS_FORMS_TEST_STATE_KEY";

static SEALING: ServerSpec = ServerSpec {
    request_state_key_env: Some(KEY_ENV),
    ..SERVER
};

static TOOLS: [ToolSpec; 1] = [tool("deploy", GUARDS)];

/// What codegen writes for `[[tools.forms]] key = "approval"` with a required boolean
/// `approve` and an optional `reason` of at most 20 characters, validated strictly.
#[derive(Debug, PartialEq)]
struct Approval {
    approve: bool,
    reason: Option<String>,
}

impl FromArguments for Approval {
    fn from_arguments(
        object: &JsonObject,
        path: ArgPath<'_>,
        errors: &mut ArgErrors,
    ) -> Option<Self> {
        for key in object
            .keys()
            .filter(|key| !["approve", "reason"].contains(&key.as_str()))
        {
            errors.push(path.field(key), "unknown argument");
        }
        let approve = match object.get("approve") {
            Some(Value::Bool(approve)) => Some(*approve),
            _ => {
                errors.push(path.field("approve"), "a boolean");
                None
            }
        };
        let reason = match object.get("reason") {
            None | Some(Value::Null) => Some(None),
            Some(Value::String(reason)) if reason.chars().count() <= 20 => {
                Some(Some(reason.clone()))
            }
            Some(_) => {
                errors.push(path.field("reason"), "a string of at most 20 characters");
                None
            }
        };
        Some(Self {
            approve: approve?,
            reason: reason?,
        })
    }
}

impl Form for Approval {
    const KEY: &'static str = "approval";
    const MESSAGE: &'static str = "Deploy now?";
    const SCHEMA: &'static str = r#"{"type":"object","properties":{"approve":{"type":"boolean"},"reason":{"type":"string","maxLength":20}},"required":["approve"]}"#;
}

fn pipeline() -> Pipeline {
    static KEY: Once = Once::new();
    // SAFETY: set once, before any pipeline of this test binary reads it.
    KEY.call_once(|| unsafe { std::env::set_var(KEY_ENV, "f".repeat(32)) });
    let pipeline = Pipeline::new(&SEALING, &TOOLS);
    pipeline.check_setup().unwrap();
    pipeline
}

fn elicitation() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// The body: what the user answered, as text.
async fn respond(pipeline: &Pipeline, call: harness_runtime::Call) -> CallToolResponse {
    pipeline
        .respond(
            0,
            call,
            |_: harness_runtime::validate::NoArguments, ctx: CallContext| async move {
                let answer = match ctx.ask::<Approval>().await? {
                    FormAnswer::Accept(Approval { approve, reason }) => {
                        format!("approve={approve} reason={reason:?}")
                    }
                    FormAnswer::Decline => "declined".to_owned(),
                    FormAnswer::Cancel => "cancelled".to_owned(),
                };
                Ok::<_, ToolError>(json!({"answer": answer}))
            },
        )
        .await
        .unwrap()
}

fn complete(response: CallToolResponse) -> CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected a result, got {other:?}"),
    }
}

fn asked_again(response: CallToolResponse) -> Value {
    match response {
        CallToolResponse::InputRequired(result) => {
            serde_json::to_value(result.input_requests.unwrap()).unwrap()
        }
        other => panic!("expected the form to be asked, got {other:?}"),
    }
}

#[tokio::test]
async fn on_2026_07_28_the_form_is_asked_with_its_schema_and_only_a_fitting_answer_gets_through() {
    let pipeline = pipeline();
    let session = Session::new(elicitation(), Value::Null);
    let call = session.stateless("deploy", json!({}), elicitation(), None, None);
    let requests = asked_again(respond(&pipeline, call).await);
    let params = &requests["approval"]["params"];
    assert_eq!(requests["approval"]["method"], "elicitation/create");
    assert_eq!(params["message"], "Deploy now?");
    assert_eq!(
        params["requestedSchema"],
        serde_json::from_str::<Value>(Approval::SCHEMA).unwrap()
    );
    for misfit in [
        json!({"approve": "yes"}),
        json!({"approve": true, "reason": "far more than twenty characters"}),
        json!({"approve": true, "extra": 1}),
        json!({}),
    ] {
        let answer = json!({"approval": {"action": "accept", "content": misfit}});
        let call = session.stateless("deploy", json!({}), elicitation(), Some(answer), None);
        let requests = asked_again(respond(&pipeline, call).await);
        assert!(
            requests.get("approval").is_some(),
            "{misfit} is asked again"
        );
    }
    let answer =
        json!({"approval": {"action": "accept", "content": {"approve": true, "reason": "hotfix"}}});
    let call = session.stateless("deploy", json!({}), elicitation(), Some(answer), None);
    let result = complete(respond(&pipeline, call).await);
    assert_eq!(
        result.structured_content,
        Some(json!({"answer": "approve=true reason=Some(\"hotfix\")"}))
    );
    let declined = json!({"approval": {"action": "decline"}});
    let call = session.stateless("deploy", json!({}), elicitation(), Some(declined), None);
    let result = complete(respond(&pipeline, call).await);
    assert_eq!(
        result.structured_content,
        Some(json!({"answer": "declined"}))
    );
}

#[tokio::test]
async fn in_a_session_an_answer_that_does_not_fit_is_refused_before_the_body_sees_it() {
    let pipeline = pipeline();
    let misfit = json!({"action": "accept", "content": {"approve": 1}});
    let session = Session::new(elicitation(), misfit);
    let result = complete(respond(&pipeline, session.call("deploy", json!({}))).await);
    assert_eq!(result.is_error, Some(true));
    let envelope = result.structured_content.unwrap();
    assert_eq!(envelope["error_code"], "InvalidInput", "{envelope}");
    assert!(
        envelope["message"].as_str().unwrap().contains("approve"),
        "{envelope}"
    );
    assert_eq!(session.asked.lock().unwrap().as_slice(), ["Deploy now?"]);

    let fitting = json!({"action": "accept", "content": {"approve": false}});
    let session = Session::new(elicitation(), fitting);
    let result = complete(respond(&pipeline, session.call("deploy", json!({}))).await);
    assert_eq!(
        result.structured_content,
        Some(json!({"answer": "approve=false reason=None"}))
    );
}
