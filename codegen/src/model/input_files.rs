//! Files beside the manifest that the output embeds (instructions, skill bodies, resource and
//! prompt files): read once, each recorded as an input of the build, each failure a located
//! error.

use std::path::{Path, PathBuf};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest_path::ManifestPath;

/// The largest file the generated server may embed.
pub(crate) const MAX_EMBEDDED_BYTES: usize = 16 * 1024 * 1024;

/// The bytes of `file` (relative to `base_dir`), reported at `path` when unreadable or over
/// [`MAX_EMBEDDED_BYTES`].
pub(crate) fn read_bytes(
    base_dir: &Path,
    file: &str,
    path: &ManifestPath,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<Vec<u8>> {
    let full = base_dir.join(file);
    inputs.push(full.clone());
    match std::fs::read(&full) {
        Ok(bytes) if bytes.len() <= MAX_EMBEDDED_BYTES => Some(bytes),
        Ok(bytes) => {
            errors.report(
                Diagnostic::value(
                    path.clone(),
                    format!(
                        "{file} is {} bytes, over the {MAX_EMBEDDED_BYTES} a server may embed",
                        bytes.len()
                    ),
                )
                .label("too large")
                .help("serve large content from a resource template body instead"),
            );
            None
        }
        Err(error) => {
            errors.report(
                Diagnostic::value(path.clone(), format!("cannot read {file}: {error}"))
                    .label("unreadable")
                    .help("paths are relative to the manifest's directory"),
            );
            None
        }
    }
}

/// The text of `file`, as [`read_bytes`], reported when it is not UTF-8.
pub(crate) fn read_text(
    base_dir: &Path,
    file: &str,
    path: &ManifestPath,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<String> {
    let bytes = read_bytes(base_dir, file, path, inputs, errors)?;
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(_) => {
            errors.report(
                Diagnostic::value(path.clone(), format!("{file} is not UTF-8 text"))
                    .label("not text")
                    .help("this file is embedded as text; save it as UTF-8"),
            );
            None
        }
    }
}
