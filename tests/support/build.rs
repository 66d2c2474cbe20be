//! The programs from outside cargo that the workspace's tests run, checked once, before any
//! test builds: a crate asks for them through this crate's features (`redis`, `python3`,
//! `npx`, `node`, set on its `harness-test-support` dev-dependency), and the build fails with
//! one message naming every program missing from PATH and the command that installs it,
//! rather than the tests failing one by one (or passing as skipped) once they run.
//!
//! `cargo test --workspace` unifies the features of every crate it builds, so its message
//! lists everything the whole run needs; `cargo test -p paging` asks only for paging's.
//!
//! Clippy and rust-analyzer build this script too (`cargo clippy --all-targets` runs before
//! CI's apt install ends): under them a missing program is a warning, and the script runs
//! again on the next build, which fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A program some crate's tests start.
struct Program {
    /// The feature that asks for it (`CARGO_FEATURE_<FEATURE>`).
    feature: &'static str,
    /// The command the tests run, looked up in PATH.
    command: &'static str,
    /// The arguments that print its version, and the oldest major version the tests work
    /// with (`None`: any that runs).
    version: Option<(&'static [&'static str], u32)>,
    /// What needs it.
    needed_by: &'static str,
    /// How to install it (Debian, as scripts/test.sh and CI do).
    install: &'static str,
}

const PROGRAMS: &[Program] = &[
    Program {
        feature: "REDIS",
        command: "redis-server",
        version: None,
        needed_by: "the tests of limits and keys shared in Redis (harness-runtime, paging)",
        install: "apt-get install -y redis-server",
    },
    Program {
        feature: "REDIS",
        command: "redis-cli",
        version: None,
        needed_by: "the paging tests, which read the keys in Redis",
        install: "apt-get install -y redis-server (its redis-tools)",
    },
    Program {
        feature: "PYTHON3",
        command: "python3",
        version: Some((&["-c", "import sys; print(sys.version_info[0])"], 3)),
        needed_by: "the gateway's tests (harness-runtime), whose stdio upstream is a Python script (stdlib only)",
        install: "apt-get install -y python3",
    },
    Program {
        feature: "NPX",
        command: "npx",
        version: None,
        needed_by: "the gateway example's tests, whose upstream is server-everything (npx)",
        install: "apt-get install -y npm",
    },
    Program {
        feature: "NODE",
        command: "node",
        version: Some((
            &["-e", "console.log(process.versions.node.split('.')[0])"],
            20,
        )),
        needed_by: "the oauth-resource tests, whose OpenID provider is tests/oauth/provider.mjs",
        install: "apt-get install -y nodejs npm (Node 20 or later)",
    },
    Program {
        feature: "NODE",
        command: "npm",
        version: None,
        needed_by: "the oauth-resource tests: scripts/oauth-provider.sh installs oidc-provider with it",
        install: "apt-get install -y npm",
    },
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut missing = Vec::new();
    for program in PROGRAMS {
        if std::env::var_os(format!("CARGO_FEATURE_{}", program.feature)).is_none() {
            continue;
        }
        match find(&path, program.command) {
            None => missing.push(format!(
                "  {}: not on PATH; needed by {}\n      install: {}",
                program.command, program.needed_by, program.install
            )),
            Some(found) => {
                if let Some(problem) = version_problem(&found, program) {
                    missing.push(format!(
                        "  {} ({}): {problem}; needed by {}\n      install: {}",
                        program.command,
                        found.display(),
                        program.needed_by,
                        program.install
                    ));
                }
                // Checked again if it is removed or replaced. (Not on every change of PATH: a
                // build script run again rebuilds this crate and relinks every test binary.)
                println!("cargo::rerun-if-changed={}", found.display());
            }
        }
    }
    if missing.is_empty() {
        return;
    }
    let message = format!(
        "the tests being built run programs this machine lacks; install them and run again:\n{}\n\
         (scripts/test.sh installs redis-server itself when run as root)",
        missing.join("\n")
    );
    if checking_only() {
        for line in message.lines() {
            println!("cargo::warning={line}");
        }
        // A path never created: the next build (`cargo test`) runs this script again.
        let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
        println!("cargo::rerun-if-changed={out}/programs-missing");
        return;
    }
    eprintln!("error: {message}");
    std::process::exit(1);
}

/// The first `command` in `path` that is an executable file.
fn find(path: &std::ffi::OsStr, command: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path)
        .map(|dir| dir.join(command))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
}

/// Why the program found does not do, if it does not: it does not run, or is too old.
fn version_problem(found: &Path, program: &Program) -> Option<String> {
    let (args, minimum) = program.version?;
    let output = match Command::new(found).args(args).output() {
        Ok(output) if output.status.success() => output,
        Ok(output) => {
            return Some(format!(
                "does not run ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Err(error) => return Some(format!("does not run: {error}")),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.trim().parse::<u32>() {
        Ok(major) if major >= minimum => None,
        Ok(major) => Some(format!(
            "version {major}, the tests need {minimum} or later"
        )),
        Err(_) => Some(format!("printed no version ({:?})", stdout.trim())),
    }
}

/// Whether cargo only checks (clippy, rust-analyzer): no test will run from this build.
fn checking_only() -> bool {
    let named = |var: &str, tool: &str| std::env::var(var).is_ok_and(|value| value.contains(tool));
    named("RUSTC_WORKSPACE_WRAPPER", "clippy-driver")
        || named("RUSTC_WRAPPER", "rust-analyzer")
        || std::env::var_os("RA_RUSTC_WRAPPER").is_some()
}
