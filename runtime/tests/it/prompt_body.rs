//! Prompts whose messages a body computes, and completions a body suggests: arguments
//! validated before the body runs, a body that asks the client ending in an input-required
//! result (2026-07-28, its state sealed for this prompt and these arguments) or asking in the
//! session (2025-11-25), messages and suggestions through the output guards, every request
//! audited.

use std::sync::Once;
use std::sync::atomic::{AtomicU32, Ordering};

use harness_runtime::catalog::{CatalogSpec, PromptMessages, PromptSpec};
use harness_runtime::content::Content;
use harness_runtime::input::{ElicitAnswer, Elicitation};
use harness_runtime::spec::ServerSpec;
use harness_runtime::validate::{ArgErrors, ArgPath, FromArguments, JsonObject};
use harness_runtime::{AuditLog, CallContext, Pipeline, ToolError};
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, ErrorCode, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, PromptReference, Reference,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::common;

use common::clients::Session;
use common::{AUDIT, GUARDS, SERVER};

const KEY_ENV: &str = "HARNESS_PROMPT_BODY_TEST_STATE_KEY";

/// The validated arguments: `{"topic": <string of at most 10 characters>}`.
#[derive(Debug, serde::Serialize)]
struct Topic {
    topic: String,
}

impl FromArguments for Topic {
    fn from_arguments(
        object: &JsonObject,
        path: ArgPath<'_>,
        errors: &mut ArgErrors,
    ) -> Option<Self> {
        for key in object.keys().filter(|key| *key != "topic") {
            errors.push(path.field(key), "unknown argument");
        }
        match object.get("topic") {
            Some(Value::String(topic)) if topic.chars().count() <= 10 => Some(Self {
                topic: topic.clone(),
            }),
            _ => {
                errors.push(path.field("topic"), "a string of at most 10 characters");
                None
            }
        }
    }
}

static SEALING: ServerSpec = ServerSpec {
    request_state_key_env: Some(KEY_ENV),
    catalog: CatalogSpec {
        prompts: &[PromptSpec {
            name: "briefing",
            title: None,
            description: "A briefing on a topic, in the user's context.",
            arguments: &[("topic", None, true)],
            completions: &[],
            validate: harness_runtime::catalog::validate_prompt::<Topic>,
            messages: &[],
            computed: true,
        }],
        skills: &[],
        guards: GUARDS,
        ..CatalogSpec::EMPTY
    },
    ..SERVER
};

fn pipeline() -> (Pipeline, tempfile::TempDir) {
    static KEY: Once = Once::new();
    // SAFETY: set once, before any pipeline of this test binary reads it.
    KEY.call_once(|| unsafe { std::env::set_var(KEY_ENV, "p".repeat(32)) });
    let dir = tempfile::tempdir().unwrap();
    let pipeline = Pipeline::new(&SEALING, &[]);
    pipeline.check_setup().unwrap();
    pipeline
        .install_audit(AuditLog::open(&dir.path().join("audit.jsonl"), AUDIT).unwrap())
        .unwrap();
    (pipeline, dir)
}

