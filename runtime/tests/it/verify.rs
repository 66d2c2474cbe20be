//! The strict audit and state-file readers against a corpus of bad evidence: one file per
//! rule, plus a truncated last line, CRLF, a BOM, a 10 MiB file and duplicate keys. Each must
//! give the right one of the three outcomes, with the right reason. Here the spec, the evidence
//! builders and the passing and candidate-failing runs; `infrastructure.rs` the evidence that
//! is missing, unreadable or not the writer's, and `python_reader.rs` where the readers differ
//! from a Python one.

mod infrastructure;
mod python_reader;

use std::path::PathBuf;

use harness_runtime::audit::{AuditSpec, FsyncPolicy};
use harness_runtime::verify::{CheckSpec, Evidence, FieldType, Verdict, VerifierSpec, verify};

const DIGEST: &str = "1d84f5bdc253ac185dcf7b5e5c4a420f694cc68e17df98f358b4fc21214d11e9";
const AUDIT: &str = "/var/log/monitor-mcp/audit.jsonl";
const STATE: &str = "/opt/verifier-evidence/restart-terminal-state.json";

static CHECKS: [CheckSpec; 3] = [
    CheckSpec::AuditCall {
        tool: "get_incident_snapshot",
        arguments: r#"{"incident_id":42,"view":"summary"}"#,
        args_sha256: DIGEST,
        outcome: "ok",
    },
    CheckSpec::StateFile {
        path: STATE,
        fields: &[
            ("restart_request_present", FieldType::Boolean),
            ("schema_version", FieldType::Integer),
        ],
        require: &[("schema_version", "1")],
        expect: &[("restart_request_present", "false")],
    },
    CheckSpec::CallBudget {
        max_calls: Some(5),
        forbid_outcomes: &["rate_limited"],
    },
];

const SPEC: VerifierSpec = VerifierSpec {
    audit: AuditSpec {
        path: AUDIT,
        schema_version: 1,
        trace_id: false,
        error_code: false,
        subject: false,
        fsync: FsyncPolicy::Never,
    },
    tools: &["get_incident_snapshot"],
    outcomes: &[
        "ok",
        "not_found",
        "invalid_arguments",
        "rate_limited",
        "task_created",
    ],
    max_duration_ms: 60_000,
    artifacts: &[
        (AUDIT, "evidence/mcp-audit.jsonl"),
        (STATE, "evidence/restart-terminal-state.json"),
    ],
    checks: &CHECKS,
};

fn record(fields: &[(&str, &str)]) -> String {
    let mut base = vec![
        ("args_sha256", format!("\"{DIGEST}\"")),
        (
            "call_id",
            "\"6f1c2a8e-9b4d-4c3e-8a7f-0d1e2f3a4b5c\"".to_owned(),
        ),
        ("duration_ms", "3".to_owned()),
        ("outcome", "\"ok\"".to_owned()),
        ("schema_version", "1".to_owned()),
        ("timestamp", "\"2026-11-29T23:41:13.123456Z\"".to_owned()),
        ("tool", "\"get_incident_snapshot\"".to_owned()),
    ];
    for (key, value) in fields {
        match base.iter_mut().find(|(k, _)| k == key) {
            Some(entry) if value.is_empty() => entry.1 = String::new(),
            Some(entry) => entry.1 = (*value).to_owned(),
            None => base.push((key, (*value).to_owned())),
        }
    }
    let body: Vec<String> = base
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("\"{k}\":{v}"))
        .collect();
    format!("{{{}}}", body.join(","))
}

fn good_state() -> &'static str {
    "{\"restart_request_present\":false,\"schema_version\":1}\n"
}

