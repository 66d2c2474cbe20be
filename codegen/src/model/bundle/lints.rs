//! The bundle's lints: what Harbor and Compose accept but would fail at run time (task and
//! service names, the instruction, allowed hosts, skills, artifacts, collect hooks, the audit
//! directory). Whether the services reach each other is [`crate::model::bundle::topology`]'s.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Manifest;
use crate::manifest::bundle::{Artifact, NetworkMode, Sidecar, Skill, Task, Verifier};
use crate::manifest_path::ManifestPath;
use crate::model::input_files::read_text;

static TASK_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*/[a-zA-Z0-9][a-zA-Z0-9._-]*$").expect("valid")
});
static SERVICE_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$").expect("valid"));
static HOST_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$").expect("valid"));

pub(crate) fn task_name(task: &Task, errors: &ErrorSink<'_>) {
    if !TASK_NAME.is_match(&task.name) {
        errors.report(
            Diagnostic::value(
                ManifestPath::root().key("task").key("name"),
                format!("task name `{}` is not org/name", task.name),
            )
            .label("Harbor refuses this name")
            .help("write it as org/name, e.g. \"llmkb/compose-topology-repair-mcp\""),
        );
    }
}

pub(crate) fn instruction(
    task: &Task,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<String> {
    let path = ManifestPath::root().key("task");
    match (&task.instruction, &task.instruction_file) {
        (Some(text), None) => Some(text.clone()),
        (None, Some(file)) => read_text(
            base_dir,
            file,
            &path.key("instruction_file"),
            inputs,
            errors,
        ),
        (Some(_), Some(_)) => {
            errors.report(
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
            errors.report(
                Diagnostic::key(path, "the task has no instruction")
                    .label("instruction.md would be empty")
                    .help(
                        "add instruction = \"...\" or instruction_file = \"task/instruction.md\"",
                    ),
            );
            None
        }
    }
}

/// allowed_hosts entries are hostnames, `*.` wildcards, IP literals or CIDRs, and only
/// mean something in allowlist mode.
pub(crate) fn allowed_hosts(
    mode: Option<NetworkMode>,
    hosts: &[String],
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) {
    if !hosts.is_empty() && mode != Some(NetworkMode::Allowlist) {
        errors.report(
            Diagnostic::key(
                path.key("allowed_hosts"),
                "allowed_hosts without network_mode = \"allowlist\"",
            )
            .label("has no effect")
            .help("set network_mode = \"allowlist\" in the same table, or remove allowed_hosts"),
        );
    }
    for (index, host) in hosts.iter().enumerate() {
        if let Err((problem, help)) = check_host(host) {
            errors.report(
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

/// `[environment] skills_dir` and `[[skills]]` go together in a bundle: the image copies the
/// skills there (each skill itself is checked by `crate::model::skills`).
pub(crate) fn skills_dir(skills: &[Skill], skills_dir: Option<&str>, errors: &ErrorSink<'_>) {
    let root = ManifestPath::root();
    // An upstream's skills are served through the gateway, never copied into the image.
    let copied = skills.iter().any(|skill| skill.upstream.is_none());
    match (!copied, skills_dir) {
        (false, None) => errors.report(
            Diagnostic::key(
                root.key("skills"),
                "skills are declared but [environment] has no skills_dir",
            )
            .label("the agent would never see them")
            .help("set skills_dir = \"/opt/harbor-skills\" in [environment]"),
        ),
        (true, Some(_)) => errors.report(
            Diagnostic::value(
                root.key("environment").key("skills_dir"),
                "skills_dir is set but the main image never copies a skill there",
            )
            .label("an empty or missing directory")
            .help("add [[skills]] entries, or remove skills_dir"),
        ),
        _ => {}
    }
}

pub(crate) fn artifacts(artifacts: &[Artifact], errors: &ErrorSink<'_>) {
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
            errors.report(
                Diagnostic::value(path.key("destination"), format!("artifact destination `{destination}` {problem}"))
                    .label("Harbor refuses this destination")
                    .help("use a relative path inside the artifacts directory, e.g. \"evidence/mcp-audit.jsonl\""),
            );
        }
        if artifact.source.split('/').any(|part| part == "..") {
            errors.report(
                Diagnostic::value(
                    path.key("source"),
                    format!("artifact source `{}` contains `..`", artifact.source),
                )
                .label("Harbor refuses this source")
                .help("name the file by its absolute path"),
            );
        }
        if let Some(service) = &artifact.service {
            service_name(service, &path.key("service"), errors);
            if service != "main" && !artifact.source.starts_with('/') {
                errors.report(
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

pub(crate) fn collect(verifier: &Verifier, sidecar: &Sidecar, errors: &ErrorSink<'_>) {
    for (index, hook) in verifier.collect.iter().enumerate() {
        let path = ManifestPath::root()
            .key("verifier")
            .key("collect")
            .index(index);
        service_name(&hook.service, &path.key("service"), errors);
        // Harbor runs a sidecar's hook as `sh -c` inside it; the generated sidecar image
        // is FROM scratch, with no shell.
        if hook.service == sidecar.name && sidecar.image.is_none() {
            errors.report(
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

pub(crate) fn service_name(name: &str, path: &ManifestPath, errors: &ErrorSink<'_>) {
    if !SERVICE_NAME.is_match(name) {
        errors.report(
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
pub(crate) fn audit_dir(manifest: &Manifest, errors: &ErrorSink<'_>) -> (Option<String>, String) {
    let audit = &manifest.audit.path;
    let dir = Path::new(audit)
        .parent()
        .map(|dir| dir.to_string_lossy().into_owned());
    match dir.filter(|dir| audit.starts_with('/') && dir != "/") {
        Some(dir) => (Some(dir), audit.clone()),
        None => {
            errors.report(
                Diagnostic::value(ManifestPath::root().key("audit").key("path"), format!("audit path `{audit}` has no directory of its own"))
                    .label("the sidecar's root is read-only")
                    .help("use an absolute path inside a directory that becomes the sidecar's log volume, e.g. /var/log/monitor-mcp/audit.jsonl"),
            );
            (None, audit.clone())
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
