//! Writing the Harbor task directory embedded in the binary (`bundle --out DIR`), with the
//! binary itself where the sidecar and verifier images expect it.

use std::path::{Path, PathBuf};

use crate::spec::BundleSpec;

/// Why the bundle could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// The manifest has no `[task]`.
    #[error("this server was generated without a [task] section, so it has no bundle")]
    NoBundle,
    /// The target holds files already.
    #[error("{0} is not empty; pass --force to overwrite the bundle's files in it")]
    NotEmpty(PathBuf),
    /// The binary would not run on the sidecar's `FROM scratch` image.
    #[error(
        "{0} is dynamically linked, so it cannot run on the sidecar's FROM scratch image; build a static binary with \
         `RUSTFLAGS=\"-C target-feature=+crt-static\" cargo build --release --target x86_64-unknown-linux-gnu` \
         (or `make bundle`), or pass --allow-dynamic to write the bundle anyway"
    )]
    Dynamic(PathBuf),
    /// The binary is not an ELF executable.
    #[error("{0} is not a 64-bit little-endian ELF executable")]
    NotElf(PathBuf),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BundleError + '_ {
    move |source| BundleError::Io {
        path: path.to_owned(),
        source,
    }
}

/// True when the ELF executable has no program interpreter (PT_INTERP), i.e. it is static.
pub(crate) fn is_static_elf(bytes: &[u8]) -> Option<bool> {
    const PT_INTERP: u32 = 3;
    let read = |offset: usize, len: usize| bytes.get(offset..offset + len);
    if read(0, 4)? != b"\x7fELF" || read(4, 1)? != [2] || read(5, 1)? != [1] {
        return None;
    }
    let phoff = u64::from_le_bytes(read(0x20, 8)?.try_into().ok()?) as usize;
    let phentsize = u16::from_le_bytes(read(0x36, 2)?.try_into().ok()?) as usize;
    let phnum = u16::from_le_bytes(read(0x38, 2)?.try_into().ok()?) as usize;
    for index in 0..phnum {
        let header = phoff.checked_add(index.checked_mul(phentsize)?)?;
        let p_type = u32::from_le_bytes(read(header, 4)?.try_into().ok()?);
        if p_type == PT_INTERP {
            return Some(false);
        }
    }
    Some(true)
}

/// Writes `spec` and `binary` under `out`; returns the paths written.
pub(crate) fn write_bundle(
    spec: &BundleSpec,
    out: &Path,
    binary: &Path,
    force: bool,
    allow_dynamic: bool,
) -> Result<Vec<PathBuf>, BundleError> {
    if spec.files.is_empty() {
        return Err(BundleError::NoBundle);
    }
    let executable = std::fs::read(binary).map_err(io(binary))?;
    match is_static_elf(&executable) {
        None => return Err(BundleError::NotElf(binary.to_owned())),
        Some(false) if !allow_dynamic => return Err(BundleError::Dynamic(binary.to_owned())),
        Some(_) => {}
    }
    if !force
        && out
            .read_dir()
            .is_ok_and(|mut entries| entries.next().is_some())
    {
        return Err(BundleError::NotEmpty(out.to_owned()));
    }
    let mut written = Vec::new();
    let ledger = spec
        .files
        .iter()
        .find(|file| file.path == LEDGER)
        .map(|file| with_binary_digest(file.contents, spec.binary_paths, &executable));
    let files = spec
        .files
        .iter()
        .map(|file| match (&ledger, file.path == LEDGER) {
            (Some(ledger), true) => (file.path, ledger.as_bytes(), file.executable),
            _ => (file.path, file.contents.as_bytes(), file.executable),
        })
        .chain(
            spec.binary_paths
                .iter()
                .map(|path| (*path, executable.as_slice(), true)),
        );
    for (relative, contents, is_executable) in files {
        let path = out.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, contents).map_err(io(&path))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if is_executable { 0o755 } else { 0o644 };
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                .map_err(io(&path))?;
        }
        written.push(path);
    }
    Ok(written)
}

pub(crate) use harness_contract::sha256_hex;

/// The fairness ledger's path inside the bundle.
const LEDGER: &str = "ledger.json";

/// The generated ledger with the sidecar binary's sha256 added: the binary is built after the
/// code is generated, so only `bundle --out` knows it.
fn with_binary_digest(ledger: &str, paths: &[&str], binary: &[u8]) -> String {
    let Ok(serde_json::Value::Object(mut object)) = serde_json::from_str(ledger) else {
        return ledger.to_owned();
    };
    object.insert(
        "binary".to_owned(),
        serde_json::json!({
            "paths": paths,
            "sha256": sha256_hex(binary),
            "bytes": binary.len(),
        }),
    );
    let mut text =
        serde_json::to_string_pretty(&serde_json::Value::Object(object)).expect("plain JSON");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::{is_static_elf, with_binary_digest};

    #[test]
    fn the_ledger_gets_the_binarys_digest() {
        let ledger = with_binary_digest("{\"schema_version\": 1}\n", &["tests/x"], b"abc");
        let value: serde_json::Value = serde_json::from_str(&ledger).unwrap();
        assert_eq!(
            value["binary"]["sha256"],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(value["binary"]["paths"][0], "tests/x");
        assert_eq!(value["schema_version"], 1);
    }

    #[test]
    fn recognises_this_test_binary() {
        let bytes = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert!(is_static_elf(&bytes).is_some());
        assert_eq!(is_static_elf(b"#!/bin/sh\n"), None);
        assert_eq!(is_static_elf(&[0x7f, b'E', b'L', b'F']), None);
    }
}
