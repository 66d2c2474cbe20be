//! A build only as heavy as the manifest, read from `cargo tree` of the default server (this
//! package: one local tool, no upstream, no `[auth]`):
//!
//! - its build script's tree (harness-codegen as build scripts use it) holds no MCP client
//!   (rmcp, tokio, harness-runtime, the TOML editor: harness-codegen's `import` feature) and no
//!   command-line parser (clap is harness-codegen-cli's);
//! - its own tree holds no MCP client, no outbound HTTP or TLS, no JWT stack and no JSON Schema
//!   validator: the runtime's `gateway` and `oauth` features bring them.
//!
//! Each list has an oracle run with the feature on, which must find every crate of it, so
//! neither test passes by a crate being renamed or a tree format changing.

use std::path::Path;
use std::process::Command;

/// Crates only harness-codegen's `import` needs; none may be in a build script's tree.
const IMPORT_CRATES: &[&str] = &[
    "rmcp ",
    "tokio ",
    "harness-runtime ",
    "toml_edit ",
    "similar ",
];

/// Crates only the runtime's `gateway` and `oauth` features need; none may be in a plain
/// server's tree.
const GATEWAY_AND_OAUTH_CRATES: &[&str] = &[
    "reqwest ",
    "rustls ",
    "ring ",
    "webpki-roots ",
    "jsonwebtoken ",
    "jsonschema ",
    "process-wrap ",
];

/// `cargo tree` of this package (normal and build edges, offline, from Cargo.lock), split
/// into its own tree and the part under `[build-dependencies]`.
fn tree(extra: &[&str]) -> (String, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["tree", "-p", "mcp-agent-harness", "-e", "normal,build"])
        .args(["--no-dedupe", "--offline", "--locked", "--color", "never"])
        .args(extra)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8(output.stdout).expect("UTF-8");
    // The root's own section starts at the line's start (a dependency's is indented).
    let (normal, build) = tree
        .split_once("\n[build-dependencies]\n")
        .expect("the root package has build dependencies");
    assert!(build.contains("harness-codegen v"), "{build}");
    assert!(normal.contains("harness-runtime v"), "{normal}");
    (normal.to_owned(), build.to_owned())
}

/// The crates of `names` that `tree` holds.
fn found_in(tree: &str, names: &[&'static str]) -> Vec<&'static str> {
    names
        .iter()
        .copied()
        .filter(|name| {
            tree.lines()
                .any(|line| line.contains(&format!("── {name}v")))
        })
        .collect()
}

#[test]
fn the_build_script_tree_holds_no_mcp_client_and_no_clap() {
    let (_, build) = tree(&[]);
    assert_eq!(
        found_in(&build, IMPORT_CRATES),
        Vec::<&str>::new(),
        "{build}"
    );
    assert!(!build.contains("── clap v"), "{build}");
}

/// The oracle sees the client when `import` is on (so the test above can fail).
#[test]
fn with_import_the_client_would_be_in_the_build_script_tree() {
    let (_, build) = tree(&["--features", "harness-codegen/import"]);
    assert_eq!(found_in(&build, IMPORT_CRATES), IMPORT_CRATES);
}

#[test]
fn a_plain_server_holds_no_mcp_client_no_outbound_tls_and_no_jwt() {
    let (normal, _) = tree(&[]);
    assert_eq!(
        found_in(&normal, GATEWAY_AND_OAUTH_CRATES),
        Vec::<&str>::new(),
        "{normal}"
    );
    // rmcp is there, for the server side; its client's transports (process-wrap) are not.
    assert!(normal.contains("── rmcp v"), "{normal}");
}

/// The oracle sees every crate once the features are on (so the test above can fail).
#[test]
fn with_gateway_and_oauth_every_crate_would_be_in_the_tree() {
    let (normal, _) = tree(&[
        "--features",
        "harness-runtime/gateway,harness-runtime/oauth",
    ]);
    assert_eq!(
        found_in(&normal, GATEWAY_AND_OAUTH_CRATES),
        GATEWAY_AND_OAUTH_CRATES
    );
}
