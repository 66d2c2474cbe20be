//! The confirmation of a `confirm = true` tool: before the body runs, the user is asked
//! through elicitation whether to run it with these arguments (a form of one boolean). Only an
//! accepted form saying yes lets the body run; declined, cancelled, a client without
//! elicitation, or one that does not answer refuses the call with `NotConfirmed`.
//!
//! On a 2026-07-28 request the question goes out as an input-required result whose sealed
//! state records that it was asked ([`CONFIRM_ASKED`]), bound like every sealed state to the
//! tool and the arguments' digest: an answer counts only beside a state that says it was asked
//! for this very call, so a client cannot pre-answer a question it never got, nor carry a yes
//! over to other arguments.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::guards::redact::{self, Redactions};
use crate::guards::{chars, strip};
use crate::input::session::InputSession;
use crate::input::state::STATE_TTL;
use crate::input::{ElicitAnswer, Elicitation, ElicitationSchema};
use crate::pipeline::Pipeline;
use crate::pipeline::envelope::codes;
use crate::pipeline::outcome::Outcome;
use crate::pipeline::refusal::{NotConfirmed, Refusal};
use crate::spec::ToolSpec;

/// The input key the confirmation is asked under (keys under `harness/` are the harness's).
pub(crate) const CONFIRM_KEY: &str = "harness/confirm";

/// Sealed beside the answers when the confirmation was asked: a client's answer to
/// [`CONFIRM_KEY`] counts only when the state it returns carries this.
pub(crate) const CONFIRM_ASKED: &str = "harness/confirm_asked";

/// The form's one field.
const FIELD: &str = "confirm";

/// Characters of the arguments' summary the user reads.
const SUMMARY_CHARS: u64 = 400;

impl Pipeline {
    /// Asks the user to confirm the call: `None` lets the body run, else how the call ends
    /// (refused, or an input-required result asking the question).
    pub(super) async fn unconfirmed(
        &self,
        tool: &ToolSpec,
        input: &InputSession,
        args: &Value,
        trace_id: &str,
    ) -> Option<Outcome> {
        let refused = |why| {
            Some(Outcome::refused(
                Refusal::NotConfirmed(why),
                Some(&tool.guards),
                trace_id,
                args.clone(),
            ))
        };
        // Without a key no state can say the question was asked, so no answer would count.
        if input.answers().is_some() && !matches!(self.state_key, Some(Ok(_))) {
            return refused(NotConfirmed::Unavailable);
        }
        let form = confirm_form(tool, args);
        // A session's user has as long to answer as a 2026-07-28 client has with its sealed
        // state; past it the call ends unconfirmed instead of holding its place forever.
        let Ok(answer) = tokio::time::timeout(STATE_TTL, input.elicit(CONFIRM_KEY, &form)).await
        else {
            tracing::info!(
                trace_id,
                tool = tool.name,
                "no answer to the confirmation in time"
            );
            return refused(NotConfirmed::NoAnswer);
        };
        match answer {
            Ok(ElicitAnswer::Accept(content)) if content.get(FIELD) == Some(&Value::Bool(true)) => {
                None
            }
            Ok(ElicitAnswer::Accept(_) | ElicitAnswer::Decline) => refused(NotConfirmed::Declined),
            Ok(ElicitAnswer::Cancel) => refused(NotConfirmed::Cancelled),
            Err(error) if error.code() == codes::INPUT_REQUIRED => {
                let ask = self.input_outcome(tool, input, &error, args);
                ask.or_else(|| refused(NotConfirmed::Unavailable))
            }
            Err(error) => {
                tracing::info!(
                    trace_id,
                    tool = tool.name,
                    code = error.code(),
                    detail = error.internal_detail(),
                    "confirmation not asked or not answered"
                );
                match error.code() {
                    codes::MISSING_CLIENT_CAPABILITY | codes::INPUT_UNAVAILABLE => {
                        refused(NotConfirmed::Unavailable)
                    }
                    _ => refused(NotConfirmed::NoAnswer),
                }
            }
        }
    }
}

/// The question: the tool's name and its arguments, summarised and guarded like output
/// (hidden characters and tags stripped, secrets redacted, cut short).
fn confirm_form(tool: &ToolSpec, args: &Value) -> Elicitation {
    let text = harness_contract::canonical_json(args);
    let stripped = strip::sanitize(&text, true);
    let clean = redact::apply(
        &stripped,
        redact::policy(&tool.guards),
        &mut Redactions::default(),
    );
    let summary = match chars::cap_text(&clean, SUMMARY_CHARS) {
        Some(cut) => Cow::Owned(cut),
        None => clean,
    };
    let name = strip::sanitize(tool.name, true);
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {FIELD: {
            "type": "boolean",
            "title": format!("Run {name}"),
            "description": "Yes runs the tool once with these arguments.",
        }},
        "required": [FIELD],
    }))
    .expect("a form of one boolean is valid");
    Elicitation::new(
        format!("Run the tool `{name}` with these arguments? {summary}"),
        schema,
    )
}
