//! The bundle's lints: what Harbor and Compose accept but would fail at run time (task and
//! service names, allowed hosts, MCP server URLs against the sidecar's bind, the loopback
//! topology, skills, artifacts, collect hooks, the audit directory).

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::manifest::Manifest;
use crate::manifest::bundle::{
    Artifact, Compose, NetworkMode, Sidecar, Skill, Task, TransportKind, Verifier,
};
use crate::manifest_path::ManifestPath;
use crate::model::bundle::SkillModel;

static TASK_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*/[a-zA-Z0-9][a-zA-Z0-9._-]*$").expect("valid")
});
static SERVICE_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$").expect("valid"));
static HOST_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$").expect("valid"));
static SKILL_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9][a-z0-9-]*$").expect("valid"));

/// The bundle's checks, reporting into the manifest's diagnostics.
pub(super) struct Lints<'a> {
    pub(super) diagnostics: &'a mut Diagnostics,
}

impl Lints<'_> {
    pub(super) fn task_name(&mut self, task: &Task) {
        if !TASK_NAME.is_match(&task.name) {
            self.diagnostics.report(
                Diagnostic::value(
                    ManifestPath::root().key("task").key("name"),
                    format!("task name `{}` is not org/name", task.name),
                )
                .label("Harbor refuses this name")
                .help("write it as org/name, e.g. \"llmkb/compose-topology-repair-mcp\""),
            );
        }
    }

    pub(super) fn instruction(
        &mut self,
        task: &Task,
        base_dir: &Path,
        inputs: &mut Vec<std::path::PathBuf>,
    ) -> Option<String> {
        let path = ManifestPath::root().key("task");
        match (&task.instruction, &task.instruction_file) {
            (Some(text), None) => Some(text.clone()),
            (None, Some(file)) => self.read(base_dir, file, &path.key("instruction_file"), inputs),
            (Some(_), Some(_)) => {
                self.diagnostics.report(
                    Diagnostic::key(
                        path.key("instruction_file"),
                        "both instruction and instruction_file are given",
                    )
                    .label("one too many")
                    .help("keep one of them"),
                );
                None
            }
            (None, None) => {
                self.diagnostics.report(
                    Diagnostic::key(path, "the task has no instruction")
                        .label("instruction.md would be empty")
                        .help("add instruction = \"...\" or instruction_file = \"task/instruction.md\""),
                );
                None
            }
        }
    }

    pub(super) fn read(
        &mut self,
        base_dir: &Path,
        file: &str,
        path: &ManifestPath,
        inputs: &mut Vec<std::path::PathBuf>,
    ) -> Option<String> {
        let full = base_dir.join(file);
        inputs.push(full.clone());
        match std::fs::read_to_string(&full) {
            Ok(text) => Some(text),
            Err(error) => {
                self.diagnostics.report(
                    Diagnostic::value(path.clone(), format!("cannot read {file}: {error}"))
                        .label("unreadable")
                        .help("paths are relative to the manifest's directory"),
                );
                None
            }
        }
    }

    /// allowed_hosts entries are hostnames, `*.` wildcards, IP literals or CIDRs, and only
    /// mean something in allowlist mode.
    pub(super) fn allowed_hosts(
        &mut self,
        mode: Option<NetworkMode>,
        hosts: &[String],
        path: &ManifestPath,
    ) {
        if !hosts.is_empty() && mode != Some(NetworkMode::Allowlist) {
            self.diagnostics.report(
                Diagnostic::key(
                    path.key("allowed_hosts"),
                    "allowed_hosts without network_mode = \"allowlist\"",
                )
                .label("has no effect")
                .help(
                    "set network_mode = \"allowlist\" in the same table, or remove allowed_hosts",
                ),
            );
        }
        for (index, host) in hosts.iter().enumerate() {
            if let Err((problem, help)) = check_host(host) {
                self.diagnostics.report(
                    Diagnostic::value(
                        path.key("allowed_hosts").index(index),
                        format!("allowed host `{host}` {problem}"),
                    )
                    .label("not a host")
                    .help(help),
                );
            }
        }
    }

    pub(super) fn mcp_servers(&mut self, manifest: &Manifest, bind: SocketAddr, overlay: bool) {
        let Some(environment) = &manifest.environment else {
            return;
        };
        let base = ManifestPath::root().key("environment").key("mcp_servers");
        for (index, server) in environment.mcp_servers.iter().enumerate() {
            let path = base.index(index);
            let transport = server.transport.unwrap_or(TransportKind::Sse);
            let http = matches!(
                transport,
                TransportKind::Sse | TransportKind::StreamableHttp
            );
            if server.allowed_tools.is_some() {
                self.diagnostics.report(
                    Diagnostic::key(path.key("allowed_tools"), "allowed_tools is not a field of an environment MCP server")
                        .label("Harbor drops it silently")
                        .help("allowed_tools belongs to a Reward Kit judge ([[judge.mcp_servers]] in tests/); publish fewer tools from the server instead"),
                );
            }
            if http && server.url.is_none() {
                self.diagnostics.report(
                    Diagnostic::key(
                        path.clone(),
                        format!("an MCP server on `{}` needs a url", transport),
                    )
                    .label("no url")
                    .help(format!(
                        "add url = \"http://{bind}{}\"",
                        manifest.transport.path
                    )),
                );
            }
            if http && server.args.is_some() {
                self.diagnostics.report(
                    Diagnostic::key(path.key("args"), "args only apply to a stdio MCP server")
                        .label("ignored on an HTTP transport")
                        .help("remove args, or use transport = \"stdio\" with a command"),
                );
            }
            if transport == TransportKind::Stdio && server.command.is_none() {
                self.diagnostics.report(
                    Diagnostic::key(path.clone(), "a stdio MCP server needs a command")
                        .label("no command")
                        .help("add command = \"/usr/local/bin/...\" (it runs in the agent's environment)"),
                );
            }
            if let Some(url) = &server.url {
                self.mcp_url(url, transport, manifest, bind, overlay, &path.key("url"));
            }
        }
    }

    /// The url an agent gets must reach the sidecar: its port and path, on the shared
    /// loopback under the egress overlay, by its service name on Compose's network otherwise;
    /// and a transport the sidecar serves.
    pub(super) fn mcp_url(
        &mut self,
        url: &str,
        transport: TransportKind,
        manifest: &Manifest,
        bind: SocketAddr,
        overlay: bool,
        path: &ManifestPath,
    ) {
        let sidecar = manifest
            .compose
            .as_ref()
            .map_or("", |compose| compose.sidecar.name.as_str());
        // The legacy transport's stream is at <path>/sse; streamable HTTP is at <path>.
        let endpoint = match transport {
            TransportKind::Sse => format!("{}/sse", manifest.transport.path.trim_end_matches('/')),
            _ => manifest.transport.path.clone(),
        };
        let expected = if overlay {
            format!("http://{bind}{endpoint}")
        } else {
            format!("http://{sidecar}:{}{endpoint}", bind.port())
        };
        let parsed = url.strip_prefix("http://").and_then(|rest| {
            rest.split_once('/')
                .map(|(authority, tail)| (authority, format!("/{tail}")))
        });
        let matches = parsed.is_some_and(|(authority, tail)| {
            let port_ok = authority
                .rsplit_once(':')
                .and_then(|(host, port)| Some((host, port.parse::<u16>().ok()?)))
                .is_some_and(|(host, port)| {
                    let loopback = host == "localhost"
                        || host.parse::<IpAddr>().is_ok_and(|ip| {
                            ip == bind.ip() || (ip.is_loopback() && bind.ip().is_loopback())
                        });
                    port == bind.port() && if overlay { loopback } else { host == sidecar }
                });
            port_ok && tail == endpoint
        });
        if !matches {
            self.diagnostics.report(
                Diagnostic::value(
                    path.clone(),
                    format!("MCP url `{url}` does not reach the sidecar"),
                )
                .label(if overlay {
                    "not the sidecar's bind and path on the shared loopback"
                } else {
                    "every phase is public: no egress overlay, so no shared loopback"
                })
                .help(format!(
                    "the sidecar serves {expected} ([transport] bind and path)"
                )),
            );
        }
        let served = manifest.transport.kind;
        if transport != served {
            self.diagnostics.report(
                Diagnostic::value(
                    path.clone(),
                    format!("the sidecar serves {}, not {}", served, transport),
                )
                .label("transport mismatch")
                .help(format!(
                    "set transport = \"{}\" here, or [transport] kind = \"{}\"",
                    served, transport
                )),
            );
        }
    }

    pub(super) fn topology(&mut self, compose: &Compose, bind: SocketAddr, overlay: bool) {
        let base = ManifestPath::root().key("compose");
        let mut names: Vec<(&str, ManifestPath)> = vec![
            ("main", base.key("main")),
            (
                compose.sidecar.name.as_str(),
                base.key("sidecar").key("name"),
            ),
        ];
        let mut ports: Vec<(u16, String, ManifestPath)> = vec![(
            bind.port(),
            compose.sidecar.name.clone(),
            ManifestPath::root().key("transport").key("bind"),
        )];
        for (index, port) in compose.main.ports.iter().enumerate() {
            ports.push((
                *port,
                "main".to_owned(),
                base.key("main").key("ports").index(index),
            ));
        }
        for (index, service) in compose.services.iter().enumerate() {
            let path = base.key("services").index(index);
            names.push((service.name.as_str(), path.key("name")));
            for (port_index, port) in service.ports.iter().enumerate() {
                ports.push((
                    *port,
                    service.name.clone(),
                    path.key("ports").index(port_index),
                ));
            }
            if overlay {
                for key in ["networks", "network_mode"] {
                    let set = if key == "networks" {
                        service.networks.is_some()
                    } else {
                        service.network_mode.is_some()
                    };
                    if set {
                        self.diagnostics.report(
                            Diagnostic::key(path.key(key), format!("service `{}` sets {key} inside the egress overlay's loopback topology", service.name))
                                .label("escapes the egress control")
                                .help("remove it so the service shares main's loopback (reach it at 127.0.0.1:<port>), or make every phase public and use Compose DNS"),
                        );
                    }
                }
            }
            match (&service.image, &service.build) {
                (None, None) | (Some(_), Some(_)) => self.diagnostics.report(
                    Diagnostic::key(
                        path.clone(),
                        format!(
                            "service `{}` needs exactly one of image and build",
                            service.name
                        ),
                    )
                    .label("how is it built?")
                    .help(
                        "give image = \"name@sha256:...\" or build = \"<dir under environment/>\"",
                    ),
                ),
                _ => {}
            }
        }
        for (position, (name, path)) in names.iter().enumerate() {
            self.service_name(name, path);
            if let Some((_, first_path)) = names[..position].iter().find(|(other, _)| other == name)
            {
                self.diagnostics.report(
                    Diagnostic::value(path.clone(), format!("two services are named `{name}`"))
                        .label("duplicate")
                        .also_at(first_path.clone(), "first defined here")
                        .help("service names must be unique"),
                );
            }
        }
        for (position, (port, owner, path)) in ports.iter().enumerate() {
            if let Some((_, first, first_path)) =
                ports[..position].iter().find(|(other, ..)| other == port)
            {
                self.diagnostics.report(
                    Diagnostic::value(path.clone(), format!("`{owner}` and `{first}` both use loopback port {port}"))
                        .label("port clash on the shared loopback")
                        .also_at(first_path.clone(), format!("`{first}` uses it here"))
                        .help("the egress overlay puts every service in one network namespace; give each a unique port"),
                );
            }
        }
    }

    pub(super) fn skills(
        &mut self,
        skills: &[Skill],
        skills_dir: Option<&str>,
        base_dir: &Path,
        inputs: &mut Vec<std::path::PathBuf>,
    ) -> Option<Vec<SkillModel>> {
        let root = ManifestPath::root();
        match (skills.is_empty(), skills_dir) {
            (false, None) => self.diagnostics.report(
                Diagnostic::key(
                    root.key("skills"),
                    "skills are declared but [environment] has no skills_dir",
                )
                .label("the agent would never see them")
                .help("set skills_dir = \"/opt/harbor-skills\" in [environment]"),
            ),
            (true, Some(_)) => self.diagnostics.report(
                Diagnostic::value(
                    root.key("environment").key("skills_dir"),
                    "skills_dir is set but the main image never copies a skill there",
                )
                .label("an empty or missing directory")
                .help("add [[skills]] entries, or remove skills_dir"),
            ),
            _ => {}
        }
        let mut models = Vec::new();
        let mut ok = true;
        for (index, skill) in skills.iter().enumerate() {
            let path = root.key("skills").index(index);
            if !SKILL_NAME.is_match(&skill.name) {
                self.diagnostics.report(
                    Diagnostic::value(
                        path.key("name"),
                        format!("skill name `{}` is not a directory name", skill.name),
                    )
                    .label("invalid skill name")
                    .help("use lowercase letters, digits and `-`, e.g. \"incident-triage\""),
                );
                ok = false;
            }
            match self.read(base_dir, &skill.body_file, &path.key("body_file"), inputs) {
                Some(body) => models.push(SkillModel {
                    name: skill.name.clone(),
                    description: skill.description.clone(),
                    body,
                }),
                None => ok = false,
            }
        }
        ok.then_some(models)
    }

    pub(super) fn artifacts(&mut self, artifacts: &[Artifact]) {
        for (index, artifact) in artifacts.iter().enumerate() {
            let path = ManifestPath::root().key("artifacts").index(index);
            let destination = &artifact.destination;
            let problem = if destination.starts_with('/') {
                Some("is absolute")
            } else if destination.split('/').any(|part| part == "..") {
                Some("contains `..`")
            } else if destination == "manifest.json" {
                Some("is manifest.json, which Harbor writes itself")
            } else {
                None
            };
            if let Some(problem) = problem {
                self.diagnostics.report(
                    Diagnostic::value(path.key("destination"), format!("artifact destination `{destination}` {problem}"))
                        .label("Harbor refuses this destination")
                        .help("use a relative path inside the artifacts directory, e.g. \"evidence/mcp-audit.jsonl\""),
                );
            }
            if artifact.source.split('/').any(|part| part == "..") {
                self.diagnostics.report(
                    Diagnostic::value(
                        path.key("source"),
                        format!("artifact source `{}` contains `..`", artifact.source),
                    )
                    .label("Harbor refuses this source")
                    .help("name the file by its absolute path"),
                );
            }
            if let Some(service) = &artifact.service {
                self.service_name(service, &path.key("service"));
                if service != "main" && !artifact.source.starts_with('/') {
                    self.diagnostics.report(
                        Diagnostic::value(
                            path.key("source"),
                            "an artifact from a service other than main needs an absolute source",
                        )
                        .label("relative source")
                        .help("write the full path inside the service"),
                    );
                }
            }
        }
    }

    pub(super) fn collect(&mut self, verifier: &Verifier, sidecar: &Sidecar) {
        for (index, hook) in verifier.collect.iter().enumerate() {
            let path = ManifestPath::root()
                .key("verifier")
                .key("collect")
                .index(index);
            self.service_name(&hook.service, &path.key("service"));
            // Harbor runs a sidecar's hook as `sh -c` inside it; the generated sidecar image
            // is FROM scratch, with no shell.
            if hook.service == sidecar.name && sidecar.image.is_none() {
                self.diagnostics.report(
                    Diagnostic::value(
                        path.key("service"),
                        format!("a collect hook cannot run in `{}`", sidecar.name),
                    )
                    .label("the sidecar image is FROM scratch: no shell to run the hook")
                    .help("run the hook in main (service = \"main\"), or collect the sidecar's files as [[artifacts]] with service = the sidecar"),
                );
            }
        }
    }

    pub(super) fn service_name(&mut self, name: &str, path: &ManifestPath) {
        if !SERVICE_NAME.is_match(name) {
            self.diagnostics.report(
                Diagnostic::value(
                    path.clone(),
                    format!("service name `{name}` is outside Harbor's pattern"),
                )
                .label("invalid service name")
                .help("start with a letter or digit; then letters, digits, `_`, `.` or `-`"),
            );
        }
    }

    /// The audit file must live in a directory of its own, which becomes the sidecar's only
    /// writable place (a named volume, which Harbor can copy out) under its read-only root.
    pub(super) fn audit_dir(&mut self, manifest: &Manifest) -> (Option<String>, String) {
        let audit = &manifest.audit.path;
        let dir = Path::new(audit)
            .parent()
            .map(|dir| dir.to_string_lossy().into_owned());
        match dir.filter(|dir| audit.starts_with('/') && dir != "/") {
            Some(dir) => (Some(dir), audit.clone()),
            None => {
                self.diagnostics.report(
                    Diagnostic::value(ManifestPath::root().key("audit").key("path"), format!("audit path `{audit}` has no directory of its own"))
                        .label("the sidecar's root is read-only")
                        .help("use an absolute path inside a directory that becomes the sidecar's log volume, e.g. /var/log/monitor-mcp/audit.jsonl"),
                );
                (None, audit.clone())
            }
        }
    }
}

