//! What every new project is made of, a server of one's own or a gateway: where the harness
//! crates come from, the package name its directory gives, `Cargo.toml`, `build.rs`, the
//! manifest's server sections (with the starting output caps), and the writing of the files.

use std::io;
use std::path::{Path, PathBuf};

/// The output caps a new project's `[defaults.guards]` starts with, and that `import` gives
/// each tool it adds to a manifest whose `[defaults.guards]` lacks one: a context that
/// cannot be flooded from the first build; a user raises them on purpose.
pub const STARTING_OUTPUT_CAPS: &[(&str, u64)] = &[("max_chars", 20_000), ("max_lines", 500)];

/// Where the new project takes harness-runtime and harness-codegen from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A checkout of this repository.
    Path(PathBuf),
    /// A git URL of this repository.
    Git(String),
}

impl Source {
    /// The checkout harness-codegen was built from.
    pub fn this_checkout() -> Self {
        Source::Path(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
    }

    fn dependency(&self, crate_dir: &str) -> String {
        match self {
            Source::Path(root) => {
                let path = root.join(crate_dir);
                let path = path.canonicalize().unwrap_or(path);
                format!("{{ path = {:?} }}", path.display().to_string())
            }
            Source::Git(url) => format!("{{ git = {url:?} }}"),
        }
    }
}

/// Why `new` refused.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    /// The directory exists and has files.
    #[error("{0} exists and is not empty; `new` never overwrites a file")]
    NotEmpty(PathBuf),
    /// The directory's name cannot be a package name.
    #[error("{0:?} cannot be a Cargo package name: use ASCII letters, digits, `-` and `_`")]
    BadName(String),
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

/// The package name `dir` gives, when `dir` may be written: its last component, a Cargo
/// package name, and the directory absent or empty.
pub(super) fn package_name(dir: &Path) -> Result<String, NewError> {
    if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(NewError::NotEmpty(dir.to_owned()));
    }
    let name = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(NewError::BadName(name));
    }
    Ok(name)
}

/// The `#:schema` line that points an editor at the manifest's JSON Schema (a checkout has
/// it beside the crates).
pub(super) fn schema_line(source: &Source) -> String {
    match source {
        Source::Path(root) => {
            let schema = root.join("harness.schema.json");
            let schema = schema.canonicalize().unwrap_or(schema);
            format!("#:schema {}\n", schema.display())
        }
        Source::Git(_) => String::new(),
    }
}

/// Writes each `(relative path, text)` under `dir`; returns the paths written.
pub(super) fn write_files<const N: usize>(
    dir: &Path,
    files: [(&str, String); N],
) -> Result<Vec<PathBuf>, NewError> {
    let mut written = Vec::new();
    for (relative, text) in files {
        let path = dir.join(relative);
        let write = || {
            std::fs::create_dir_all(path.parent().expect("a file in the project"))?;
            std::fs::write(&path, text)
        };
        write().map_err(|source| NewError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

pub(super) const BUILD_RS: &str =
    "fn main() -> std::process::ExitCode {\n    harness_codegen::build_script()\n}\n";

pub(super) fn cargo_toml(name: &str, source: &Source) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

# A project of its own, even when created inside another workspace.
[workspace]

[dependencies]
harness-runtime = {runtime}
serde = {{ version = "1", features = ["derive"] }}
serde_json = {{ version = "1", features = ["preserve_order"] }}

[build-dependencies]
harness-codegen = {codegen}
"#,
        runtime = source.dependency("runtime"),
        codegen = source.dependency("codegen"),
    )
}

/// `[server]`, `[transport]`, `[defaults.guards]` (the output caps) and `[audit]` of a new
/// project's manifest.
pub(super) fn server_sections(name: &str, instructions: &str) -> String {
    let caps: String = STARTING_OUTPUT_CAPS
        .iter()
        .map(|(key, value)| format!("{key} = {value}\n"))
        .collect();
    format!(
        r#"[server]
name = "{name}"
version = "0.1.0"
instructions = "{instructions}"

[transport]
kind = "streamable-http"
bind = "127.0.0.1:8765"

# What one call may put in the model's context, at most, for every tool: a tool that needs
# more says so in its own [tools.guards], on purpose.
[defaults.guards]
{caps}
[audit]
path = "/var/log/{name}/audit.jsonl"
"#
    )
}
