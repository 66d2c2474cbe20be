//! `[auth] ca_file`: the CA certificates a server trusts for its issuer besides Mozilla's
//! roots, read here so that a missing file, a file that is not PEM, or one that carries a
//! private key (it would be embedded in the binary) is a located build error rather than a
//! server that cannot reach its issuer.

use std::path::{Path, PathBuf};

use base64::Engine;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest_path::ManifestPath;
use crate::model::input_files::read_text;

const BEGIN_CERTIFICATE: &str = "-----BEGIN CERTIFICATE-----";
const END_CERTIFICATE: &str = "-----END CERTIFICATE-----";

/// The text of `file` when it holds PEM certificates and nothing secret; every problem is
/// reported at `path`.
pub(crate) fn read(
    file: &str,
    path: &ManifestPath,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<String> {
    let text = read_text(base_dir, file, path, inputs, errors)?;
    let problem = |message: String, label: &str, help: &str| {
        errors.report(
            Diagnostic::value(path.clone(), message)
                .label(label.to_owned())
                .help(help.to_owned()),
        );
    };
    if text
        .lines()
        .any(|line| line.starts_with("-----BEGIN") && line.contains("PRIVATE KEY"))
    {
        problem(
            format!("{file} holds a private key"),
            "a secret",
            "keep only the CA's certificates (-----BEGIN CERTIFICATE-----): this file is embedded in the server's binary",
        );
        return None;
    }
    match certificates(&text) {
        Ok(0) => problem(
            format!("{file} holds no PEM certificate"),
            "no certificate",
            "the CA's certificate in PEM form, starting with -----BEGIN CERTIFICATE-----",
        ),
        Ok(_) => return Some(text),
        Err(which) => problem(
            format!("certificate {which} of {file} is not valid PEM"),
            "not PEM",
            "each certificate between -----BEGIN CERTIFICATE----- and -----END CERTIFICATE----- lines, in base64",
        ),
    }
    None
}

/// How many certificate blocks `text` holds, or the position (from 1) of the first that is
/// unterminated or not base64.
fn certificates(text: &str) -> Result<usize, usize> {
    let mut count = 0;
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line != BEGIN_CERTIFICATE {
            continue;
        }
        count += 1;
        let mut body = String::new();
        let mut ended = false;
        for line in lines.by_ref() {
            if line == END_CERTIFICATE {
                ended = true;
                break;
            }
            body.push_str(line);
        }
        let decoded = base64::engine::general_purpose::STANDARD.decode(&body);
        if !ended || decoded.is_err() || body.is_empty() {
            return Err(count);
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_blocks_and_finds_the_broken_one() {
        let good = "junk\n-----BEGIN CERTIFICATE-----\nTUlJ\n-----END CERTIFICATE-----\n";
        assert_eq!(certificates(good), Ok(1));
        assert_eq!(certificates(&good.repeat(2)), Ok(2));
        let unterminated = format!("{good}-----BEGIN CERTIFICATE-----\nTUlJ\n");
        assert_eq!(certificates(&unterminated), Err(2));
        let not_base64 = "-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----\n";
        assert_eq!(certificates(not_base64), Err(1));
        assert_eq!(certificates("no pem here"), Ok(0));
    }
}
