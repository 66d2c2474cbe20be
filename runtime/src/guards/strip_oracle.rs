//! What the tag strip promises, written as regular expressions independent of its state
//! machine: the tests, the property tests and the fuzzer check every output against it.

use std::sync::LazyLock;

use regex::Regex;

/// Every construct the strip removes.
static CONSTRUCT: LazyLock<Regex> = LazyLock::new(|| {
    // Tag names as HTML reads them: an ASCII letter, then anything up to ASCII whitespace,
    // `/` or `>`; `\s` here is Unicode whitespace, which includes the ASCII kind.
    Regex::new(concat!(
        r"(?i)<[a-z][^\s/<>]*(?:[\s/][^<>]*)?>",
        r"|</[a-z][^\s/<>]*(?:[\s/][^<>]*)?>",
        r"|<!--",
        r"|<!\[CDATA\[",
        r"|<\|[a-z0-9_.:-]{1,64}\|>",
    ))
    .expect("valid regex")
});

/// Every character the strip removes (or turns into a newline).
static HIDDEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"[\p{Cc}&&[^\n\t]]|\p{Default_Ignorable_Code_Point}",
        r"|[\x{2028}\x{2029}\x{fff9}-\x{fffb}]",
    ))
    .expect("valid regex")
});

/// The first thing in `output` the strip should have removed, described.
pub fn find_leak(output: &str) -> Option<String> {
    if let Some(found) = CONSTRUCT.find(output) {
        return Some(format!("construct {:?}", found.as_str()));
    }
    HIDDEN
        .find(output)
        .map(|found| format!("hidden character {:?}", found.as_str()))
}
