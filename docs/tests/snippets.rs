//! Every ```` ```toml ```` block of the book and of README.md that is a `harness.toml` (see
//! `harness_book::snippets` for the rule) passes the real model, every shell command shown
//! names what the real command lines accept (`harness_book::shell`), and every page with
//! ```` ```rust ```` blocks is compiled as doc tests (listed in lib.rs).

use std::path::{Path, PathBuf};

use harness_book::shell::{self, Repository, SHELL_LANGUAGES};
use harness_book::snippets::{check_manifest, code_blocks, inline_code, markdown_files};

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

/// Every ```` ```sh ```` block's commands parse with the command lines they run (nothing is
/// run), and every inline `harness-codegen ...`, `cargo run ...` or `./scripts/...` span names
/// a subcommand and flags that exist.
#[test]
fn every_shell_snippet_names_what_the_command_lines_accept() {
    let repository = Repository::load(&repository()).expect("the workspace's packages");
    let mut failures = Vec::new();
    let (mut blocks, mut ignored, mut spans) = (0, 0, 0);
    for (page, text) in pages() {
        for block in code_blocks(&text)
            .iter()
            .filter(|b| SHELL_LANGUAGES.contains(&b.language.as_str()))
        {
            blocks += 1;
            ignored += usize::from(block.attributes.iter().any(|a| a == "ignore"));
            failures.extend(shell::check_block(block, &page, &repository));
        }
        for (line, span) in inline_code(&text) {
            if let Some(checked) = shell::check_inline(&span, &repository) {
                spans += 1;
                if let Err(error) = checked {
                    failures.push(format!("{page}:{line}: `{span}`: {error}"));
                }
            }
        }
    }
    assert!(
        blocks - ignored >= 8 && spans >= 20,
        "only {blocks} shell blocks ({ignored} ignored) and {spans} inline commands found"
    );
    assert!(
        failures.is_empty(),
        "{} shell snippets name what the command lines refuse (a block of programs that \
         cannot be checked without running them is `sh,ignore`):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The checker itself: a typo in a flag, an unknown subcommand, a package that does not exist
/// and a program it does not know each fail, with the page and the line of the command.
#[test]
fn a_shell_snippet_with_a_typo_fails_with_its_page_and_line() {
    let repository = Repository::load(&repository()).expect("the workspace's packages");
    let page = "# A page\n\n```sh\nharness-codegen check          # fine\n\
                harness-codegen import everything \\\n    --dry-runn\n\
                cargo run --release -- serve --stateles\n\
                OPS=1 cargo run -p no-such-package -- tools\n\
                harness-codegen chekc\n\
                docker compose up\n```\n\n\
                ```sh,ignore\ncd /tmp && ./scripts/test.sh\n```\n\n\
                ```sh,ignore\nnpx @modelcontextprotocol/inspector\n```\n";
    let blocks = code_blocks(page);
    let failures: Vec<String> = blocks
        .iter()
        .flat_map(|block| shell::check_block(block, "page.md", &repository))
        .collect();
    let expected = [
        ("page.md:5:", "--dry-runn"),
        ("page.md:7:", "--stateles"),
        (
            "page.md:8:",
            "no package of this repository is named `no-such-package`",
        ),
        ("page.md:9:", "chekc"),
        (
            "page.md:10:",
            "`docker` is not a program this checker knows",
        ),
        ("page.md:13:", "drop `ignore`"),
    ];
    assert_eq!(failures.len(), expected.len(), "{failures:#?}");
    for ((place, what), failure) in expected.iter().zip(&failures) {
        assert!(
            failure.starts_with(place) && failure.contains(what),
            "{failure:?} should start with {place:?} and name {what:?}"
        );
    }
    let inline = |span: &str| shell::check_inline(span, &repository);
    assert!(inline("harness-codegen import NAME --update-pins").is_some_and(|r| r.is_ok()));
    assert!(inline("cargo run -- call greet --url").is_some_and(|r| r.is_ok()));
    let typo = inline("harness-codegen import NAME --update-pin").expect("a command");
    assert!(typo.is_err_and(|e| e.contains("--update-pin")));
    assert!(inline("./scripts/no-such-script.sh").is_some_and(|r| r.is_err()));
    assert!(inline("harness-codegen-cli").is_none());
}

#[test]
fn the_shell_reader_splits_commands_as_sh_does() {
    let text = "# a comment\nA=1 B='two words' cargo run -- call t '{\"a\": 1}' # why\n\
                harness-codegen new x --upstream -- \\\n  npx -y pkg /data && cd x; ./scripts/a.sh 2>&1 | tee log\n\
                harness-codegen schema > out.json\n";
    let commands = shell::split(text, 10).expect("the text splits");
    let shown: Vec<(usize, Vec<&str>)> = commands
        .iter()
        .map(|c| (c.line, c.words.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        shown,
        [
            (11, vec!["cargo", "run", "--", "call", "t", "{\"a\": 1}"]),
            (
                12,
                vec![
                    "harness-codegen",
                    "new",
                    "x",
                    "--upstream",
                    "--",
                    "npx",
                    "-y",
                    "pkg",
                    "/data"
                ]
            ),
            (13, vec!["cd", "x"]),
            (13, vec!["./scripts/a.sh"]),
            (13, vec!["tee", "log"]),
            (14, vec!["harness-codegen", "schema"]),
        ]
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
