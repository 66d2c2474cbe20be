//! The `import` feature keeps the MCP client out of build scripts: the root package's
//! build-dependency tree (harness-codegen as its build script uses it) holds no rmcp, tokio,
//! harness-runtime or toml_edit; and a harness-codegen built without it says how to get it.

use std::path::Path;
use std::process::Command;

/// Crates only `import` needs; none may be in a build script's tree.
const CLIENT_CRATES: &[&str] = &[
    "rmcp ",
    "tokio ",
    "harness-runtime ",
    "toml_edit ",
    "similar ",
];

/// `cargo tree` of the root package (normal and build edges, offline, from Cargo.lock), and
/// the part of it under `[build-dependencies]`.
fn build_dependency_tree(extra: &[&str]) -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("in the workspace");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "mcp-agent-harness",
            "-e",
            "normal,build",
            "--no-dedupe",
        ])
        .args(["--offline", "--locked", "--color", "never"])
        .args(extra)
        .current_dir(workspace)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8(output.stdout).expect("UTF-8");
    // The root's own section starts at the line's start (a dependency's is indented).
    let (_, build) = tree
        .split_once("\n[build-dependencies]\n")
        .expect("the root package has build dependencies");
    assert!(build.contains("harness-codegen v"), "{build}");
    build.to_owned()
}

fn client_crates_in(tree: &str) -> Vec<&'static str> {
    CLIENT_CRATES
        .iter()
        .copied()
        .filter(|name| {
            tree.lines()
                .any(|line| line.contains(&format!("── {name}v")))
        })
        .collect()
}

#[test]
fn the_build_script_tree_holds_no_mcp_client() {
    let tree = build_dependency_tree(&[]);
    assert_eq!(client_crates_in(&tree), Vec::<&str>::new(), "{tree}");
}

/// The oracle sees the client when the feature is on (so the test above can fail).
#[test]
fn with_the_feature_the_client_would_be_in_the_build_script_tree() {
    let tree = build_dependency_tree(&["--features", "harness-codegen/import"]);
    assert_eq!(client_crates_in(&tree), CLIENT_CRATES);
}

#[cfg(not(feature = "import"))]
#[test]
fn without_the_feature_import_says_how_to_run_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_harness-codegen"))
        .args(["import", "everything"])
        .output()
        .expect("harness-codegen runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("built without the `import` feature")
            && stderr
                .contains("cargo run -p harness-codegen --features import -- import everything"),
        "{stderr}"
    );
}
