//! The schema files an import writes beside the manifest, staged before anything is written.
//!
//! A staged file is written to a scratch directory outside the project, and the manifest is
//! checked by the model with the `input_schema` values that name staged files pointing
//! there: the build's own validation sees the file's content, so a file it would refuse is
//! never written, and `--dry-run` writes nothing in the project. Once the whole result
//! validates, the files are written in place (a new file only where there is none, a
//! rewritten one only if it is still what was read), before the manifest, and taken back if
//! the manifest cannot be written after them.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use toml_edit::DocumentMut;

use crate::builder;
use crate::import::edit;
use crate::import::error::ImportError;
use crate::model::Model;

/// One schema file import would write.
#[derive(Debug)]
pub(crate) struct Staged {
    /// The path as the manifest's `input_schema` says it, relative to its directory.
    pub(crate) file: String,
    /// The content to write.
    pub(crate) text: String,
    /// Its content when import read it (`None`: there was no file).
    pub(crate) previous: Option<String>,
    /// Where it is staged.
    scratch: PathBuf,
}

/// The staged schema files of one import, in a scratch directory removed on drop.
#[derive(Debug, Default)]
pub(crate) struct Staging {
    dir: Option<Scratch>,
    files: Vec<Staged>,
}

/// A scratch directory, removed with everything in it on drop.
#[derive(Debug)]
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        // Best effort: the directory is the system's temporary one.
        let _ = fs::remove_dir_all(&self.0);
    }
}

impl Scratch {
    fn create() -> Result<Self, ImportError> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir =
                std::env::temp_dir().join(format!("harness-import-{}-{n}", std::process::id()));
            match fs::create_dir(&dir) {
                Ok(()) => return Ok(Self(dir)),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(source) => return Err(ImportError::Stage { path: dir, source }),
            }
        }
    }
}

/// The text of `path`, `None` when there is no such file.
pub(crate) fn read_optional(path: &Path) -> io::Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

impl Staging {
    /// Stages `text` as `file` (replacing what was staged there); `previous` is the file's
    /// content as read (`None`: there is none).
    pub(crate) fn stage(
        &mut self,
        file: &str,
        text: String,
        previous: Option<String>,
    ) -> Result<(), ImportError> {
        self.unstage(file);
        if self.dir.is_none() {
            self.dir = Some(Scratch::create()?);
        }
        let dir = &self.dir.as_ref().expect("created above").0;
        let scratch = (0..)
            .map(|n| dir.join(format!("{n}.json")))
            .find(|path| !self.files.iter().any(|staged| &staged.scratch == path))
            .expect("an unused name");
        fs::write(&scratch, &text).map_err(|source| ImportError::Stage {
            path: scratch.clone(),
            source,
        })?;
        self.files.push(Staged {
            file: file.to_owned(),
            text,
            previous,
            scratch,
        });
        Ok(())
    }

    /// Drops what is staged as `file`.
    pub(crate) fn unstage(&mut self, file: &str) {
        self.files.retain(|staged| staged.file != file);
    }

    /// The staged files, in the order they were staged.
    pub(crate) fn files(&self) -> &[Staged] {
        &self.files
    }

    /// The model of `source` as it will be once the staged files are written, or the
    /// model's errors rendered (naming the files as the manifest does).
    pub(crate) fn load(&self, source: &str, name: &str, base_dir: &Path) -> Result<Model, String> {
        let render = |errors: crate::ManifestErrors| errors.render_plain();
        if self.files.is_empty() {
            return builder::load(source, name, base_dir).map_err(render);
        }
        let mut doc: DocumentMut = source.parse().map_err(|error| format!("{error}"))?;
        edit::redirect_input_schemas(&mut doc, |file| {
            self.files
                .iter()
                .find(|staged| staged.file == file)
                .map(|staged| staged.scratch.display().to_string())
        });
        builder::load(&doc.to_string(), name, base_dir).map_err(|errors| {
            self.files.iter().fold(render(errors), |text, staged| {
                // The path, and the carets under the quoted value that held it.
                let scratch = staged.scratch.display().to_string();
                let carets = |path: &str| "^".repeat(path.chars().count() + 2);
                text.replace(&scratch, &staged.file)
                    .replace(&carets(&scratch), &carets(&staged.file))
            })
        })
    }

    /// Writes the staged files beside the manifest (in `base_dir`). A file that is no longer
    /// what import read stops the writing, and what was written is taken back.
    pub(crate) fn write(&self, base_dir: &Path) -> Result<Written, ImportError> {
        let mut written = Written(Vec::new());
        for staged in &self.files {
            if let Err(error) = written.write(base_dir, staged) {
                written.undo();
                return Err(error);
            }
        }
        Ok(written)
    }
}

/// The files [`Staging::write`] wrote, to take back if what follows fails.
#[derive(Debug)]
pub(crate) struct Written(Vec<Undo>);

#[derive(Debug)]
struct Undo {
    path: PathBuf,
    previous: Option<String>,
    /// Directories created for it, deepest first.
    created: Vec<PathBuf>,
}

impl Written {
    fn write(&mut self, base_dir: &Path, staged: &Staged) -> Result<(), ImportError> {
        let path = base_dir.join(&staged.file);
        let write_error = |source| ImportError::Write {
            path: path.clone(),
            source,
        };
        let now = read_optional(&path).map_err(|source| ImportError::Read {
            path: path.clone(),
            source,
        })?;
        if now != staged.previous {
            return Err(ImportError::Changed { path });
        }
        let mut created = Vec::new();
        let mut dir = path.parent();
        while let Some(missing) = dir.filter(|dir| !dir.as_os_str().is_empty() && !dir.exists()) {
            created.push(missing.to_owned());
            dir = missing.parent();
        }
        let forget_dirs = |created: &[PathBuf]| {
            for dir in created {
                let _ = fs::remove_dir(dir);
            }
        };
        if let Some(parent) = path.parent()
            && let Err(source) = fs::create_dir_all(parent)
        {
            forget_dirs(&created);
            return Err(write_error(source));
        }
        let undo = Undo {
            path: path.clone(),
            previous: staged.previous.clone(),
            created,
        };
        if staged.previous.is_some() {
            self.0.push(undo);
            return fs::write(&path, &staged.text).map_err(write_error);
        }
        // A new file: never over one that appeared since import looked.
        let opened = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path);
        let mut file = match opened {
            Ok(file) => file,
            Err(source) => {
                forget_dirs(&undo.created);
                return Err(if source.kind() == io::ErrorKind::AlreadyExists {
                    ImportError::Changed { path }
                } else {
                    write_error(source)
                });
            }
        };
        self.0.push(undo);
        file.write_all(staged.text.as_bytes()).map_err(write_error)
    }

    /// Puts back what was there before (best effort: this runs on the way out of a failure).
    pub(crate) fn undo(self) {
        for undo in self.0.into_iter().rev() {
            let _ = match &undo.previous {
                Some(text) => fs::write(&undo.path, text),
                None => fs::remove_file(&undo.path),
            };
            for dir in &undo.created {
                let _ = fs::remove_dir(dir);
            }
        }
    }
}
