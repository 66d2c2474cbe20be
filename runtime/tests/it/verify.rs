//! The strict audit and state-file readers against a corpus of bad evidence: one file per
//! rule, plus a truncated last line, CRLF, a BOM, a 10 MiB file and duplicate keys. Each must
//! give the right one of the three outcomes, with the right reason.

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
fn infrastructure_failures_of_the_audit_file() {
    let state = Some(good_state());
    let good = record(&[]);
    infra(run("missing", None, state), "MCP audit is missing");
    infra(
        run("huge", Some(&vec![b'x'; 10 * 1024 * 1024]), state),
        "larger than 1048576 bytes",
    );
    infra(run("not-utf8", Some(b"\xff\xfe{}\n"), state), "not UTF-8");
    infra(
        run("bom", Some(format!("\u{feff}{good}\n").as_bytes()), state),
        "byte-order mark",
    );
    infra(
        run(
            "truncated",
            Some(format!("{good}\n{}", &good[..40]).as_bytes()),
            state,
        ),
        "truncated",
    );
    infra(
        run("crlf", Some(format!("{good}\r\n").as_bytes()), state),
        "carriage return",
    );
    infra(
        run(
            "long-line",
            Some(
                format!(
                    "{}\n",
                    record(&[("tool", &format!("\"{}\"", "x".repeat(5000)))])
                )
                .as_bytes(),
            ),
            state,
        ),
        "longer than 4096 bytes",
    );
    let many: Vec<String> = (0..257)
        .map(|i| {
            record(&[(
                "call_id",
                &format!("\"{i:08x}-9b4d-4c3e-8a7f-0d1e2f3a4b5c\""),
            )])
        })
        .collect();
    infra(
        run("too-many-lines", Some(&lines(&many)), state),
        "257 lines",
    );
    infra(
        run(
            "blank-line",
            Some(format!("{good}\n\n{good}\n").as_bytes()),
            state,
        ),
        "line 2 is empty",
    );
    infra(
        run("not-json", Some(b"{\"tool\":\n"), state),
        "line 1 is not valid JSON",
    );
    infra(
        run("not-object", Some(b"[1,2]\n"), state),
        "not a JSON object",
    );
    infra(
        run(
            "duplicate-key",
            Some(
                format!(
                    "{}\n",
                    good.replacen(
                        "\"outcome\":\"ok\"",
                        "\"outcome\":\"ok\",\"outcome\":\"ok\"",
                        1
                    )
                )
                .as_bytes(),
            ),
            state,
        ),
        "duplicate key \"outcome\"",
    );
    infra(
        run(
            "nan",
            Some(format!("{}\n", record(&[("duration_ms", "NaN")])).as_bytes()),
            state,
        ),
        "not valid JSON",
    );
    infra(
        run(
            "extra-field",
            Some(&lines(&[record(&[("note", "\"x\"")])])),
            state,
        ),
        "fields are",
    );
    infra(
        run(
            "missing-field",
            Some(&lines(&[record(&[("duration_ms", "")])])),
            state,
        ),
        "fields are",
    );
    infra(
        run(
            "schema-version",
            Some(&lines(&[record(&[("schema_version", "2")])])),
            state,
        ),
        "schema_version is not 1",
    );
    infra(
        run(
            "schema-version-float",
            Some(&lines(&[record(&[("schema_version", "1.0")])])),
            state,
        ),
        "schema_version is not 1",
    );
    infra(
        run(
            "no-timezone",
            Some(&lines(&[record(&[(
                "timestamp",
                "\"2026-11-29T23:41:13\"",
            )])])),
            state,
        ),
        "not RFC 3339 with a time zone",
    );
    infra(
        run(
            "bad-uuid",
            Some(&lines(&[record(&[("call_id", "\"not-a-uuid\"")])])),
            state,
        ),
        "not a UUIDv4",
    );
    infra(
        run(
            "uuid-v1",
            Some(&lines(&[record(&[(
                "call_id",
                "\"6f1c2a8e-9b4d-1c3e-8a7f-0d1e2f3a4b5c\"",
            )])])),
            state,
        ),
        "not a UUIDv4",
    );
    infra(
        run(
            "duplicate-call-id",
            Some(&lines(&[good.clone(), good.clone()])),
            state,
        ),
        "is a duplicate",
    );
    infra(
        run(
            "unknown-tool",
            Some(&lines(&[record(&[("tool", "\"restart_service\"")])])),
            state,
        ),
        "unknown tool",
    );
    infra(
        run(
            "bad-digest",
            Some(&lines(&[record(&[("args_sha256", "\"ABC\"")])])),
            state,
        ),
        "64 lowercase hex",
    );
    infra(
        run(
            "unknown-outcome",
            Some(&lines(&[record(&[("outcome", "\"great\"")])])),
            state,
        ),
        "unknown outcome",
    );
    infra(
        run(
            "negative-duration",
            Some(&lines(&[record(&[("duration_ms", "-1")])])),
            state,
        ),
        "duration_ms",
    );
    infra(
        run(
            "huge-duration",
            Some(&lines(&[record(&[("duration_ms", "60001")])])),
            state,
        ),
        "duration_ms",
    );
    infra(
        run(
            "string-duration",
            Some(&lines(&[record(&[("duration_ms", "\"3\"")])])),
            state,
        ),
        "duration_ms",
    );
}