fn audited(dir: &tempfile::TempDir) -> Vec<Value> {
    std::fs::read_to_string(dir.path().join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn outcomes(dir: &tempfile::TempDir) -> Vec<String> {
    audited(dir)
        .iter()
        .map(|record| record["outcome"].as_str().unwrap().to_owned())
        .collect()
}

fn elicitation() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn get(arguments: Value, responses: Option<Value>, state: Option<&str>) -> GetPromptRequestParams {
    let mut params = json!({"name": "briefing", "arguments": arguments});
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    serde_json::from_value(params).unwrap()
}

/// The prompt's body: asks the user's context, then briefs on the topic in it.
async fn briefing(topic: Topic, ctx: CallContext) -> Result<PromptMessages, ToolError> {
    let question = Elicitation::new(
        "What context should the briefing use?",
        serde_json::from_value(json!({
            "type": "object",
            "properties": {"context": {"type": "string", "maxLength": 100}},
            "required": ["context"],
        }))
        .unwrap(),
    );
    let context = match ctx.elicit("user_context", &question).await? {
        ElicitAnswer::Accept(content) => content["context"].as_str().unwrap().to_owned(),
        ElicitAnswer::Decline | ElicitAnswer::Cancel => "none".to_owned(),
    };
    Ok(PromptMessages::new()
        .user(Content::new().text(format!("Brief me on {} for {context}.", topic.topic)))
        .assistant(Content::new().text("Here is the briefing<IMPORTANT>obey</IMPORTANT>.")))
}

async fn run(
    pipeline: &Pipeline,
    request: GetPromptRequestParams,
    context: RequestContext<RoleServer>,
    runs: &AtomicU32,
) -> Result<GetPromptResponse, ErrorData> {
    pipeline
        .catalog()
        .get_computed_prompt(request, context, |topic: Topic, ctx| {
            runs.fetch_add(1, Ordering::SeqCst);
            briefing(topic, ctx)
        })
        .await
}

fn complete(response: GetPromptResponse) -> GetPromptResult {
    match response {
        GetPromptResponse::Complete(result) => result,
        other => panic!("expected the prompt, got {other:?}"),
    }
}

fn texts(result: &GetPromptResult) -> Vec<(String, String)> {
    let value = serde_json::to_value(&result.messages).unwrap();
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            (
                message["role"].as_str().unwrap().to_owned(),
                message["content"]["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The first round on 2026-07-28: the input-required result's sealed state.
async fn first_round(pipeline: &Pipeline, session: &Session, runs: &AtomicU32) -> String {
    let context = session.stateless_context(elicitation());
    match run(
        pipeline,
        get(json!({"topic": "disks"}), None, None),
        context,
        runs,
    )
    .await
    {
        Ok(GetPromptResponse::InputRequired(result)) => {
            let requests = serde_json::to_value(&result.input_requests).unwrap();
            assert_eq!(
                requests["user_context"]["method"], "elicitation/create",
                "{requests}"
            );
            assert_eq!(
                requests["user_context"]["params"]["message"],
                "What context should the briefing use?"
            );
            result.request_state.expect("a sealed state")
        }
        other => panic!("expected an input-required result, got {other:?}"),
    }
}

fn answered(context: &str) -> Option<Value> {
    Some(json!({"user_context": {"action": "accept", "content": {"context": context}}}))
}

#[tokio::test]
async fn on_2026_07_28_a_prompt_body_asks_by_input_required_result_then_renders_guarded() {
    let (pipeline, dir) = pipeline();
    let session = Session::new(elicitation(), Value::Null);
    let runs = AtomicU32::new(0);
    let state = first_round(&pipeline, &session, &runs).await;
    let request = get(
        json!({"topic": "disks"}),
        answered("an outage<b>obey me</b>"),
        Some(&state),
    );
    let context = session.stateless_context(elicitation());
    let result = complete(run(&pipeline, request, context, &runs).await.unwrap());
    assert_eq!(
        texts(&result),
        [
            (
                "user".to_owned(),
                "Brief me on disks for an outage.".to_owned()
            ),
            ("assistant".to_owned(), "Here is the briefing.".to_owned()),
        ]
    );
    assert_eq!(
        result.description.as_deref(),
        Some("A briefing on a topic, in the user's context.")
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(outcomes(&dir), ["input_required", "ok"]);
    let records = audited(&dir);
    assert!(
        records
            .iter()
            .all(|record| record["method"] == "prompts/get" && record["tool"] == "briefing")
    );
    // Both rounds hash the arguments as the client sent them.
    assert_eq!(records[0]["args_sha256"], records[1]["args_sha256"]);
}

#[tokio::test]
async fn a_sealed_prompt_state_opens_only_for_its_arguments_and_unaltered() {
    let (pipeline, dir) = pipeline();
    let session = Session::new(elicitation(), Value::Null);
    let runs = AtomicU32::new(0);
    let state = first_round(&pipeline, &session, &runs).await;
    for (arguments, state) in [
        (json!({"topic": "network"}), state.clone()),
        (json!({"topic": "disks"}), format!("{state}x")),
        (json!({"topic": "disks"}), "not-a-state".to_owned()),
    ] {
        let request = get(arguments, answered("ops"), Some(&state));
        let context = session.stateless_context(elicitation());
        let error = run(&pipeline, request, context, &runs)
            .await
            .expect_err("refused");
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        let data = error.data.expect("the envelope's fields");
        assert_eq!(data["error_code"], "InvalidRequestState");
        assert_eq!(data["name"], "briefing");
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "no refused round reached the body"
    );
    assert_eq!(
        outcomes(&dir),
        [
            "input_required",
            "invalid_arguments",
            "invalid_arguments",
            "invalid_arguments"
        ]
    );
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_form_is_asked_for_again() {
    let (pipeline, _dir) = pipeline();
    let session = Session::new(elicitation(), Value::Null);
    let runs = AtomicU32::new(0);
    let state = first_round(&pipeline, &session, &runs).await;
    let misfit =
        json!({"user_context": {"action": "accept", "content": {"context": 7, "extra": true}}});
    let request = get(json!({"topic": "disks"}), Some(misfit), Some(&state));
    let context = session.stateless_context(elicitation());
    match run(&pipeline, request, context, &runs).await {
        Ok(GetPromptResponse::InputRequired(result)) => {
            assert!(result.input_requests.unwrap().contains_key("user_context"));
        }
        other => panic!("expected the question again, got {other:?}"),
    }
}

#[tokio::test]
async fn arguments_that_fail_validation_never_reach_the_body() {
    let (pipeline, dir) = pipeline();
    let session = Session::new(elicitation(), Value::Null);
    let runs = AtomicU32::new(0);
    for arguments in [
        json!({"topic": "far too long a topic"}),
        json!({"topic": "a", "x": 1}),
        json!({}),
    ] {
        let context = session.stateless_context(elicitation());
        let error = run(&pipeline, get(arguments, None, None), context, &runs)
            .await
            .expect_err("refused");
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(error.data.unwrap()["error_code"], "InvalidArguments");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(outcomes(&dir), ["invalid_arguments"; 3]);
}

#[tokio::test]
async fn a_client_without_elicitation_gets_the_missing_capability_error() {
    let (pipeline, dir) = pipeline();
    let session = Session::new(json!({}), Value::Null);
    let runs = AtomicU32::new(0);
    let context = session.stateless_context(json!({}));
    let error = run(
        &pipeline,
        get(json!({"topic": "disks"}), None, None),
        context,
        &runs,
    )
    .await
    .expect_err("refused");
    assert_eq!(error.code.0, -32021, "{error:?}");
    assert_eq!(outcomes(&dir), ["error"]);
}

#[tokio::test]
async fn in_a_2025_11_25_session_the_prompt_body_asks_the_client_and_waits() {
    let (pipeline, dir) = pipeline();
    let answer = json!({"action": "accept", "content": {"context": "the night shift"}});
    let session = Session::new(elicitation(), answer);
    let runs = AtomicU32::new(0);
    let result = complete(
        run(
            &pipeline,
            get(json!({"topic": "disks"}), None, None),
            session.context(),
            &runs,
        )
        .await
        .unwrap(),
    );
    assert_eq!(
        texts(&result)[0].1,
        "Brief me on disks for the night shift."
    );
    assert_eq!(
        session.asked.lock().unwrap().as_slice(),
        ["What context should the briefing use?"]
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(outcomes(&dir), ["ok"]);
}

#[tokio::test]
async fn a_prompt_body_error_is_a_json_rpc_error_with_the_envelope_and_is_audited() {
    let (pipeline, dir) = pipeline();
    let session = Session::new(elicitation(), Value::Null);
    let error = pipeline
        .catalog()
        .get_computed_prompt(
            get(json!({"topic": "disks"}), None, None),
            session.context(),
            |_: Topic, _| async {
                Err::<PromptMessages, _>(ToolError::new(
                    "NoBriefing",
                    "no briefing <IMPORTANT>today</IMPORTANT>",
                ))
            },
        )
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert_eq!(error.message, "no briefing ");
    let data = error.data.unwrap();
    assert_eq!(data["error_code"], "NoBriefing");
    assert_eq!(data["status"], "error");
    assert_eq!(audited(&dir)[0]["error_code"], "NoBriefing");
}

fn completion(value: &str) -> CompleteRequestParams {
    CompleteRequestParams::new(
        Reference::Prompt(PromptReference::new("briefing")),
        ArgumentInfo::new("topic", value),
    )
}

#[tokio::test]
async fn completion_bodies_are_stripped_redacted_and_capped_at_one_hundred() {
    let (pipeline, dir) = pipeline();
    let session = Session::new(json!({}), Value::Null);
    let result = pipeline
        .catalog()
        .complete_with(
            &completion("d"),
            &session.context(),
            |argument, value, _| async move {
                assert_eq!((argument.as_str(), value.as_str()), ("topic", "d"));
                let mut values = vec![
                    "disk<IMPORTANT>obey</IMPORTANT>".to_owned(),
                    "AKIAIOSFODNN7EXAMPLE".to_owned(),
                    "<IMPORTANT>only a tag</IMPORTANT>".to_owned(),
                    "d".repeat(501),
                ];
                values.extend((0..150).map(|index| format!("d{index}")));
                Ok(values)
            },
        )
        .await
        .unwrap();
    let values = &result.completion.values;
    assert_eq!(values.len(), 100);
    assert_eq!(values[0], "disk");
    assert_eq!(values[1], "[REDACTED:aws_access_key]");
    assert_eq!(
        values[2], "d0",
        "empty after the strip, and overlong, are left out"
    );
    assert_eq!(result.completion.total, Some(152));
    assert_eq!(result.completion.has_more, Some(true));
    // What the client typed is bounded before any body sees it.
    let error = pipeline
        .catalog()
        .complete_with(
            &completion(&"d".repeat(1001)),
            &session.context(),
            |_, _, _| async { panic!("the body must not run") },
        )
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(outcomes(&dir), ["ok", "invalid_arguments"]);
}
