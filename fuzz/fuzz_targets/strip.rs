//! The tag strip's invariants on any text: it never panics, its output is a fixed point, and
//! the output is exactly what the independent oracle (`harness_test_support::strip_oracle`)
//! says the strip promises: nothing it removes is left (no construct, hidden character, block
//! contents or escape-sequence tail) and nothing it keeps is gone. Two simpler properties
//! guard against over-stripping on their own: every character kept is in the input, in order,
//! and a text with nothing to strip comes back unchanged.

#![no_main]

use harness_runtime::guards::strip::sanitize;
use harness_test_support::strip_oracle::{expected_strip, find_leak, is_plain, only_removes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let once = sanitize(text, true);
    let twice = sanitize(&once, true);
    assert_eq!(twice, once, "not a fixed point for {text:?}");
    if let Some(leak) = find_leak(text, &once) {
        panic!("{leak} in {once:?} from {text:?}");
    }
    assert!(only_removes(text, &once), "{once:?} adds to {text:?}");
    if is_plain(text) {
        assert_eq!(once, text, "nothing to strip in {text:?}");
    }
    // Without tag stripping, exactly the hidden characters go.
    let hidden_only = sanitize(text, false);
    assert_eq!(sanitize(&hidden_only, false), hidden_only);
    assert_eq!(hidden_only, expected_strip(text, false), "from {text:?}");
});
