//! The shape of the three library crates, checked from their source: no module circles in
//! `contract/src`, `codegen/src` and `runtime/src`, and no Rust file over 600 lines in them or
//! anywhere else in the repository (tests, examples, benchmarks, the command line, the book's
//! checker, fuzz targets; `target` directories and hidden ones left out).
//!
//! A module is a file (`mod x;`, `#[path]` honoured) or an inline `mod x { }` block. Module M
//! depends on module T when M's own code names T: a `use` tree, or a path anywhere in its
//! code (expressions, types, patterns, the arguments of macros other than `quote!`), that
//! starts with `crate::`, `super::`, `self::` or the name of one of M's child modules, and
//! whose prefix names T (the deepest module the path goes through: `crate::model::Builder`
//! names `model`, `use super::*` names the parent). A child naming an ancestor is an edge, and
//! so is a parent naming its child; the `mod x;` line itself is not. Every strongly connected
//! component of more than one module is a circle, reported with the paths that close it.
//!
//! The oracle is a parser and a graph walk of its own (syn, no compiler): `tree.rs` loads a
//! crate's modules and finds the circles, `paths.rs` collects the paths a module writes, and
//! `oracle.rs` checks both on inline sources.

mod oracle;
mod paths;
mod tree;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tree::{Disk, ModuleTree};

/// Longest Rust file allowed anywhere in the repository.
const MAX_LINES: usize = 600;

#[test]
fn contract_has_no_module_circle() {
    assert_no_circle("contract");
}

#[test]
fn codegen_has_no_module_circle() {
    assert_no_circle("codegen");
}

#[test]
fn runtime_has_no_module_circle() {
    assert_no_circle("runtime");
}

#[test]
fn no_file_in_contract_or_codegen_exceeds_600_lines() {
    assert_short_files(&library_files(&["contract", "codegen"]));
}

#[test]
fn no_file_in_runtime_exceeds_600_lines() {
    assert_short_files(&library_files(&["runtime"]));
}

/// The rule is the same outside the libraries' `src`: a test file over 600 lines is split by
/// concern as a module is.
#[test]
fn no_other_rust_file_in_the_repository_exceeds_600_lines() {
    let libraries = library_files(&LIBRARIES);
    let others: Vec<PathBuf> = rust_files(&repository())
        .into_iter()
        .filter(|file| !libraries.contains(file))
        .collect();
    assert!(
        others.len() > 100,
        "the walk found only {} files",
        others.len()
    );
    assert_short_files(&others);
}

const LIBRARIES: [&str; 3] = ["contract", "codegen", "runtime"];

/// Every `.rs` file under the `src` of each of `crates`.
fn library_files(crates: &[&str]) -> Vec<PathBuf> {
    let root = repository();
    crates
        .iter()
        .flat_map(|name| rust_files(&root.join(name).join("src")))
        .collect()
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted, leaving out `target` directories (build output) and
/// hidden ones (`.git`).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a readable directory").path();
            if path.is_dir() {
                let name = path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .unwrap_or("");
                if name != "target" && !name.starts_with('.') {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn assert_short_files(files: &[PathBuf]) {
    let root = repository();
    let mut offenders = Vec::new();
    for file in files {
        let lines = std::fs::read_to_string(file)
            .expect("a readable source file")
            .lines()
            .count();
        if lines > MAX_LINES {
            let relative = file.strip_prefix(&root).unwrap_or(file);
            offenders.push(format!("{}: {lines} lines", relative.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "files over {MAX_LINES} lines (split them by concern):\n  {}",
        offenders.join("\n  ")
    );
}

/// Parses every crate root under `<name>/src` (lib.rs, main.rs, src/bin/*) and fails with every
/// circle found, and with every source file no root reaches.
fn assert_no_circle(name: &str) {
    let repository = repository();
    let src = repository.join(name).join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|file| src.join(file))
        .filter(|path| path.exists())
        .collect();
    let bin = src.join("bin");
    if bin.is_dir() {
        let is_bin_root = |path: &PathBuf| {
            path.parent() == Some(bin.as_path())
                || (path.ends_with("main.rs") && path.parent().and_then(Path::parent) == Some(&bin))
        };
        roots.extend(rust_files(&bin).into_iter().filter(is_bin_root));
    }
    assert!(!roots.is_empty(), "{name} has no crate root");
    let mut report = String::new();
    let mut reached = BTreeSet::new();
    for root in &roots {
        let label = root
            .strip_prefix(&repository)
            .unwrap_or(root)
            .display()
            .to_string();
        match ModuleTree::load(root, &Disk) {
            Err(problems) => {
                writeln!(report, "{label}: {}", problems.join("; ")).expect("a string");
            }
            Ok(tree) => {
                reached.extend(tree.modules.iter().map(|module| module.file.clone()));
                for circle in tree.circles() {
                    writeln!(report, "{label}: {circle}").expect("a string");
                }
            }
        }
    }
    for file in rust_files(&src) {
        if !reached.contains(&file) {
            let relative = file.strip_prefix(&repository).unwrap_or(&file);
            writeln!(
                report,
                "{}: no crate root declares this file",
                relative.display()
            )
            .expect("a string");
        }
    }
    let report = report.replace(&format!("{}/", repository.display()), "");
    assert!(report.is_empty(), "module circles in {name}:\n{report}");
}
