//! Body of tool `test_audio_content` (the conformance suite's fixture).

use harness_runtime::content::Content;
use harness_runtime::{CallContext, ToolError};

use crate::generated::{TestAudioContent, TestAudioContentArgs};
use crate::tools::{SILENCE_WAV, Toolbox};

impl TestAudioContent for Toolbox {
    type Output = Content;

    async fn test_audio_content(
        &self,
        _args: TestAudioContentArgs,
        _ctx: CallContext,
    ) -> Result<Content, ToolError> {
        Ok(Content::new().audio(SILENCE_WAV, "audio/wav"))
    }
}
