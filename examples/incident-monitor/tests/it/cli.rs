//! The generated server's command line as a user meets it: its own name and version, refusals
//! that leave nothing behind, host names for `--bind`, and output into a closed pipe.

use harness_test_support::{HttpServer, scratch_dir, scratch_file};

const SERVER: &str = env!("CARGO_BIN_EXE_incident-monitor");

#[test]
fn version_names_the_generated_server_not_the_library() {
    let output = std::process::Command::new(SERVER)
        .arg("--version")
        .output()
        .expect("runs");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "llmkb-readonly-monitor 0.1.0"
    );
}

#[test]
fn a_refused_public_bind_creates_no_audit_file() {
    let audit = scratch_file("cli-public-bind", "audit.jsonl");
    let output = std::process::Command::new(SERVER)
        .args([
            "serve",
            "--transport",
            "streamable-http",
            "--bind",
            "0.0.0.0:0",
        ])
        .arg("--audit-path")
        .arg(&audit)
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("0.0.0.0:0"), "{stderr}");
    assert!(
        !audit.exists(),
        "the refusal came after the audit file was created"
    );
}

#[test]
fn bind_takes_a_host_name() {
    use std::io::{BufRead, BufReader};
    let audit = scratch_file("cli-bind-name", "audit.jsonl");
    let mut child = std::process::Command::new(SERVER)
        .args([
            "serve",
            "--transport",
            "streamable-http",
            "--bind",
            "localhost:0",
        ])
        .arg("--audit-path")
        .arg(&audit)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let stderr = BufReader::new(child.stderr.take().expect("piped"));
    let mut seen = Vec::new();
    let serving = stderr.lines().map_while(Result::ok).find(|line| {
        seen.push(line.clone());
        line.contains("serving HTTP")
    });
    let _ = child.kill();
    let _ = child.wait();
    let line = serving.unwrap_or_else(|| panic!("never served:\n{}", seen.join("\n")));
    assert!(
        line.contains("addr=127.0.0.1:") || line.contains("addr=[::1]:"),
        "{line}"
    );
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output = std::process::Command::new(SERVER)
        .arg("tools")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

#[test]
fn a_local_serve_writes_its_audit_log_under_the_users_state_directory() {
    let home = scratch_dir("cli-home");
    let output = std::process::Command::new(SERVER)
        .args(["serve", "--transport", "stdio"])
        .env("HOME", &home)
        .env_remove("XDG_STATE_HOME")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let audit = home.join(".local/state/llmkb-readonly-monitor/audit.jsonl");
    assert!(
        audit.exists(),
        "no audit log at {}:\n{}",
        audit.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&audit.display().to_string()),
        "says where: {stderr}"
    );
}

#[test]
fn call_prints_what_the_model_reads_and_fails_on_a_refused_call() {
    let call = |arguments: &str| {
        std::process::Command::new(SERVER)
            .args(["call", "get_incident_snapshot", arguments])
            .output()
            .expect("runs")
    };
    let ok = call(r#"{"incident_id": 42}"#);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let text: serde_json::Value = serde_json::from_slice(&ok.stdout).expect("the result's JSON");
    assert_eq!(text["incident_id"], 42);
    assert_eq!(text["view"], "summary", "the default is applied");

    // Through the same ingress as a client: a repeated key is refused with the envelope.
    let refused = call(r#"{"incident_id": "42", "incident_id": 42}"#);
    assert_eq!(refused.status.code(), Some(1));
    let envelope: serde_json::Value = serde_json::from_slice(&refused.stdout).expect("envelope");
    assert_eq!(envelope["error_code"], "InvalidArguments");
    assert!(
        envelope["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key")
    );
}

/// `call --url` asks a running server, stateful (a session) or stateless, and prints the
/// same as the in-process call; the repeated key is refused by the server's own ingress; and
/// an unreachable server is an error that names the URL, not a hang.
#[test]
fn call_with_a_url_asks_a_running_server() {
    let call = |extra: &[&str]| {
        std::process::Command::new(SERVER)
            .arg("call")
            .args(extra)
            .output()
            .expect("runs")
    };
    let arguments = r#"{"incident_id": 42}"#;
    let in_process = call(&["get_incident_snapshot", arguments]);
    assert!(in_process.status.success());
    for mode in [&[][..], &["--stateless"][..]] {
        let audit = scratch_file("cli-call-url", "audit.jsonl");
        let server = HttpServer::start_with(SERVER, &audit, mode);
        let url = format!("http://127.0.0.1:{}/mcp", server.port);
        let remote = call(&["get_incident_snapshot", arguments, "--url", &url]);
        assert!(
            remote.status.success(),
            "{mode:?}: {}",
            String::from_utf8_lossy(&remote.stderr)
        );
        assert_eq!(remote.stdout, in_process.stdout, "{mode:?}");

        let refused = call(&[
            "get_incident_snapshot",
            r#"{"incident_id": "42", "incident_id": 42}"#,
            "--url",
            &url,
            "--json",
        ]);
        assert_eq!(refused.status.code(), Some(1), "{mode:?}");
        let reply: serde_json::Value = serde_json::from_slice(&refused.stdout).expect("JSON");
        assert_eq!(
            reply["result"]["structuredContent"]["error_code"], "InvalidArguments",
            "{mode:?}: {reply}"
        );
        let outcomes: Vec<_> = harness_test_support::audit_records(&audit)
            .iter()
            .map(|record| record["outcome"].clone())
            .collect();
        assert_eq!(outcomes, ["ok", "invalid_arguments"], "{mode:?}");
    }

    // Refuses connections, and no parallel test can take it meanwhile.
    let closed = harness_test_support::ClosedPort::reserve();
    let url = format!("http://127.0.0.1:{}/mcp", closed.port);
    let unreachable = call(&["get_incident_snapshot", arguments, "--url", &url]);
    assert_eq!(unreachable.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert!(stderr.contains(&url), "{stderr}");
}
