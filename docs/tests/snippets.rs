//! Every ```` ```toml ```` block of the book and of README.md that is a `harness.toml` (see
//! `harness_book::snippets` for the rule) passes the real model, and every page with
//! ```` ```rust ```` blocks is compiled as doc tests (listed in lib.rs).

use std::path::{Path, PathBuf};

use harness_book::snippets::{check_manifest, code_blocks, markdown_files};

fn docs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn repository() -> PathBuf {
    docs()
        .parent()
        .expect("docs/ is in the repository")
        .to_path_buf()
}

/// The book's pages and the README, as (path shown in errors, text).
fn pages() -> Vec<(String, String)> {
    let repository = repository();
    let mut files = markdown_files(&docs().join("src"));
    files.push(repository.join("README.md"));
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let shown = file
                .strip_prefix(&repository)
                .unwrap_or(&file)
                .display()
                .to_string();
            (shown, text)
        })
        .collect()
}

#[test]
fn every_manifest_snippet_passes_the_model() {
    let repository = repository();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (page, text) in pages() {
        for block in code_blocks(&text).iter().filter(|b| b.is_manifest()) {
            checked += 1;
            if let Err(error) = check_manifest(block, &page, &repository) {
                failures.push(error);
            }
        }
    }
    assert!(checked > 10, "only {checked} manifest snippets found");
    assert!(
        failures.is_empty(),
        "{} of {checked} manifest snippets fail (mark a toml block that is not a harness.toml \
         `toml,not-manifest`):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_page_with_rust_snippets_is_compiled() {
    let docs = docs();
    let missing: Vec<String> = markdown_files(&docs.join("src"))
        .into_iter()
        .filter(|file| {
            let text = std::fs::read_to_string(file).expect("a page");
            code_blocks(&text).iter().any(|b| b.language == "rust")
        })
        .map(|file| relative(&file, &docs))
        .filter(|page| !harness_book::PAGES_WITH_RUST.contains(&page.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "pages with ```rust blocks that docs/lib.rs does not compile; add each to `pages!`: {missing:?}"
    );
}

#[test]
fn the_block_reader_finds_indented_fences_and_attributes() {
    let page = "text\n\n1. a step\n\n   ```toml,not-manifest\n   [a]\n   b = 1\n   ```\n\n```rust,ignore\nfn x() {}\n```\n";
    let blocks = code_blocks(page);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].line, 5);
    assert_eq!(blocks[0].language, "toml");
    assert!(!blocks[0].is_manifest());
    assert_eq!(blocks[0].text, "[a]\nb = 1\n");
    assert_eq!(blocks[1].attributes, ["ignore"]);
}

fn relative(file: &Path, base: &Path) -> String {
    file.strip_prefix(base)
        .expect("under docs/")
        .display()
        .to_string()
}

/// The manifest "A server of your own" shows is the one `harness-codegen new` writes, so the
/// page cannot drift from the command (the caps in `[defaults.guards]` included).
#[test]
fn the_first_server_page_shows_the_manifest_new_writes() {
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("my-server");
    harness_codegen::new_project::create(
        &project,
        &harness_codegen::new_project::Source::this_checkout(),
    )
    .expect("new writes the project");
    let written = std::fs::read_to_string(project.join("harness.toml")).unwrap();
    let written = &written[written.find("[server]").expect("a [server] table")..];
    let page = std::fs::read_to_string(docs().join("src/getting-started/first-server.md")).unwrap();
    let shown = code_blocks(&page)
        .into_iter()
        .find(|block| block.is_manifest())
        .expect("the page shows the manifest");
    assert_eq!(shown.text.trim(), written.trim());
    assert!(written.contains("[defaults.guards]\nmax_chars = 20000\nmax_lines = 500"));
}
