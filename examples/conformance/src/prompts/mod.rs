//! Bodies of the prompts of harness.toml whose messages or completions are computed.

pub(crate) mod test_input_required_result_prompt;
pub(crate) mod test_prompt_with_arguments;
