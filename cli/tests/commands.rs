//! The `harness-codegen` binary itself: what each command prints and its exit status, on
//! real files (the library's behaviour is tested in codegen/tests).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;

fn harness_codegen(args: &[&str], manifest: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness-codegen"))
        .args(args)
        .arg("--manifest")
        .arg(manifest)
        .output()
        .expect("harness-codegen runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A manifest whose `stdio` upstream is tests/data/tools_list_server.py listing `echo` and a
/// `pinned` tool whose pin no longer matches (the upstream changed it behind our back).
fn drifted_gateway() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/tools_list_server.py");
    let tools = json!([
        {"name": "echo", "description": "Echoes the message.",
         "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
        {"name": "pinned", "description": "Changed behind our back.",
         "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
    ]);
    let tools_file = dir.path().join("tools.json");
    std::fs::write(&tools_file, tools.to_string()).unwrap();
    let manifest = format!(
        r#"[server]
name = "import-command"
version = "0.1.0"

[[upstreams]]
name = "stdio"
transport = "stdio"
command = "python3"
args = [{server:?}, {tools_file:?}]
env = ["HOME", "PATH", "PYENV_ROOT"]
timeout_ms = 20000

[[tools]]
name = "pinned"
description = "Kept as the user wrote it."
upstream = "stdio"
pin_sha256 = "{pin}"

[[tools.arguments]]
name = "x"
type = "string"
"#,
        server = server.display().to_string(),
        tools_file = tools_file.display().to_string(),
        pin = "0".repeat(64),
    );
    let path = dir.path().join("harness.toml");
    std::fs::write(&path, manifest).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), CARGO_TOML).unwrap();
    (dir, path)
}

/// The package around the manifest, with harness-runtime lacking the `gateway` feature its
/// `[[upstreams]]` need.
const CARGO_TOML: &str = "[package]\nname = \"import-command\"\n\n[dependencies]\n# the runtime\nharness-runtime = \"0.1\"\n";

/// `import --dry-run` reports and writes nothing; a drifted pin fails the command and the
/// manifest stays as it was; an import that writes turns harness-runtime's `gateway` feature
/// on in the package's Cargo.toml.
#[test]
fn import_dry_runs_and_fails_on_drift() {
    let (_dir, path) = drifted_gateway();
    let before = std::fs::read_to_string(&path).unwrap();
    let dry = harness_codegen(&["import", "stdio", "--dry-run", "--tools", "echo"], &path);
    let stdout = text(&dry.stdout);
    assert!(dry.status.success(), "{stdout}{}", text(&dry.stderr));
    assert!(stdout.contains("+name = \"echo\""), "{stdout}");
    assert!(
        stdout.contains("Cargo.toml would change as follows (nothing written):\n")
            && stdout
                .contains("+harness-runtime = { version = \"0.1\", features = [\"gateway\"] }\n"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    let cargo_toml = path.with_file_name("Cargo.toml");
    assert_eq!(std::fs::read_to_string(&cargo_toml).unwrap(), CARGO_TOML);

    let drift = harness_codegen(&["import", "stdio", "--tools", "pinned"], &path);
    assert!(!drift.status.success());
    assert!(
        text(&drift.stdout).contains("~ pinned: DRIFTED"),
        "{}",
        text(&drift.stdout)
    );
    assert!(
        text(&drift.stderr).contains("the import needs your attention"),
        "{}",
        text(&drift.stderr)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    assert!(
        text(&drift.stdout).contains("Cargo.toml left as it was while the import needs attention: the manifest needs harness-runtime feature `gateway`\n"),
        "{}",
        text(&drift.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(&cargo_toml).unwrap(),
        CARGO_TOML,
        "a failed import writes nothing"
    );

    // An import that writes turns the feature on, keeping the rest of Cargo.toml.
    let added = harness_codegen(&["import", "stdio", "--tools", "echo"], &path);
    assert!(added.status.success(), "{}", text(&added.stderr));
    assert!(
        text(&added.stdout).contains("Cargo.toml: harness-runtime feature `gateway` on\n"),
        "{}",
        text(&added.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(&cargo_toml).unwrap(),
        CARGO_TOML.replace(
            "harness-runtime = \"0.1\"",
            "harness-runtime = { version = \"0.1\", features = [\"gateway\"] }"
        )
    );
}

/// `check` says how many tools a good manifest serves and where their bodies live, and a bad one fails with its error
/// located in the file.
#[test]
fn check_reports_the_tools_or_the_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("harness.toml");
    std::fs::write(
        &path,
        "[server]\nname = \"checked\"\nversion = \"0.1.0\"\n\n[[tools]]\nname = \"a\"\ndescription = \"A.\"\n",
    )
    .unwrap();
    let good = harness_codegen(&["check"], &path);
    assert!(good.status.success(), "{}", text(&good.stderr));
    assert!(
        text(&good.stdout).ends_with("ok (4 tools: 1 with a body in src/tools, 3 built in)\n"),
        "{}",
        text(&good.stdout)
    );

    std::fs::write(&path, "[server]\nname = \"checked\"\ncolour = \"red\"\n").unwrap();
    let bad = harness_codegen(&["check"], &path);
    assert!(!bad.status.success());
    let stderr = text(&bad.stderr);
    assert!(
        stderr.contains("unknown key `colour`") && stderr.contains("harness.toml:3"),
        "{stderr}"
    );
}

fn new_project(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness-codegen"))
        .arg("new")
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("harness-codegen runs")
}

/// What `new` leaves in `dir`: the file names, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// From a clean directory, one command: `new DIR --upstream -- npx ... server-filesystem`
/// writes the project, the upstream entry and the pins of its read-only tools, turns on the
/// runtime's `gateway` feature, and says what it left out and why.
#[test]
fn new_makes_a_gateway_from_a_launch_line() {
    let clean = tempfile::tempdir().unwrap();
    let data = clean.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let out = new_project(
        &[
            "fs-gateway",
            "--upstream-env",
            "HOME",
            "--upstream",
            "--",
            "npx",
            "--yes",
            "@modelcontextprotocol/server-filesystem@2026.8.31",
            data.to_str().unwrap(),
        ],
        clean.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert_eq!(
        listing(clean.path()),
        ["data", "fs-gateway"],
        "nothing staged is left"
    );
    let project = clean.path().join("fs-gateway");
    let manifest = std::fs::read_to_string(project.join("harness.toml")).unwrap();
    for read_only in [
        "read_text_file",
        "list_directory",
        "search_files",
        "get_file_info",
    ] {
        assert!(
            manifest.contains(&format!("name = \"{read_only}\"")),
            "{manifest}"
        );
    }
    for write in ["write_file", "edit_file", "move_file", "create_directory"] {
        assert!(
            !manifest.contains(&format!("name = \"{write}\"")),
            "{manifest}"
        );
        assert!(
            stdout.contains(&format!("- {write}: left out: a write tool")),
            "{stdout}"
        );
    }
    assert!(manifest.contains("name = \"filesystem\""), "{manifest}");
    assert!(manifest.contains("env = [\"HOME\"]"), "{manifest}");
    assert!(manifest.contains("max_chars = 20000"), "{manifest}");
    let cargo_toml = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(
        cargo_toml.contains("features = [\"gateway\"]"),
        "{cargo_toml}"
    );
    let check = harness_codegen(&["check"], &project.join("harness.toml"));
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).contains("from upstreams"),
        "{}",
        text(&check.stdout)
    );
}

/// A server that fails to start: the user reads its stderr and its exit status, and nothing
/// is left behind.
#[test]
fn new_with_an_upstream_that_fails_to_start_shows_its_stderr_and_leaves_nothing() {
    let clean = tempfile::tempdir().unwrap();
    let out = new_project(
        &[
            "broken",
            "--upstream",
            "--",
            "python3",
            "-c",
            "import sys; sys.stderr.write('fatal: GITHUB_TOKEN is not set\\n'); sys.exit(4)",
        ],
        clean.path(),
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("fatal: GITHUB_TOKEN is not set")
            && stderr.contains("the process ended (exit status: 4)"),
        "{stderr}"
    );
    assert!(
        listing(clean.path()).is_empty(),
        "{:?}",
        listing(clean.path())
    );
}
