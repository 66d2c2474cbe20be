//! The user's loop through real `cargo build`s of a fresh package that uses the harness:
//! a missing tool body fails the build naming the file to write; `scaffold` writes stubs
//! and never overwrites; the scaffolded package builds with warnings denied and serves; a
//! body trait left unimplemented is a compile error naming the file; a bad manifest fails
//! the build with every error listed and located; a manifest that needs a runtime feature the
//! package lacks stops the build naming the feature.
//!
//! The packages live outside the repository, in fresh temp directories; they build in the
//! target directory this test was built in, so the registry crates and the harness's own
//! crates the workspace already compiled are reused, not compiled again (cargo runs the tests
//! after it has released that directory's lock). Warnings are denied for the package alone
//! (`cargo rustc -- -D warnings`): `RUSTFLAGS` would fingerprint every dependency anew and
//! rebuild the workspace's own artifacts in the shared directory.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use harness_codegen::scaffold::{Scaffolded, scaffold};

/// The repository root, which the packages depend on by path.
fn workspace(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ sits in the repository")
        .join(relative)
}

/// The target directory holding this test's own executable (`<target>/debug/deps/<test>`).
fn target_dir() -> PathBuf {
    let executable = std::env::current_exe().expect("the test knows its executable");
    executable
        .ancestors()
        .nth(3)
        .expect("the test runs from <target>/<profile>/deps")
        .to_path_buf()
}

