//! Body of tool `test_elicitation_sep1330_enums` (the conformance suite's fixture): every enum form of SEP-1330.

use harness_runtime::content::Content;
use harness_runtime::input::Elicitation;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestElicitationSep1330Enums, TestElicitationSep1330EnumsArgs};
use crate::tools::{Toolbox, describe, form};

impl TestElicitationSep1330Enums for Toolbox {
    type Output = Content;

    async fn test_elicitation_sep1330_enums(
        &self,
        _args: TestElicitationSep1330EnumsArgs,
        ctx: CallContext,
    ) -> Result<Content, ToolError> {
        let form = form(serde_json::json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]}},
            },
        }));
        let answer = ctx
            .elicit("enums", &Elicitation::new("Choose", form))
            .await?;
        Ok(Content::new().text(describe(&answer)))
    }
}
