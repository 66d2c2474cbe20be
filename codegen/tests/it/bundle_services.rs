//! `[[compose.services]]` with shipped build contexts: the files of `build_files` land in the
//! bundle under environment/<build>/, the base image is an overridable build argument, volumes
//! are declared once and shared with main, a healthcheck makes main wait for the service, and
//! every shipped file is an input to rerun on. Bad service tables are refused, located.

use std::path::Path;

use harness_codegen::{Builder, EmitOptions, generate};
use serde_yaml_ng::Value;

const PINNED: &str =
    "debian:bookworm-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn manifest(services: &str) -> String {
    format!(
        r#"
[server]
name = "topology"
version = "1"

[transport]
kind = "streamable-http"

[audit]
path = "/var/log/topology-mcp/audit.jsonl"

[task]
name = "t/topology"
instruction = "Repair the proxy."

[environment]
workdir = "/workspace"
network_mode = "no-network"

[[environment.mcp_servers]]
name = "monitoring"
transport = "streamable-http"
url = "http://127.0.0.1:8765/mcp"

[verifier]
environment_mode = "separate"

[[verifier.checks]]
kind = "call_budget"
max_calls = 5

[[artifacts]]
source = "/var/log/topology-mcp/audit.jsonl"
destination = "evidence/mcp-audit.jsonl"
service = "monitor-mcp"

[compose.main]
base_image = "{PINNED}"
volumes = ["proxy-conf:/srv/proxy-conf"]

{services}
"#
    )
}

const PROXY: &str = r#"
[[compose.services]]
name = "proxy"
build = "proxy"
build_files = "task/proxy"
base_image = "debian:bookworm-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
ports = [8080]
volumes = ["proxy-conf:/etc/nginx/conf.d"]
healthcheck = { command = "nginx -t", interval = "1s" }
"#;

fn scratch_with_files() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("harness-codegen-services-")
        .tempdir()
        .unwrap();
    let files = dir.path().join("task/proxy");
    std::fs::create_dir_all(files.join("conf")).unwrap();
    std::fs::write(
        files.join("Dockerfile"),
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n",
    )
    .unwrap();
    std::fs::write(
        files.join("conf/upstream.conf"),
        "upstream api { server 127.0.0.1:8001; }\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_shipped_build_context_with_base_image_volumes_and_healthcheck() {
    let dir = scratch_with_files();
    let artifacts = generate(&manifest(PROXY), dir.path(), &EmitOptions::default()).expect("valid");
    assert_eq!(
        artifacts
            .get("bundle/environment/proxy/Dockerfile")
            .map(String::as_str),
        Some("ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n")
    );
    assert_eq!(
        artifacts
            .get("bundle/environment/proxy/conf/upstream.conf")
            .map(String::as_str),
        Some("upstream api { server 127.0.0.1:8001; }\n")
    );
    let compose: Value =
        serde_yaml_ng::from_str(&artifacts["bundle/environment/docker-compose.yaml"]).unwrap();
    let proxy = &compose["services"]["proxy"];
    assert_eq!(proxy["build"]["context"], Value::from("./proxy"));
    assert_eq!(
        proxy["build"]["args"]["BASE_IMAGE"],
        Value::from(format!("${{HARNESS_PROXY_BASE_IMAGE:-{PINNED}}}"))
    );
    assert_eq!(
        proxy["volumes"][0],
        Value::from("proxy-conf:/etc/nginx/conf.d")
    );
    assert_eq!(proxy["healthcheck"]["test"][0], Value::from("CMD-SHELL"));
    assert_eq!(proxy["healthcheck"]["test"][1], Value::from("nginx -t"));
    assert_eq!(proxy["healthcheck"]["interval"], Value::from("1s"));
    let main = &compose["services"]["main"];
    assert_eq!(
        main["volumes"][0],
        Value::from("proxy-conf:/srv/proxy-conf")
    );
    assert_eq!(
        main["depends_on"]["proxy"]["condition"],
        Value::from("service_healthy")
    );
    assert!(compose["volumes"]["proxy-conf"].is_mapping(), "{compose:?}");
}

