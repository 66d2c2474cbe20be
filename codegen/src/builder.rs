//! The build-script entry point: read the manifest, run the three stages, write OUT_DIR.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::diagnostics::ManifestErrors;
use crate::emit::{Artifacts, EmitOptions, emit_all};
use crate::model::{self, Model};

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The manifest could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The manifest path.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The manifest has errors.
    #[error("{0}")]
    Manifest(#[from] ManifestErrors),
    /// Tools in the manifest have no body file.
    #[error("{}", render_missing(.0))]
    MissingBodies(Vec<MissingBody>),
    /// Tool bodies exist but `mod.rs` does not declare their modules.
    #[error("{}", render_undeclared(mod_rs, modules))]
    UndeclaredModules {
        /// The tools directory's `mod.rs`.
        mod_rs: PathBuf,
        /// The modules it lacks.
        modules: Vec<String>,
    },
    /// An artifact could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The artifact path.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

/// A tool whose body file does not exist yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingBody {
    /// The MCP tool name.
    pub tool: String,
    /// The file to write.
    pub file: PathBuf,
}

fn render_missing(missing: &[MissingBody]) -> String {
    let mut text = String::new();
    for body in missing {
        text.push_str(&format!(
            "error: tool `{}` has no body: create {}\n",
            body.tool,
            body.file.display()
        ));
    }
    text.push_str("help: `harness-codegen scaffold` (in this repository `cargo run -p harness-codegen-cli -- scaffold`) writes a stub for every missing body (it never overwrites a file)\n");
    text
}

fn render_undeclared(mod_rs: &Path, modules: &[String]) -> String {
    let declarations: Vec<String> = modules
        .iter()
        .map(|module| format!("pub(crate) mod {module};"))
        .collect();
    format!(
        "error: {} does not declare the module of every tool: add {}\nhelp: `harness-codegen scaffold` (in this repository `cargo run -p harness-codegen-cli -- scaffold`) appends them\n",
        mod_rs.display(),
        declarations.join(" ")
    )
}

/// Validates manifest text into the model; `file_name` is used in error messages and files
/// the manifest names are read relative to `base_dir`.
pub fn load(source: &str, file_name: &str, base_dir: &Path) -> Result<Model, ManifestErrors> {
    match crate::manifest::parse(source) {
        Err((map, diagnostics)) => Err(ManifestErrors::new(
            file_name,
            source,
            map.as_ref(),
            diagnostics,
        )),
        Ok(parsed) => {
            let mut diagnostics = parsed.unknown_keys;
            let model = model::build(&parsed.manifest, source, base_dir)
                .map_err(|errors| diagnostics.extend(errors))
                .ok();
            match model {
                Some(model) if diagnostics.is_empty() => Ok(model),
                _ => Err(ManifestErrors::new(
                    file_name,
                    source,
                    Some(&parsed.source_map),
                    diagnostics,
                )),
            }
        }
    }
}

/// Generates every artifact from manifest text; files the manifest names are read relative to
/// `base_dir`.
pub fn generate(
    source: &str,
    base_dir: &Path,
    options: &EmitOptions,
) -> Result<Artifacts, ManifestErrors> {
    let model = load(source, &options.manifest_name, base_dir)?;
    Ok(emit_all(&model, options))
}

/// What a successful build produced.
#[derive(Debug)]
pub struct BuildOutput {
    /// Every artifact path under the output directory.
    pub files: Vec<PathBuf>,
    /// The artifacts whose content changed (and were therefore rewritten).
    pub changed: Vec<PathBuf>,
    /// Every file the output depends on, for `cargo::rerun-if-changed`.
    pub inputs: Vec<PathBuf>,
}

/// Configures generation for a build script.
#[derive(Debug, Clone)]
pub struct Builder {
    manifest: PathBuf,
    out_dir: PathBuf,
    package_root: PathBuf,
    tools_dir: String,
    check_bodies: bool,
    out_prefix: String,
}

impl Builder {
    /// Generation of `manifest` (relative to `package_root`) into `out_dir`.
    pub fn new(
        package_root: impl Into<PathBuf>,
        manifest: impl Into<PathBuf>,
        out_dir: impl Into<PathBuf>,
    ) -> Self {
        Self {
            manifest: manifest.into(),
            out_dir: out_dir.into(),
            package_root: package_root.into(),
            tools_dir: "src/tools".to_owned(),
            check_bodies: true,
            out_prefix: String::new(),
        }
    }

    /// For a build script: the package root and OUT_DIR from cargo's environment, the
    /// manifest `harness.toml`. Change either path with [`Builder::manifest`] and
    /// [`Builder::tools_dir`], then call [`Builder::run_build_script`]:
    ///
    /// ```no_run
    /// // build.rs
    /// fn main() -> std::process::ExitCode {
    ///     harness_codegen::Builder::from_cargo_env()
    ///         .manifest("config/harness.toml")
    ///         .tools_dir("src/mcp_tools")
    ///         .run_build_script()
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// Outside a build script, where cargo sets neither `CARGO_MANIFEST_DIR` nor `OUT_DIR`.
    pub fn from_cargo_env() -> Self {
        let root = std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("cargo sets CARGO_MANIFEST_DIR for build scripts");
        let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
        Self::new(root, "harness.toml", out_dir)
    }

