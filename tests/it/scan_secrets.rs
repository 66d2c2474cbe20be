//! scripts/scan_secrets.sh, the last check on every bundle: it finds planted credentials, and
//! a scan that cannot read what it is given proves nothing, so it fails instead of saying
//! "no secrets found".

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Output, Stdio};

use harness_test_support::scratch_dir;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/scan_secrets.sh");

fn scan(path: &Path) -> Output {
    std::process::Command::new("bash")
        .arg(SCRIPT)
        .arg(path)
        .output()
        .expect("bash runs")
}

/// The scan as user and group nobody (65534), without root's supplementary groups (setpriv,
/// util-linux); the script comes on stdin, as nobody may not read this checkout.
fn scan_as_nobody(path: &Path) -> Output {
    let mut child = std::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "bash",
            "-s",
            "--",
        ])
        .arg(path)
        .current_dir(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("setpriv runs (util-linux)");
    let script = std::fs::read(SCRIPT).expect("the scan script is readable");
    child.stdin.take().unwrap().write_all(&script).unwrap();
    child.wait_with_output().expect("setpriv ends")
}

fn described(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_clean_bundle_passes_and_planted_secrets_fail() {
    let bundle = scratch_dir("scan-clean");
    std::fs::write(bundle.join("task.toml"), "name = \"incident-triage\"\n").unwrap();
    let clean = scan(&bundle);
    assert_eq!(clean.status.code(), Some(0), "{}", described(&clean));
    assert!(String::from_utf8_lossy(&clean.stdout).contains("no secrets found"));

    // Written in pieces, so this file holds no credential a scanner would flag.
    let planted = [
        (
            "compose.yaml",
            format!(
                "DATABASE_URL: postgres://admin:{}@db/app\n",
                "hunter2".repeat(2)
            ),
        ),
        ("env/aws", format!("key = AKIA{}\n", "Q7".repeat(8))),
    ];
    for (file, text) in planted {
        let bundle = scratch_dir("scan-planted");
        let path = bundle.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(bundle.join("task.toml"), "name = \"x\"\n").unwrap();
        std::fs::write(&path, text).unwrap();
        let found = scan(&bundle);
        assert_eq!(
            found.status.code(),
            Some(1),
            "{file}: {}",
            described(&found)
        );
        assert!(
            String::from_utf8_lossy(&found.stdout).contains(file),
            "{file}: {}",
            described(&found)
        );
    }
}

#[test]
fn what_the_scan_cannot_read_fails_it() {
    let scratch = scratch_dir("scan-unreadable");
    let missing = scan(&scratch.join("no-such-bundle"));
    assert_eq!(missing.status.code(), Some(2), "{}", described(&missing));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("could not scan"),
        "{}",
        described(&missing)
    );

    // A file the scan may not open. Root opens every file whatever its mode, so as root the
    // scan runs as nobody, who reaches the bundle but not that file; checked first with the
    // file readable, where the same scan must find the token in it.
    let bundle = scratch.join("bundle");
    std::fs::create_dir(&bundle).unwrap();
    let locked = bundle.join("secrets.env");
    std::fs::write(&locked, format!("token = \"{}\"\n", "s3cr3t".repeat(3))).unwrap();
    // The scratch directory is this process's: its owner is who this test runs as.
    let as_root = std::fs::metadata(&*scratch).unwrap().uid() == 0;
    let scan_locked = || {
        if as_root {
            scan_as_nobody(&bundle)
        } else {
            scan(&bundle)
        }
    };
    if as_root {
        // tempfile makes the directory 0700: nobody may enter it, as anyone may enter a bundle.
        std::fs::set_permissions(&*scratch, std::fs::Permissions::from_mode(0o755)).unwrap();
        let readable = scan_locked();
        assert_eq!(readable.status.code(), Some(1), "{}", described(&readable));
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if !as_root {
        assert!(
            std::fs::read(&locked).is_err(),
            "a file of mode 000 was read"
        );
    }
    let unreadable = scan_locked();
    assert_eq!(
        unreadable.status.code(),
        Some(2),
        "{}",
        described(&unreadable)
    );
    assert!(
        String::from_utf8_lossy(&unreadable.stderr).contains("could not scan"),
        "{}",
        described(&unreadable)
    );
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o600)).unwrap();
}