#[test]
fn every_shipped_file_is_an_input() {
    let dir = scratch_with_files();
    std::fs::write(dir.path().join("harness.toml"), manifest(PROXY)).unwrap();
    let out = dir.path().join("out");
    let built = Builder::new(dir.path(), "harness.toml", &out)
        .check_bodies(false)
        .build()
        .expect("valid");
    for file in ["task/proxy/Dockerfile", "task/proxy/conf/upstream.conf"] {
        assert!(
            built.inputs.contains(&dir.path().join(file)),
            "{file} not among {:?}",
            built.inputs
        );
    }
}

#[test]
fn bad_service_tables_are_refused_and_located() {
    let dir = scratch_with_files();
    let bad = r#"
[[compose.services]]
name = "proxy"
build_files = "task/proxy"
volumes = ["/etc/host:/etc/nginx"]

[[compose.services]]
name = "db"
image = "postgres@sha256:0000000000000000000000000000000000000000000000000000000000000000"
base_image = "debian@sha256:0000000000000000000000000000000000000000000000000000000000000000"

[[compose.services]]
name = "cache"
build = "cache"
build_files = "task/missing"
"#;
    let errors =
        generate(&manifest(bad), dir.path(), &EmitOptions::default()).expect_err("refused");
    let text = errors.render_plain();
    for expected in [
        "build_files needs build",
        "`/etc/host:/etc/nginx` is not a named volume mount",
        "base_image applies to a shipped Dockerfile",
        "cannot read",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} missing from:\n{text}"
        );
    }
    assert!(errors.locations().iter().all(Option::is_some), "{text}");
    assert!(!Path::new(&dir.path().join("out")).exists());
}