/// Checks one allowed_hosts entry; the error is (what is wrong, how to fix it).
fn check_host(host: &str) -> Result<(), (String, String)> {
    if host.contains("://") {
        let bare = host
            .split("://")
            .nth(1)
            .unwrap_or("")
            .split(['/', ':'])
            .next()
            .unwrap_or("");
        return Err((
            "is a URL".into(),
            format!("write the host name only: \"{bare}\""),
        ));
    }
    if let Some((address, prefix)) = host.split_once('/') {
        let valid_cidr = address.parse::<IpAddr>().is_ok_and(|ip| {
            prefix
                .parse::<u8>()
                .is_ok_and(|bits| bits <= if ip.is_ipv4() { 32 } else { 128 })
        });
        if valid_cidr {
            return Ok(());
        }
        return Err((
            "carries a path".into(),
            format!("write the host name only: \"{address}\""),
        ));
    }
    if host.parse::<IpAddr>().is_ok() {
        return Ok(());
    }
    if let Some((name, port)) = host.rsplit_once(':')
        && port.chars().all(|c| c.is_ascii_digit())
    {
        return Err((
            "carries a port".into(),
            format!("allowlists name hosts, not ports: \"{name}\""),
        ));
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    if name.contains('*') {
        return Err((
            "has a bad wildcard".into(),
            "a wildcard is only a leading `*.`, as in \"*.example.com\"".into(),
        ));
    }
    if let Some(label) = name.split('.').find(|label| !HOST_LABEL.is_match(label)) {
        return Err((
            format!("has an invalid label `{label}`"),
            "labels are lowercase letters, digits and inner `-`, at most 63 characters".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_host;

    #[test]
    pub(super) fn hosts() {
        for good in [
            "api.anthropic.com",
            "*.example.com",
            "10.0.0.0/8",
            "::1",
            "192.168.1.1",
            "fd00::/8",
        ] {
            assert!(check_host(good).is_ok(), "{good}");
        }
        for bad in [
            "https://api.anthropic.com",
            "api.anthropic.com:443",
            "example.com/path",
            "*example.com",
            "a.*.com",
            "Example.com",
            "-x.com",
            "10.0.0.0/33",
        ] {
            assert!(check_host(bad).is_err(), "{bad}");
        }
    }
}
