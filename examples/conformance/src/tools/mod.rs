//! Tool bodies: one module per tool of harness.toml. This file and the modules are yours;
//! `harness-codegen scaffold` creates them once, never overwrites them, and appends the
//! declaration of each new tool here.

pub(crate) mod harness_refund_order;
pub(crate) mod test_audio_content;
pub(crate) mod test_embedded_resource;
pub(crate) mod test_error_handling;
pub(crate) mod test_image_content;
pub(crate) mod test_logging_tool;
pub(crate) mod test_multiple_content_types;
pub(crate) mod test_simple_text;
pub(crate) mod test_tool_with_logging;
pub(crate) mod test_tool_with_progress;

/// The state every tool body can use; the fixture has none.
#[derive(Debug, Default)]
pub(crate) struct Toolbox;

/// A form from its JSON schema (rmcp's `ElicitationSchema` reads every SEP-1330 enum form).
pub(crate) fn form(schema: serde_json::Value) -> harness_runtime::input::ElicitationSchema {
    serde_json::from_value(schema).expect("the fixture's forms are valid")
}

/// What the user did, as text.
pub(crate) fn describe(answer: &harness_runtime::input::ElicitAnswer) -> String {
    match answer {
        harness_runtime::input::ElicitAnswer::Accept(content) => {
            format!(
                "Elicitation completed: action=accept, content={}",
                serde_json::Value::Object(content.clone())
            )
        }
        harness_runtime::input::ElicitAnswer::Decline => {
            "Elicitation completed: action=decline".to_owned()
        }
        harness_runtime::input::ElicitAnswer::Cancel => {
            "Elicitation completed: action=cancel".to_owned()
        }
    }
}

/// The confirmation the request-state tools ask for, in one round and with its state.
pub(crate) async fn confirm(
    ctx: &harness_runtime::CallContext,
) -> Result<harness_runtime::content::Content, harness_runtime::ToolError> {
    let form = form(
        serde_json::json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
    );
    let question = harness_runtime::input::Elicitation::new("Please confirm", form);
    let answer = ctx.elicit("confirm", &question).await?;
    Ok(harness_runtime::content::Content::new().text(format!("state-ok: {}", describe(&answer))))
}

/// A 1x1 PNG.
pub(crate) const PIXEL_PNG: &[u8] = include_bytes!("../../fixtures/pixel.png");

/// A WAV header with no samples.
pub(crate) const SILENCE_WAV: &[u8] = include_bytes!("../../fixtures/silence.wav");
pub(crate) mod confirm_delete;
pub(crate) mod failing_job;
pub(crate) mod greet;
pub(crate) mod multi_input;
pub(crate) mod protocol_error_job;
pub(crate) mod slow_compute;
pub(crate) mod test_elicitation;
pub(crate) mod test_elicitation_sep1034_defaults;
pub(crate) mod test_elicitation_sep1330_enums;
pub(crate) mod test_input_required_result_capabilities;
pub(crate) mod test_input_required_result_elicitation;
pub(crate) mod test_input_required_result_list_roots;
pub(crate) mod test_input_required_result_multi_round;
pub(crate) mod test_input_required_result_multiple_inputs;
pub(crate) mod test_input_required_result_request_state;
pub(crate) mod test_input_required_result_sampling;
pub(crate) mod test_input_required_result_tampered_state;
pub(crate) mod test_missing_capability;
pub(crate) mod test_sampling;
pub(crate) mod test_streaming_elicitation;
pub(crate) mod test_tool_with_task;
