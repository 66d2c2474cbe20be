//! Tool bodies: one module per tool of harness.toml. This file and the modules are yours;
//! `harness-codegen scaffold` creates them once, never overwrites them, and appends the
//! declaration of each new tool here.

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

/// A 1x1 PNG.
pub(crate) const PIXEL_PNG: &[u8] = include_bytes!("../../fixtures/pixel.png");

/// A WAV header with no samples.
pub(crate) const SILENCE_WAV: &[u8] = include_bytes!("../../fixtures/silence.wav");