    /// The manifest, relative to the package root (default `harness.toml`).
    pub fn manifest(mut self, manifest: impl Into<PathBuf>) -> Self {
        self.manifest = manifest.into();
        self
    }

    /// Where tool bodies live, relative to the package root (default `src/tools`).
    pub fn tools_dir(mut self, tools_dir: impl Into<String>) -> Self {
        self.tools_dir = tools_dir.into();
        self
    }

    /// Whether a missing body file fails the build (default true; off for code that only
    /// needs the types, such as fixture tests).
    pub fn check_bodies(mut self, check: bool) -> Self {
        self.check_bodies = check;
        self
    }

    /// Where `out_dir` sits inside OUT_DIR (e.g. `fixture/`), so generated `include_str!`s
    /// find the bundle files; empty when `out_dir` is OUT_DIR itself.
    pub fn out_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.out_prefix = prefix.into();
        self
    }

    /// The manifest path, for `rerun-if-changed`.
    pub fn manifest_path(&self) -> PathBuf {
        self.package_root.join(&self.manifest)
    }

    /// [`Builder::build`] as a build script: `rerun-if-changed` for the manifest, the tools
    /// directory (a new or removed body file changes whether the build can succeed) and
    /// every file the manifest names; on failure every problem on stderr and a
    /// `cargo::error`, so cargo shows them.
    pub fn run_build_script(&self) -> std::process::ExitCode {
        println!("cargo::rerun-if-changed={}", self.manifest.display());
        println!("cargo::rerun-if-changed={}", self.tools_dir);
        match self.build() {
            Ok(output) => {
                for input in output.inputs {
                    println!("cargo::rerun-if-changed={}", input.display());
                }
                std::process::ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("{error}");
                println!(
                    "cargo::error={} cannot be built; every problem is listed below",
                    self.manifest.display()
                );
                std::process::ExitCode::FAILURE
            }
        }
    }

    /// Runs every stage and writes the artifacts that changed.
    pub fn build(&self) -> Result<BuildOutput, BuildError> {
        let path = self.manifest_path();
        let source = fs::read_to_string(&path).map_err(|source| BuildError::Read {
            path: path.clone(),
            source,
        })?;
        let base_dir = path
            .parent()
            .map_or_else(|| self.package_root.clone(), Path::to_path_buf);
        let options = EmitOptions {
            manifest_name: self.manifest.display().to_string(),
            tools_dir: self.tools_dir.clone(),
            out_prefix: self.out_prefix.clone(),
        };
        let model = load(&source, &options.manifest_name, &base_dir)?;
        if self.check_bodies {
            let missing = missing_bodies(&model, &self.package_root, &self.tools_dir);
            if !missing.is_empty() {
                return Err(BuildError::MissingBodies(missing));
            }
            let mod_rs = self.package_root.join(&self.tools_dir).join("mod.rs");
            if let Ok(text) = fs::read_to_string(&mod_rs) {
                let modules: Vec<&str> = model
                    .tools
                    .iter()
                    .filter(|tool| tool.has_user_body())
                    .map(|tool| tool.module.as_str())
                    .collect();
                let undeclared = crate::scaffold::undeclared_modules(&text, &modules);
                if !undeclared.is_empty() {
                    return Err(BuildError::UndeclaredModules {
                        mod_rs,
                        modules: undeclared.into_iter().map(str::to_owned).collect(),
                    });
                }
            }
        }
        let mut output = write_artifacts(&self.out_dir, &emit_all(&model, &options))?;
        output.inputs = std::iter::once(path).chain(model.inputs).collect();
        Ok(output)
    }
}

/// The body files of `model`'s tools that do not exist under `package_root`.
pub fn missing_bodies(model: &Model, package_root: &Path, tools_dir: &str) -> Vec<MissingBody> {
    model
        .tools
        .iter()
        .filter(|tool| tool.has_user_body())
        .map(|tool| MissingBody {
            tool: tool.name.clone(),
            file: Path::new(tools_dir).join(format!("{}.rs", tool.module)),
        })
        .filter(|body| !package_root.join(&body.file).exists())
        .collect()
}

/// Writes each artifact under `out_dir`, touching only files whose content changed so
/// cargo does not recompile what did not change.
pub fn write_artifacts(out_dir: &Path, artifacts: &Artifacts) -> Result<BuildOutput, BuildError> {
    let mut output = BuildOutput {
        files: Vec::new(),
        changed: Vec::new(),
        inputs: Vec::new(),
    };
    for (relative, text) in artifacts {
        let path = out_dir.join(relative);
        let write_error = |source| BuildError::Write {
            path: path.clone(),
            source,
        };
        if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(write_error)?;
            }
            fs::write(&path, text).map_err(write_error)?;
            output.changed.push(path.clone());
        }
        output.files.push(path);
    }
    Ok(output)
}

/// The whole build script of a generated server, so each crate's build.rs is one line:
/// `fn main() -> std::process::ExitCode { harness_codegen::build_script() }`.
///
/// The same as `Builder::from_cargo_env().run_build_script()`: generates from `harness.toml`
/// into OUT_DIR (and nowhere else), prints `rerun-if-changed` for the manifest, every file it
/// names and `src/tools`, and fails the build with every problem listed.
pub fn build_script() -> std::process::ExitCode {
    Builder::from_cargo_env().run_build_script()
}
