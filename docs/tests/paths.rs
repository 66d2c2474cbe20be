//! Every repository path the book, README.md and ARCHITECTURE.md name in inline code exists:
//! a span such as `runtime/src/pipeline/refusal.rs` or `examples/paging/` that starts with a
//! top-level folder of the repository. Placeholders (`<name>`, `*`, `...`) are not paths, and
//! neither are the files of a generated Harbor task, which share some folder names.

use std::path::PathBuf;

use harness_book::snippets::{inline_code, markdown_files};

/// Top-level folders whose paths are checked.
const ROOTS: &[&str] = &[
    "contract/",
    "codegen/",
    "cli/",
    "runtime/",
    "examples/",
    "tests/",
    "bench/",
    "fuzz/",
    "scripts/",
    "docs/",
    ".ci/",
];

/// Paths of a generated Harbor task (`bundle --out DIR`), not of this repository.
const BUNDLE_PATHS: &[&str] = &[
    "tests/test.sh",
    "tests/Dockerfile",
    "tests/docker-compose.yaml",
    "tests/judge.toml",
    "tests/monitor-mcp",
];

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("docs/ is in the repository")
        .to_path_buf()
}

#[test]
fn every_repository_path_named_exists() {
    let repository = repository();
    let mut files = markdown_files(&repository.join("docs/src"));
    files.push(repository.join("README.md"));
    files.push(repository.join("ARCHITECTURE.md"));
    files.push(repository.join(".ci/README.md"));
    let mut missing = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a page");
        for (line, code) in inline_code(&text) {
            let path = code.split([' ', ':']).next().unwrap_or("");
            if !ROOTS.iter().any(|root| path.starts_with(root))
                || path.contains(['<', '*', '{', '$'])
                || path.contains("...")
                || BUNDLE_PATHS.contains(&path)
            {
                continue;
            }
            if !repository.join(path).exists() {
                let shown = file.strip_prefix(&repository).unwrap_or(&file).display();
                missing.push(format!("{shown}:{line}: {path}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named in the docs that do not exist:\n{}",
        missing.join("\n")
    );
}
