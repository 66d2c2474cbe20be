//! Snapshots of every generated artifact (the default manifest and every good fixture) and
//! of the rendered errors of every bad fixture. A policy or schema change shows up here as
//! a reviewable diff; `cargo insta review` accepts it.

use std::panic::AssertUnwindSafe;
use std::path::Path;

use harness_codegen::{EmitOptions, generate};

fn options(manifest_name: &str) -> EmitOptions {
    EmitOptions {
        manifest_name: manifest_name.to_owned(),
        ..EmitOptions::default()
    }
}

/// Asserts every artifact's snapshot, the generated server first (the file a manifest change
/// is about), and reports every mismatch rather than stopping at the first, so one
/// `cargo insta review` sees them all.
fn assert_artifacts(prefix: &str, artifacts: harness_codegen::Artifacts) {
    let (server, rest): (Vec<_>, Vec<_>) = artifacts
        .into_iter()
        .partition(|(path, _)| path == harness_codegen::emit::SERVER_FILE);
    let failed: Vec<String> = server
        .into_iter()
        .chain(rest)
        .filter_map(|(path, text)| {
            let name = format!("{prefix}{}", path.replace('/', "__"));
            let checked = std::panic::catch_unwind(|| insta::assert_snapshot!(name.clone(), text));
            checked.is_err().then_some(name)
        })
        .collect();
    assert!(failed.is_empty(), "snapshots differ: {}", failed.join(", "));
}

fn fixture_name(path: &Path) -> String {
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .expect("fixture dir");
    let file = path.file_name().expect("fixture file");
    format!("{}/{}", parent.to_string_lossy(), file.to_string_lossy())
}

#[test]
fn default_manifest_artifacts() {
    let source = std::fs::read_to_string("harness.toml").expect("harness.toml");
    let artifacts =
        generate(&source, Path::new("."), &options("harness.toml")).expect("harness.toml is valid");
    assert_artifacts("default__", artifacts);
}

#[test]
fn example_manifest_artifacts() {
    for (example, prefix) in [
        ("ops-agent", "ops_agent__"),
        ("paging", "paging__"),
        ("conformance", "conformance__"),
        ("compose-topology-repair", "topology__"),
        ("gateway", "gateway__"),
        ("oauth-resource", "oauth_resource__"),
    ] {
        let path = format!("examples/{example}/harness.toml");
        let source = std::fs::read_to_string(&path).expect("example manifest");
        // Relative paths in a manifest (instruction, skills, build_files) are the example's.
        let base = format!("examples/{example}");
        let artifacts = generate(&source, Path::new(&base), &options(&path)).expect("valid");
        assert_artifacts(prefix, artifacts);
    }
}

/// Runs `check` on every `*.toml` of `dir` with the file's name as the snapshot suffix, and
/// reports every fixture that failed. (Not `insta::glob!`: its failure count is one global
/// stack, so a snapshot failing in a test running beside it was counted as this test's
/// failure, and a failure here could be counted there.)
fn for_each_fixture(dir: &str, check: impl Fn(&Path)) {
    let mut fixtures: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{dir}: {error}"))
        .map(|entry| entry.expect("a readable directory").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    fixtures.sort();
    assert!(!fixtures.is_empty(), "no fixtures in {dir}");
    let failed: Vec<String> = fixtures
        .iter()
        .filter_map(|path| {
            let file_name = path.file_name().expect("a file").to_string_lossy();
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_suffix(file_name.as_ref());
            settings.set_input_file(path);
            // Nothing is shared between fixtures but the read-only `check`.
            let checked =
                std::panic::catch_unwind(AssertUnwindSafe(|| settings.bind(|| check(path))));
            checked.is_err().then(|| file_name.into_owned())
        })
        .collect();
    assert!(failed.is_empty(), "fixtures failed: {}", failed.join(", "));
}

#[test]
fn good_fixture_artifacts() {
    for_each_fixture("tests/fixtures/good", |path| {
        let source = std::fs::read_to_string(path).expect("fixture");
        let name = fixture_name(path);
        let artifacts = generate(&source, Path::new("."), &options(&name))
            .unwrap_or_else(|errors| panic!("{name} should be valid:\n{errors}"));
        assert_artifacts("", artifacts);
    });
}

#[test]
fn bad_fixture_errors() {
    for_each_fixture("tests/fixtures/bad", |path| {
        let source = std::fs::read_to_string(path).expect("fixture");
        let name = fixture_name(path);
        let errors = match generate(&source, Path::new("."), &options(&name)) {
            Ok(_) => panic!("{name} should be refused"),
            Err(errors) => errors,
        };
        // Every diagnostic must be located in the file, not only described.
        for (diagnostic, location) in errors.diagnostics().iter().zip(errors.locations()) {
            assert!(
                location.is_some(),
                "{name}: unlocated error: {}",
                diagnostic.message
            );
        }
        insta::assert_snapshot!(errors.render_plain());
    });
}

#[test]
fn several_errors_are_all_reported() {
    let source = std::fs::read_to_string("tests/fixtures/bad/several_errors.toml").unwrap();
    let errors = generate(&source, Path::new("."), &options("several_errors.toml")).unwrap_err();
    let messages: Vec<&str> = errors
        .diagnostics()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    for expected in [
        "server name is empty",
        "bind is not an IP address with a port",
        "path is not an absolute URL path",
        "tool description is empty",
        "`pattern` does not apply to type `integer`",
        "duplicate argument `id`",
        "the lower bound (2.5) does not lie below the upper bound (1.0)",
        "an enum needs `values`",
        "an array argument needs `items`",
        "array items cannot be of type `object`",
        "an object argument needs `fields`",
        "minimum of an integer argument must be an integer, not 1.5",
        "a required argument cannot have a default",
        "duplicate tool `lookup`",
    ] {
        assert!(
            messages.contains(&expected),
            "missing {expected:?} in {messages:#?}"
        );
    }
}
