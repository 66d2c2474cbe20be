//! The tag strip's invariants on any text: it never panics, its output is a fixed point,
//! and the output holds nothing the strip promises to remove (checked by the independent
//! regular expressions of `strip_oracle`).

#![no_main]

use harness_runtime::guards::strip::sanitize;
use harness_runtime::guards::strip_oracle::find_leak;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let once = sanitize(text, true);
    let twice = sanitize(&once, true);
    assert_eq!(twice, once, "not a fixed point for {text:?}");
    if let Some(leak) = find_leak(&once) {
        panic!("{leak} left in {once:?} from {text:?}");
    }
    // Without tag stripping, hidden characters still go.
    let hidden_only = sanitize(text, false);
    assert_eq!(sanitize(&hidden_only, false), hidden_only);
});
