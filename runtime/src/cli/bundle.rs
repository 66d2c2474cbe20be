//! Writing the Harbor task directory embedded in the binary (`bundle --out DIR`), with the
//! binary itself where the sidecar and verifier images expect it.

use std::path::{Path, PathBuf};

use crate::cli::error::{BundleError, CliError};
use crate::cli::shared::print_line;
use crate::server::GeneratedServer;
use crate::spec::BundleSpec;

#[derive(Debug, clap::Args)]
pub(crate) struct BundleArgs {
    /// The directory to write.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite the bundle's files in a non-empty directory.
    #[arg(long)]
    force: bool,
    /// The server binary to ship (default: this executable). It must be static.
    #[arg(long)]
    binary: Option<PathBuf>,
    /// Write the bundle with a dynamically linked binary (for inspection only: the
    /// FROM scratch sidecar cannot run it).
    #[arg(long)]
    allow_dynamic: bool,
}

/// Writes the bundle and prints its paths; exit code 0.
pub(crate) fn run<S: GeneratedServer>(server: &S, args: BundleArgs) -> Result<u8, CliError> {
    let binary = match args.binary {
        Some(binary) => binary,
        None => std::env::current_exe().map_err(CliError::CurrentExe)?,
    };
    let out = args.out;
    let written = write_bundle(
        server.bundle(),
        &out,
        &binary,
        args.force,
        args.allow_dynamic,
    )?;
    for path in written {
        print_line(&path.display().to_string())?;
    }
    // The paths go to stdout (for scripts); what to do next goes to stderr.
    eprintln!(
        "\nThe Harbor task is in {dir}. Next:\n  \
         harbor trial start -p {dir} -a <agent> -e docker   # one trial with Harbor 0.18\n  \
         harbor run -p {dir} -a <agent> -e docker -o jobs -y  # a job\n\
         Its images pin registry bases; where no registry is reachable, set \
         HARNESS_MAIN_BASE_IMAGE for main and build tests/ with --build-arg \
         VERIFIER_BASE_IMAGE=<image>, or run ./scripts/compose-proof.sh, which does.",
        dir = out.display()
    );
    Ok(0)
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
