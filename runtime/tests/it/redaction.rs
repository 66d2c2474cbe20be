//! Secret redaction through the whole pipeline: what the model reads of a text result, a
//! structured result, an error message and the log and progress messages of a call (these
//! over a real rmcp session on an in-memory pipe), and a tool that opts out.
//!
//! Every fake secret is joined from pieces at run time, so this file holds no credential a
//! scanner would flag.

use std::sync::LazyLock;

use harness_runtime::content::Content;
use harness_runtime::spec::{GuardSpec, ToolSpec};
use harness_runtime::validate::NoArguments;
use harness_runtime::{Call, CallContext, LogLevel, Pipeline, ToolError};
use rmcp::model::{CallToolRequestParams, CallToolResponse, ErrorData, ServerConfig};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common;

use common::{GUARDS, SERVER, tool};

static TOOLS: [ToolSpec; 5] = [
    tool("text_with_keys", GUARDS),
    tool("nested_json", GUARDS),
    tool("failing", GUARDS),
    tool("chatty", GUARDS),
    tool(
        "opted_out",
        GuardSpec {
            redact_secrets: false,
            ..GUARDS
        },
    ),
];

fn aws_key() -> String {
    ["AKIA", "ZX2YW3VU", "4TS5RQ6P"].concat()
}

fn github_token() -> String {
    ["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO", "0pINUx"].concat()
}

fn private_key() -> String {
    [
        "-----BEGIN RSA PRIVATE",
        " KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n",
        "aFDrBz9vFqU4yQ==\n-----END RSA PRIVATE KEY-----",
    ]
    .concat()
}

fn log_text() -> String {
    format!("deploy: using key {}\n{}\ndone", aws_key(), private_key())
}

async fn run_text(pipeline: &Pipeline, index: usize) -> Value {
    let call = Call::new(None, None, CancellationToken::new());
    let result = pipeline
        .run(index, call, |_: NoArguments, _: CallContext| async {
            Ok::<_, ToolError>(Content::new().text(log_text()))
        })
        .await
        .expect("a result");
    serde_json::to_value(result).unwrap()
}

#[tokio::test]
async fn a_text_result_reaches_the_model_with_its_secrets_redacted() {
    let pipeline = Pipeline::new(&SERVER, &TOOLS);
    let result = run_text(&pipeline, 0).await;
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        "deploy: using key [REDACTED:aws_access_key]\n[REDACTED:private_key]\ndone"
    );
    assert_eq!(
        result["_meta"]["harness/redacted"],
        json!({"aws_access_key": 1, "private_key": 1})
    );
}

#[tokio::test]
async fn a_tool_that_opts_out_passes_the_text_unchanged() {
    let pipeline = Pipeline::new(&SERVER, &TOOLS);
    let result = run_text(&pipeline, 4).await;
    assert_eq!(result["content"][0]["text"], log_text());
    assert!(
        result["_meta"].get("harness/redacted").is_none(),
        "{result}"
    );
}

#[tokio::test]
async fn a_nested_structured_field_is_redacted_in_structured_content_and_its_text() {
    let pipeline = Pipeline::new(&SERVER, &TOOLS);
    let call = Call::new(None, None, CancellationToken::new());
    let result = pipeline
        .run(1, call, |_: NoArguments, _: CallContext| async {
            Ok::<_, ToolError>(json!({
                "repo": "example/api",
                "ci": {"steps": [{"name": "push", "env": {"GITHUB_TOKEN": github_token()}}]},
            }))
        })
        .await
        .expect("a result");
    let structured = result.structured_content.as_ref().unwrap();
    assert_eq!(
        structured["ci"]["steps"][0]["env"]["GITHUB_TOKEN"],
        "[REDACTED:github_token]"
    );
    assert_eq!(structured["repo"], "example/api");
    let text = &result.content[0].as_text().unwrap().text;
    assert!(!text.contains(&github_token()) && text.contains("[REDACTED:github_token]"));
}

#[tokio::test]
async fn an_error_message_is_redacted_in_the_envelope() {
    let pipeline = Pipeline::new(&SERVER, &TOOLS);
    let call = Call::new(None, None, CancellationToken::new());
    let result = pipeline
        .run(2, call, |_: NoArguments, _: CallContext| async {
            Err::<Value, _>(ToolError::new(
                "UpstreamRejected",
                format!("push refused for token {}", github_token()),
            ))
        })
        .await
        .expect("a result");
    assert_eq!(result.is_error, Some(true));
    let envelope = result.structured_content.as_ref().unwrap();
    assert_eq!(
        envelope["message"],
        "push refused for token [REDACTED:github_token]"
    );
    let text = &result.content[0].as_text().unwrap().text;
    assert!(!text.contains(&github_token()), "{text}");
}

static PIPELINE: LazyLock<Pipeline> = LazyLock::new(|| Pipeline::new(&SERVER, &TOOLS));

/// A server of one tool (`chatty`) whose body logs and reports progress with a token in the
/// message, as generated code serves it.
#[derive(Clone)]
struct Chatty;

impl rmcp::ServerHandler for Chatty {
    fn get_info(&self) -> ServerConfig {
        SERVER.server_info()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (_, call) = Call::split(request, context, Some(LogLevel::Debug));
        PIPELINE
            .respond(3, call, |_: NoArguments, ctx: CallContext| async move {
                let message = format!("cloning with {}", github_token());
                ctx.log(LogLevel::Info, &message).await;
                ctx.progress(1.0, Some(2.0), Some(&message)).await;
                Ok::<_, ToolError>("done")
            })
            .await
    }
}

#[tokio::test]
async fn log_and_progress_messages_are_redacted() {
    let seen = common::clients::exchange(
        Chatty,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "chatty", "arguments": {}, "_meta": {"progressToken": "p1"}}}),
    )
    .await;
    let of = |method: &str| {
        seen.iter()
            .find(|message| message["method"] == method)
            .unwrap_or_else(|| panic!("no {method} in {seen:#?}"))
            .clone()
    };
    let log = of("notifications/message");
    assert_eq!(
        log["params"]["data"],
        "cloning with [REDACTED:github_token]"
    );
    let progress = of("notifications/progress");
    assert_eq!(
        progress["params"]["message"],
        "cloning with [REDACTED:github_token]"
    );
    let all = serde_json::to_string(&seen).unwrap();
    assert!(!all.contains(&github_token()), "{all}");
}
