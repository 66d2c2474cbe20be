//! Completions of `arg1` of prompt `test_prompt_with_arguments` (the conformance suite's
//! fixture): the words of a short list that start with what the client typed.

use harness_runtime::{CallContext, ToolError};

use crate::generated::TestPromptWithArgumentsPromptCompletion;
use crate::tools::Toolbox;

const WORDS: &[&str] = &["paris", "park", "party", "test", "testing", "tested"];

impl TestPromptWithArgumentsPromptCompletion for Toolbox {
    async fn complete_test_prompt_with_arguments(
        &self,
        _argument: String,
        value: String,
        _ctx: CallContext,
    ) -> Result<Vec<String>, ToolError> {
        Ok(WORDS
            .iter()
            .filter(|word| word.starts_with(&value))
            .map(|word| (*word).to_owned())
            .collect())
    }
}
