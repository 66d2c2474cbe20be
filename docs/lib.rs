//! The book in `docs/src` (built by mdBook, `scripts/book.sh`), checked by `cargo test`:
//!
//! - every Rust snippet compiles: each page with ```` ```rust ```` blocks is a doc comment
//!   below, so its snippets are doc tests of this crate (against harness-runtime and the
//!   crates this one depends on); a block marked `ignore` says why next to it;
//! - every `harness.toml` snippet passes the real model (`tests/snippets.rs`; the rule that
//!   says which `toml` blocks are manifests is [`snippets`]'s);
//! - every shell command shown names what the real command lines accept, parsed by their clap
//!   definitions and never run (`tests/snippets.rs`; the rule, and the `sh,ignore` mark for
//!   blocks of other programs, are [`shell`]'s);
//! - the generated reference pages are what generation gives (`tests/reference.rs`;
//!   `UPDATE_DOCS=1 cargo test -p harness-book` rewrites them).

#[path = "check/cli.rs"]
pub mod cli;
#[path = "check/reference.rs"]
pub mod reference;
#[path = "check/shell.rs"]
pub mod shell;
#[path = "check/snippets.rs"]
pub mod snippets;

/// Each page with Rust snippets, as the doc comment of an empty module, so that rustdoc
/// compiles (and, unless `no_run`, runs) every snippet. `tests/snippets.rs` fails when a
/// page with a `rust` block is missing here.
macro_rules! pages {
    ($($module:ident => $page:literal,)*) => {
        $(
            #[doc = include_str!($page)]
            mod $module {}
        )*
        /// The pages whose snippets are doc tests, as paths under `docs/`.
        pub const PAGES_WITH_RUST: &[&str] = &[$($page),*];
    };
}

pages! {
    first_server => "src/getting-started/first-server.md",
    adding_a_tool => "src/guides/adding-a-tool.md",
    embedding => "src/guides/embedding.md",
    features => "src/guides/features.md",
}