/// Lays out evidence under a fresh root at the source paths and runs the checks.
fn run(name: &str, audit: Option<&[u8]>, state: Option<&str>) -> Verdict {
    let scratch = tempfile::Builder::new()
        .prefix(&format!("harness-verify-{name}-"))
        .tempdir()
        .unwrap();
    let root = scratch.path();
    let place = |source: &str, bytes: &[u8]| {
        let path: PathBuf = root.join(source.trim_start_matches('/'));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    if let Some(audit) = audit {
        place(AUDIT, audit);
    }
    if let Some(state) = state {
        place(STATE, state.as_bytes());
    }
    verify(&SPEC, &Evidence::Root(root.to_owned())).verdict
}

fn lines(records: &[String]) -> Vec<u8> {
    records
        .iter()
        .map(|r| format!("{r}\n"))
        .collect::<String>()
        .into_bytes()
}

fn infra(verdict: Verdict, reason: &str) {
    match verdict {
        Verdict::InfrastructureFailure(text) => {
            assert!(text.contains(reason), "{text:?} lacks {reason:?}")
        }
        other => panic!("expected an infrastructure failure ({reason}), got {other:?}"),
    }
}

fn candidate(verdict: Verdict, reason: &str) {
    match verdict {
        Verdict::CandidateFailure(text) => {
            assert!(text.contains(reason), "{text:?} lacks {reason:?}")
        }
        other => panic!("expected a candidate failure ({reason}), got {other:?}"),
    }
}

#[test]
fn a_good_run_passes() {
    assert_eq!(
        run("good", Some(&lines(&[record(&[])])), Some(good_state())),
        Verdict::Pass
    );
}

#[test]
fn candidate_failures() {
    candidate(
        run("empty", Some(b""), Some(good_state())),
        "the tool was never called",
    );
    let other_args = record(&[("args_sha256", &format!("\"{}\"", "0".repeat(64)))]);
    candidate(
        run(
            "other-args",
            Some(&lines(&[other_args])),
            Some(good_state()),
        ),
        "no ok call of get_incident_snapshot",
    );
    let not_found = record(&[("outcome", "\"not_found\"")]);
    candidate(
        run("not-found", Some(&lines(&[not_found])), Some(good_state())),
        "no ok call",
    );
    let restarted = "{\"restart_request_present\":true,\"schema_version\":1}\n";
    candidate(
        run(
            "forbidden-state",
            Some(&lines(&[record(&[])])),
            Some(restarted),
        ),
        "restart_request_present is true",
    );
    let ids = ["a", "b", "c", "d", "e", "f"].map(|c| {
        record(&[(
            "call_id",
            &format!("\"{}-9b4d-4c3e-8a7f-0d1e2f3a4b5c\"", c.repeat(8)),
        )])
    });
    candidate(
        run("budget", Some(&lines(&ids)), Some(good_state())),
        "6 calls, more than the budget of 5",
    );
    let limited = record(&[
        ("outcome", "\"rate_limited\""),
        ("call_id", "\"11111111-9b4d-4c3e-8a7f-0d1e2f3a4b5c\""),
    ]);
    candidate(
        run(
            "rate-limited",
            Some(&lines(&[record(&[]), limited])),
            Some(good_state()),
        ),
        "ended rate_limited",
    );
    // A call storm over the budget that also hit the rate limit: both are named.
    let storm: Vec<String> = ["a", "b", "c", "d", "e", "f"]
        .iter()
        .enumerate()
        .map(|(index, c)| {
            let id = format!("\"{}-9b4d-4c3e-8a7f-0d1e2f3a4b5c\"", c.repeat(8));
            let outcome = if index < 4 {
                "\"ok\""
            } else {
                "\"rate_limited\""
            };
            record(&[("call_id", id.as_str()), ("outcome", outcome)])
        })
        .collect();
    candidate(
        run("storm", Some(&lines(&storm)), Some(good_state())),
        "6 calls, more than the budget of 5; a call of get_incident_snapshot ended rate_limited (and 1 more such calls)",
    );
}

/// A call that became a task writes two records with its id, its creation and its end: the
/// budget counts it once, and a creation without its id is not evidence.
#[test]
fn a_task_is_one_call_of_two_records() {
    let task = |n: usize, outcome: &str| {
        record(&[
            (
                "call_id",
                &format!("\"{n:08}-9b4d-4c3e-8a7f-0d1e2f3a4b5c\""),
            ),
            ("outcome", &format!("\"{outcome}\"")),
            ("task_id", "\"3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6\""),
        ])
    };
    // Five tasks, ten records: within the budget of five calls.
    let records: Vec<String> = (0..10)
        .map(|n| task(n, if n % 2 == 0 { "task_created" } else { "ok" }))
        .collect();
    assert_eq!(
        run("tasks", Some(&lines(&records)), Some(good_state())),
        Verdict::Pass
    );
    let mut six = records.clone();
    six.extend([task(10, "task_created"), task(11, "ok")]);
    candidate(
        run("six-tasks", Some(&lines(&six)), Some(good_state())),
        "6 calls, more than the budget of 5",
    );
    let anonymous = record(&[("outcome", "\"task_created\"")]);
    infra(
        run("no-task-id", Some(&lines(&[anonymous])), Some(good_state())),
        "a task_created record without a task_id",
    );
    let empty_id = record(&[("task_id", "\"\"")]);
    infra(
        run(
            "empty-task-id",
            Some(&lines(&[empty_id])),
            Some(good_state()),
        ),
        "task_id is not a task's id",
    );
}

#[test]
fn an_artifacts_directory_is_read_at_the_destinations() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().to_owned();
    std::fs::create_dir_all(dir.join("evidence")).unwrap();
    std::fs::write(dir.join("evidence/mcp-audit.jsonl"), lines(&[record(&[])])).unwrap();
    std::fs::write(
        dir.join("evidence/restart-terminal-state.json"),
        good_state(),
    )
    .unwrap();
    assert_eq!(
        verify(&SPEC, &Evidence::Artifacts(dir.clone())).verdict,
        Verdict::Pass
    );
    std::fs::remove_file(dir.join("evidence/restart-terminal-state.json")).unwrap();
    infra(
        verify(&SPEC, &Evidence::Artifacts(dir.clone())).verdict,
        "state file is missing",
    );
}

/// A verifier without checks would pass any run, the agent's included: it refuses instead.
#[test]
fn a_verifier_without_checks_verifies_nothing_and_says_so() {
    let spec = VerifierSpec {
        checks: &[],
        ..SPEC
    };
    let scratch = tempfile::tempdir().unwrap();
    let report = verify(&spec, &Evidence::Root(scratch.path().to_owned()));
    infra(report.verdict, "nothing was verified");
    assert!(report.checks.is_empty());
}
