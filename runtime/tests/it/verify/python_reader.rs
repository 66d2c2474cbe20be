//! The readers against a Python reader built on `json`, `uuid`, `datetime.fromisoformat` and
//! `str.splitlines`, the usual way a Harbor task's verifier is written.

use harness_runtime::verify::Verdict;

use super::{candidate, good_state, infra, lines, record, run};

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
