//! Evidence the verifier cannot score, an infrastructure failure whatever the agent did: an
//! audit file or a state file missing, too large, not UTF-8 or JSON, truncated, with a
//! duplicate key, an unknown field or a wrong type, or records the writer never writes.

use super::{good_state, infra, lines, record, run};

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
