//! The verifier's strict audit reader on any bytes: it never panics, and whatever it accepts
//! holds only records of known tools (or refused unknown ones) with known outcomes.

#![no_main]

use harness_fixtures::incident_monitor::VERIFIER;
use harness_runtime::verify::parse_audit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(entries) = parse_audit(&VERIFIER, data) {
        assert!(data.is_empty() || data.ends_with(b"\n"));
        for entry in entries {
            assert!(
                VERIFIER.outcomes.contains(&entry.outcome.as_str()),
                "{entry:?}"
            );
            assert!(
                VERIFIER.tools.contains(&entry.tool.as_str()) || entry.outcome == "unknown_tool",
                "{entry:?}"
            );
            assert_eq!(entry.args_sha256.len(), 64);
        }
    }
});
