//! Codegen time: manifest text -> validated model (`load`), and -> every artifact, formatted
//! (`generate`: the Rust server through prettyplease, the schemas, the Compose bundle), for
//! synthetic manifests of 1, 10 and 100 tools and for the repository's default harness.toml.
//!
//! `cargo bench -p harness-bench --bench codegen`. What `cargo build` adds on top (rustc on
//! the generated code) is measured by scripts/bench-build.sh.

use std::path::{Path, PathBuf};

use divan::Bencher;
use harness_bench::manifest::many_tools;
use harness_codegen::EmitOptions;

fn main() {
    divan::main();
}

const TOOL_COUNTS: [usize; 3] = [1, 10, 100];

/// Parse and validate.
#[divan::bench(args = TOOL_COUNTS)]
fn load(bencher: Bencher, tools: usize) {
    let text = many_tools(tools);
    bencher.bench(|| harness_codegen::load(&text, "harness.toml", Path::new(".")).is_ok());
}

/// Parse, validate and emit every artifact.
#[divan::bench(args = TOOL_COUNTS)]
fn generate(bencher: Bencher, tools: usize) {
    let text = many_tools(tools);
    let options = EmitOptions::default();
    bencher.bench(|| {
        harness_codegen::generate(&text, std::path::Path::new("."), &options)
            .map(|artifacts| artifacts.len())
    });
}

/// The default server: one tool, plus the whole Harbor task and its bundle.
#[divan::bench]
fn generate_default_manifest(bencher: Bencher) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("harness.toml")).expect("harness.toml");
    let options = EmitOptions::default();
    bencher.bench(|| {
        harness_codegen::generate(&text, &root, &options).map(|artifacts| artifacts.len())
    });
}
