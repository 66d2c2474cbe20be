//! A write tool's safeguards besides its guards: `confirm` (the user says yes before the body
//! runs). A `destructiveHint` annotation is a hint to the client and replaces neither.

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Manifest};
use crate::manifest_path::ManifestPath;

/// A tool's write safeguards, as the manifest states them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WritePolicy {
    /// Ask the user before the body runs.
    pub confirm: bool,
}

/// The write safeguards of one `[[tools]]` entry.
pub(crate) fn policy(tool: &manifest::Tool) -> WritePolicy {
    WritePolicy {
        confirm: tool.confirm.unwrap_or(false),
    }
}

/// A confirmation asked on a 2026-07-28 request is answered in a later request; only a sealed
/// state proves the server asked it for this call, so `confirm` needs the key that seals.
pub(crate) fn check_confirm_key(manifest: &Manifest, errors: &ErrorSink<'_>) {
    if manifest.server.request_state_key_env.is_some() {
        return;
    }
    for (index, tool) in manifest.tools.iter().enumerate() {
        if tool.confirm == Some(true) {
            errors.report(
                Diagnostic::value(
                    ManifestPath::root().key("tools").index(index).key("confirm"),
                    format!("tool `{}` asks for confirmation, but request state is not sealed", tool.name),
                )
                .label("needs `[server] request_state_key_env`")
                .help("a 2026-07-28 client answers the question in its next request, and only a sealed state shows the server asked it for this call: add `request_state_key_env = \"HARNESS_REQUEST_STATE_KEY\"` to [server]"),
            );
        }
    }
}
