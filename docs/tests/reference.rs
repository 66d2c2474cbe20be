//! The generated pages of the book's Reference are what generation gives, as rust-analyzer's
//! sourcegen tests do: a page that differs fails with the command that rewrites it,
//! `UPDATE_DOCS=1 cargo test -p harness-book`, which writes it instead.

use std::path::{Path, PathBuf};

use harness_book::reference;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("docs/ is in the repository")
        .to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Compares `page` (under docs/src/reference) with `generated`, or writes it.
fn ensure(page: &str, generated: &str) {
    let path = repository().join("docs/src/reference").join(page);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == generated {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, generated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let first = committed
        .lines()
        .zip(generated.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
    panic!(
        "docs/src/reference/{page} is not what generation gives (first difference at line {}); \
         run `UPDATE_DOCS=1 cargo test -p harness-book` and commit the page",
        first + 1
    );
}

#[test]
fn the_manifest_reference_is_generated_from_the_schema() {
    let pages = reference::manifest_pages();
    assert_eq!(
        pages,
        reference::manifest_pages(),
        "generation is deterministic"
    );
    for (file, page) in pages {
        ensure(file, &page);
    }
}

#[test]
fn the_error_reference_is_generated_from_the_refusal_table() {
    let root = repository();
    let page = reference::errors_page(
        &read(&root.join("runtime/src/pipeline/envelope.rs")),
        &read(&root.join("contract/src/audit.rs")),
    );
    ensure("errors.md", &page);
}

#[test]
fn the_cli_reference_is_generated_from_clap() {
    let page = harness_book::cli::cli_page();
    assert_eq!(
        page,
        harness_book::cli::cli_page(),
        "generation is deterministic"
    );
    ensure("cli.md", &page);
}
