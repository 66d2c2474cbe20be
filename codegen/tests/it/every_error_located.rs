//! Every manifest error has a location, even those the TOML parser reports without one.

use std::path::Path;

#[test]
fn nesting_past_the_parsers_recursion_limit_is_located() {
    // Found by the manifest fuzzer: a table header nested past the recursion limit came back
    // as an error with no span.
    let source = format!(
        "[server]\nname = \"x\"\nversion = \"1\"\n\n[{}tools]]\nname = \"t\"\n",
        "a.".repeat(400)
    );
    let errors = harness_codegen::load(&source, "harness.toml", Path::new("."))
        .expect_err("too deep to parse");
    let messages: Vec<&str> = errors
        .diagnostics()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("recursion limit")),
        "{messages:?}"
    );
    assert!(
        errors.locations().iter().all(Option::is_some),
        "{}",
        errors.render_plain()
    );
    assert_eq!(errors.locations()[0], Some((5, 1)), "the deepest line");
}