/// Keys of `[compose.main]` (they follow its table in `manifest`): a file, a setup command of
/// two lines, and a process whose command holds every character a shell quotes specially;
/// then the agent's own user, which main's processes need.
const MAIN_PROGRAMS: &str = r#"
ports = [8000]
build_files = "task/main"
setup = """
apt-get update
apt-get install -y curl"""
processes = [{ name = "api", command = '''python3 /opt/main/api.py --greeting "it's" 'a b' $HOME `x` \''', user = "www-data" }]

[agent]
user = 1000
"#;

#[test]
fn main_ships_its_files_runs_setup_as_root_and_starts_its_processes_under_their_user() {
    let dir = scratch_with_files();
    std::fs::create_dir_all(dir.path().join("task/main")).unwrap();
    std::fs::write(dir.path().join("task/main/api.py"), "print('api')\n").unwrap();
    let artifacts = generate(
        &manifest(MAIN_PROGRAMS),
        dir.path(),
        &EmitOptions::default(),
    )
    .expect("valid");
    assert_eq!(
        artifacts
            .get("bundle/environment/main/api.py")
            .map(String::as_str),
        Some("print('api')\n")
    );
    let dockerfile = &artifacts["bundle/environment/Dockerfile"];
    let line = |prefix: &str| {
        dockerfile
            .lines()
            .position(|line| line.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` in:\n{dockerfile}"))
    };
    // Installed while the build is still root, before the agent's user takes over.
    assert!(line("COPY main/ /opt/main/") < line("USER 1000"));
    assert!(
        line("RUN [\"sh\", \"-c\", \"apt-get update\\napt-get install -y curl\"]")
            < line("USER 1000")
    );
    assert!(line("COPY main-start.sh /usr/local/bin/harness-main-start") < line("USER 1000"));

    let compose: Value =
        serde_yaml_ng::from_str(&artifacts["bundle/environment/docker-compose.yaml"]).unwrap();
    let main = &compose["services"]["main"];
    assert_eq!(
        main["command"][0],
        Value::from("/usr/local/bin/harness-main-start")
    );
    assert_eq!(main["user"], Value::from("0:0"));

    // The shell itself is the oracle of the quoting: the word the script hands `sh -c` must
    // come back as the manifest's command, byte for byte.
    let start = &artifacts["bundle/environment/main-start.sh"];
    let launch = start
        .lines()
        .find(|line| line.starts_with("runuser -u www-data -- sh -c "))
        .unwrap_or_else(|| panic!("no launch line in:\n{start}"));
    let word = launch
        .strip_prefix("runuser -u www-data -- sh -c ")
        .and_then(|rest| rest.strip_suffix(" >>/var/log/main/api.log 2>&1 &"))
        .expect("the launch line's shape");
    let echoed = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf %s {word}"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(echoed.stdout).unwrap(),
        r#"python3 /opt/main/api.py --greeting "it's" 'a b' $HOME `x` \"#
    );
    assert!(start.trim_end().ends_with("exec sleep infinity"), "{start}");
}

#[test]
fn without_processes_main_keeps_harbors_keep_alive_and_its_agent_user() {
    let dir = scratch_with_files();
    let artifacts = generate(&manifest(PROXY), dir.path(), &EmitOptions::default()).expect("valid");
    let compose: Value =
        serde_yaml_ng::from_str(&artifacts["bundle/environment/docker-compose.yaml"]).unwrap();
    let main = &compose["services"]["main"];
    assert_eq!(
        main["command"],
        serde_yaml_ng::from_str::<Value>("[sleep, infinity]").unwrap()
    );
    assert!(main["user"].is_null(), "{main:?}");
    assert!(!artifacts.contains_key("bundle/environment/main-start.sh"));
}

/// A gateway's sidecar built on a base image (its stdio upstream runs on Python): a
/// `[compose.sidecar]` table and an upstream, after `manifest`'s tables.
const GATEWAY_SIDECAR: &str = r#"
[compose.sidecar]
base_image = "python:3.12-slim@sha256:1111111111111111111111111111111111111111111111111111111111111111"
build_files = "upstreams"
setup = "pip install fastmcp==4.2.3"

[[upstreams]]
name = "monitor"
transport = "stdio"
command = "python3"
args = ["upstreams/seed.py"]
"#;

#[test]
fn a_gateway_sidecar_builds_on_its_base_with_the_upstreams_files_under_its_workdir() {
    let dir = scratch_with_files();
    std::fs::create_dir_all(dir.path().join("upstreams")).unwrap();
    std::fs::write(dir.path().join("upstreams/seed.py"), "print('seed')\n").unwrap();
    let artifacts = generate(
        &manifest(GATEWAY_SIDECAR),
        dir.path(),
        &EmitOptions::default(),
    )
    .expect("valid");
    assert_eq!(
        artifacts
            .get("bundle/environment/monitor-mcp/upstreams/seed.py")
            .map(String::as_str),
        Some("print('seed')\n")
    );
    let dockerfile = &artifacts["bundle/environment/monitor-mcp/Dockerfile"];
    let line = |wanted: &str| {
        dockerfile
            .lines()
            .position(|line| line == wanted)
            .unwrap_or_else(|| panic!("no `{wanted}` in:\n{dockerfile}"))
    };
    assert!(
        line(
            "ARG BASE_IMAGE=python:3.12-slim@sha256:1111111111111111111111111111111111111111111111111111111111111111"
        ) < line("FROM ${BASE_IMAGE}")
    );
    assert!(!dockerfile.contains("FROM scratch"));
    // The setup runs as root, before the server's user takes over; the upstream's relative
    // path (upstreams/seed.py) resolves under the working directory as beside the manifest.
    assert!(
        line("RUN [\"sh\", \"-c\", \"pip install fastmcp==4.2.3\"]") < line("USER 10001:10001")
    );
    assert!(line("COPY upstreams/ /opt/monitor-mcp/upstreams/") < line("USER 10001:10001"));
    line("WORKDIR /opt/monitor-mcp");

    let compose: Value =
        serde_yaml_ng::from_str(&artifacts["bundle/environment/docker-compose.yaml"]).unwrap();
    assert_eq!(
        compose["services"]["monitor-mcp"]["build"]["args"]["BASE_IMAGE"],
        Value::from(
            "${HARNESS_MONITOR_MCP_BASE_IMAGE:-python:3.12-slim@sha256:1111111111111111111111111111111111111111111111111111111111111111}"
        )
    );
    let ledger: serde_json::Value = serde_json::from_str(&artifacts["bundle/ledger.json"]).unwrap();
    assert!(
        ledger["images"]["sidecar"]
            .as_str()
            .unwrap()
            .starts_with("python:3.12-slim@sha256:1111"),
        "{}",
        ledger["images"]
    );
}