fn cargo_build(project: &Path) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    Command::new(cargo)
        .args(["rustc", "--offline", "--", "-D", "warnings"])
        .current_dir(project)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A package of the all-types fixture in a fresh directory outside the repository (gone when
/// the returned handle drops).
fn create_project() -> tempfile::TempDir {
    let scratch = tempfile::Builder::new()
        .prefix("harness-workflow-")
        .tempdir()
        .unwrap();
    let project = scratch.path();
    std::fs::create_dir_all(project.join("src")).unwrap();
    let manifest = format!(
        r#"[package]
name = "workflow-server"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
harness-runtime = {{ path = "{ws}/runtime" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = {{ version = "1", features = ["preserve_order"] }}

[build-dependencies]
harness-codegen = {{ path = "{ws}/codegen" }}
"#,
        ws = workspace("").display()
    );
    std::fs::write(project.join("Cargo.toml"), manifest).unwrap();
    // The same lock as the workspace, so the build resolves offline to the same versions.
    std::fs::copy(workspace("Cargo.lock"), project.join("Cargo.lock")).unwrap();
    std::fs::write(
        project.join("build.rs"),
        "fn main() -> std::process::ExitCode {\n    harness_codegen::build_script()\n}\n",
    )
    .unwrap();
    std::fs::copy(
        workspace("codegen/templates/project/main.rs"),
        project.join("src/main.rs"),
    )
    .unwrap();
    std::fs::copy(
        workspace("tests/fixtures/good/all_types.toml"),
        project.join("harness.toml"),
    )
    .unwrap();
    scratch
}

const PING_BODY: &str = r#"//! Hand-written before scaffolding: scaffold must keep it.

use harness_runtime::{CallContext, ToolError};

use crate::generated::{PingV2, PingV2Args};
use crate::tools::Toolbox;

impl PingV2 for Toolbox {
    type Output = String;

    async fn ping_v2(&self, _args: PingV2Args, _ctx: CallContext) -> Result<String, ToolError> {
        Ok("pong".to_owned())
    }
}
"#;

/// The `"id":N` of a JSON-RPC message line, if it has one.
fn message_id(line: &str) -> Option<&str> {
    let after = &line[line.find(r#""id":"#)? + r#""id":"#.len()..];
    let end = after.find([',', '}']).unwrap_or(after.len());
    Some(after[..end].trim())
}

fn stdio_session(binary: &Path, calls: &[&str]) -> String {
    let mut child = Command::new(binary)
        .args(["serve", "--transport", "stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the built server starts");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"test","version":"1"}}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    for call in calls {
        writeln!(stdin, "{call}").unwrap();
    }
    // Closing stdin ends the session: read until every request has its reply first.
    let mut unanswered: Vec<&str> = std::iter::once("0")
        .chain(calls.iter().filter_map(|call| message_id(call)))
        .collect();
    let (lines, replies) = std::sync::mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut output = String::new();
    while !unanswered.is_empty() {
        let line = match replies.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(error) => panic!("no reply to {unanswered:?} ({error}); got:\n{output}"),
        };
        if let Some(id) = message_id(&line) {
            unanswered.retain(|waiting| *waiting != id);
        }
        output.push_str(&line);
        output.push('\n');
    }
    drop(stdin);
    for line in replies {
        output.push_str(&line);
        output.push('\n');
    }
    child.wait().unwrap();
    output
}

#[test]
fn build_scaffold_implement_and_break() {
    let scratch = create_project();
    let project = scratch.path();

    // 1. No bodies yet: the build script names every file to write and how to scaffold.
    let output = cargo_build(project);
    assert!(!output.status.success(), "must fail without tool bodies");
    let text = stderr(&output);
    assert!(
        text.contains("tool `search-logs` has no body: create src/tools/search_logs.rs"),
        "{text}"
    );
    assert!(
        text.contains("tool `ping.v2` has no body: create src/tools/ping_v2.rs"),
        "{text}"
    );
    assert!(
        text.contains("cargo run -p harness-codegen-cli -- scaffold"),
        "{text}"
    );

    // 2. Scaffold creates what is missing and keeps what exists.
    let tools_dir = project.join("src/tools");
    std::fs::create_dir_all(&tools_dir).unwrap();
    std::fs::write(tools_dir.join("ping_v2.rs"), PING_BODY).unwrap();
    let source = std::fs::read_to_string(project.join("harness.toml")).unwrap();
    let model = harness_codegen::load(&source, "harness.toml", project).expect("fixture is valid");
    let report = scaffold(&model, &tools_dir).unwrap();
    assert_eq!(
        report,
        vec![
            Scaffolded::Created(tools_dir.join("mod.rs")),
            Scaffolded::Created(tools_dir.join("search_logs.rs")),
            Scaffolded::Kept(tools_dir.join("ping_v2.rs")),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(tools_dir.join("ping_v2.rs")).unwrap(),
        PING_BODY
    );
    // What scaffold writes is already formatted, and rustfmt sees every tool module.
    let rustfmt = std::process::Command::new("rustfmt")
        .args(["--check", "--edition", "2024"])
        .arg(tools_dir.join("mod.rs"))
        .output()
        .expect("rustfmt runs");
    assert!(
        rustfmt.status.success(),
        "scaffolded files are not rustfmt-clean:\n{}",
        String::from_utf8_lossy(&rustfmt.stdout)
    );
    let stub = std::fs::read_to_string(tools_dir.join("search_logs.rs")).unwrap();
    assert!(
        stub.contains("// - args."),
        "the stub lists the arguments:\n{stub}"
    );
    let again = scaffold(&model, &tools_dir).unwrap();
    assert!(
        again
            .iter()
            .all(|entry| matches!(entry, Scaffolded::Kept(_))),
        "{again:?}"
    );

    // 3. The scaffolded package builds with warnings denied, and serves.
    let output = cargo_build(project);
    assert!(
        output.status.success(),
        "scaffolded package must build:\n{}",
        stderr(&output)
    );
    let binary = target_dir().join("debug/workflow-server");
    let replies = stdio_session(
        &binary,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping.v2","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search-logs","arguments":{"query":"x"}}}"#,
        ],
    );
    assert!(replies.contains(r#""text":"pong""#), "{replies}");
    assert!(
        replies.contains(r#""error_code":"NotImplemented""#),
        "the stub answers: {replies}"
    );

    // 4. A body file without its impl: rustc says which tool and which file.
    std::fs::write(tools_dir.join("search_logs.rs"), "//! Not written yet.\n").unwrap();
    let output = cargo_build(project);
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains("tool `search-logs` has no body for `Toolbox`"),
        "{text}"
    );
    assert!(
        text.contains("write `impl SearchLogs for Toolbox` in src/tools/search_logs.rs"),
        "{text}"
    );

    // 5. A bad manifest fails the build with every error, located.
    let broken = source.replace(
        "[[tools]]\nname = \"ping.v2\"",
        "[[tools]]\nname = \"search-logs\"\ncolour = \"red\"",
    );
    assert_ne!(broken, source, "the fixture layout changed");
    std::fs::write(project.join("harness.toml"), broken).unwrap();
    let output = cargo_build(project);
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(text.contains("error: unknown key `colour`"), "{text}");
    assert!(
        text.contains("error: duplicate tool `search-logs`"),
        "{text}"
    );
    assert!(text.contains("--> harness.toml:"), "{text}");
    assert!(text.contains("harness.toml has 2 errors"), "{text}");

    // 6. A manifest that needs a runtime feature the package lacks stops the build naming it:
    // this package takes harness-runtime without features.
    let gateway = format!(
        "{source}\n[[upstreams]]\nname = \"remote\"\ntransport = \"streamable-http\"\n\
         url = \"http://127.0.0.1:9000/mcp\"\n\n[[tools]]\nname = \"echo\"\n\
         description = \"Echoes back the input.\"\nupstream = \"remote\"\n\
         pin_sha256 = \"{zeros}\"\n",
        zeros = "0".repeat(64)
    );
    std::fs::write(project.join("harness.toml"), gateway).unwrap();
    let output = cargo_build(project);
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains(
            "harness.toml has [[upstreams]] (a gateway): enable harness-runtime's `gateway` feature"
        ),
        "{text}"
    );
    let http = "kind = \"streamable-http\"\nbind = \"127.0.0.1:8791\"";
    let oauth = format!(
        "{}\n[auth]\nissuer = \"https://issuer.test\"\naudience = \"https://mcp.test/mcp\"\n",
        source.replacen("kind = \"stdio\"", http, 1)
    );
    assert_ne!(
        oauth,
        format!("{source}\n"),
        "the fixture's transport changed"
    );
    std::fs::write(project.join("harness.toml"), oauth).unwrap();
    let output = cargo_build(project);
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains("harness.toml has [auth] (an OAuth 2.1 resource server): enable harness-runtime's `oauth` feature"),
        "{text}"
    );
}

/// `harness-codegen new DIR`, the command README documents, outside this repository: the
/// project builds with warnings denied, and its tool answers a call.
#[test]
fn a_new_project_builds_and_answers_a_call() {
    let scratch = tempfile::Builder::new()
        .prefix("harness-new-")
        .tempdir()
        .unwrap();
    let project = scratch.path().join("hello-server");
    let new = || {
        Command::new(env!("CARGO_BIN_EXE_harness-codegen"))
            .arg("new")
            .arg(&project)
            .output()
            .expect("harness-codegen runs")
    };
    let created = new();
    assert!(created.status.success(), "{}", stderr(&created));
    let again = new();
    assert!(!again.status.success(), "new never overwrites");
    // The workspace's lock, so the offline build resolves to the same versions.
    std::fs::copy(workspace("Cargo.lock"), project.join("Cargo.lock")).unwrap();
    let output = cargo_build(&project);
    assert!(
        output.status.success(),
        "the new project must build:\n{}",
        stderr(&output)
    );
    let call = Command::new(target_dir().join("debug/hello-server"))
        .args(["call", "greet", r#"{"name": "Ada"}"#])
        .output()
        .expect("the server runs");
    assert!(call.status.success(), "{}", stderr(&call));
    let reply: serde_json::Value = serde_json::from_slice(&call.stdout).expect("JSON");
    assert_eq!(reply["greeting"], "Hello, Ada!");
}