#[test]
fn infrastructure_failures_of_the_state_file() {
    let audit = lines(&[record(&[])]);
    let audit = Some(audit.as_slice());
    infra(run("state-missing", audit, None), "state file is missing");
    infra(run("state-empty", audit, Some("")), "is empty");
    infra(
        run("state-huge", audit, Some(&"x".repeat(5000))),
        "larger than 4096 bytes",
    );
    infra(run("state-not-json", audit, Some("{")), "not valid JSON");
    infra(
        run(
            "state-duplicate",
            audit,
            Some(
                "{\"restart_request_present\":false,\"restart_request_present\":false,\"schema_version\":1}",
            ),
        ),
        "duplicate key",
    );
    infra(
        run(
            "state-extra",
            audit,
            Some("{\"restart_request_present\":false,\"schema_version\":1,\"x\":1}"),
        ),
        "fields are",
    );
    infra(
        run(
            "state-type",
            audit,
            Some("{\"restart_request_present\":\"false\",\"schema_version\":1}"),
        ),
        "is not boolean",
    );
    infra(
        run(
            "state-version",
            audit,
            Some("{\"restart_request_present\":false,\"schema_version\":2}"),
        ),
        "schema_version is not 1",
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

/// Where this verifier differs from a Python reader built on `json`, `uuid`,
/// `datetime.fromisoformat` and `str.splitlines` (how Harbor tasks' verifiers are usually
/// written), or matches it, case by case.
#[test]
fn differences_from_a_python_reader_are_pinned() {
    let state = Some(good_state());
    let with = |field: &str, value: &str| lines(&[record(&[(field, value)])]);
    // Matches Python: a version-4 nibble with another variant is not a UUIDv4 (Python's
    // UUID reports version None for it).
    infra(
        run(
            "variant",
            Some(&with("call_id", "\"6f1c2a8e-9b4d-4c3e-1a7f-0d1e2f3a4b5c\"")),
            state,
        ),
        "is not a UUIDv4",
    );
    // Stricter than Python's `uuid.UUID`, which accepts these spellings: the writer only ever writes
    // lower-case hyphenated ids, so another spelling was not written by it.
    for (name, id) in [
        ("upper", "\"6F1C2A8E-9B4D-4C3E-8A7F-0D1E2F3A4B5C\""),
        ("braced", "\"{6f1c2a8e-9b4d-4c3e-8a7f-0d1e2f3a4b5c}\""),
        ("urn", "\"urn:uuid:6f1c2a8e-9b4d-4c3e-8a7f-0d1e2f3a4b5c\""),
        ("simple", "\"6f1c2a8e9b4d4c3e8a7f0d1e2f3a4b5c\""),
    ] {
        infra(
            run(name, Some(&with("call_id", id)), state),
            "is not a UUIDv4",
        );
    }
    // Lower-case `z` is refused by `fromisoformat` too; lower-case `t` is refused here although
    // `fromisoformat` takes it with a numeric offset: the writer spells both in capitals.
    for (name, timestamp) in [
        ("lower-z", "\"2026-11-29T23:41:13.123456z\""),
        ("lower-t", "\"2026-11-29t23:41:13.123456+00:00\""),
        ("no-zone", "\"2026-11-29T23:41:13.123456\""),
    ] {
        infra(
            run(name, Some(&with("timestamp", timestamp)), state),
            "RFC 3339",
        );
    }
    assert_eq!(
        run(
            "offset",
            Some(&with("timestamp", "\"2026-11-29T23:41:13.123456+00:00\"")),
            state
        ),
        Verdict::Pass
    );
    // Stricter than `splitlines`: CRLF and a missing final newline are refused, since
    // the writer ends every record with one LF and a missing one means a cut-off write.
    let good = record(&[]);
    infra(
        run("crlf-line", Some(format!("{good}\r\n").as_bytes()), state),
        "carriage return",
    );
    infra(
        run("no-final-newline", Some(good.as_bytes()), state),
        "truncated",
    );
    // The outcome set is the manifest's (here four), since this server also records
    // refusals; anything else is refused.
    infra(
        run("outcome", Some(&with("outcome", "\"exploded\"")), state),
        "unknown outcome",
    );
    // Empty audit and missing state file together: a reader that stops at the first problem
    // would score a candidate failure; here missing evidence wins, so a broken collection is retried rather than
    // scored 0 against the candidate.
    infra(run("empty-and-no-state", Some(b""), None), "state file");
    candidate(run("empty", Some(b""), state), "never called");
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
