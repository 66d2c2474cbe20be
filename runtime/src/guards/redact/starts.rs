//! Where a match of an alternation can start, for a short text: the first two bytes of every
//! match, worked out from the pattern by `regex-syntax`'s prefix extraction. A text of a few
//! words (a key such as `message`, a short value) where no pair of bytes starts a match is
//! left without running the regex, whose set-up costs a thousand instructions on any text;
//! a longer one goes to the regex's own prefilter, which is faster per byte.

use regex_syntax::hir::literal::Extractor;

/// Texts up to this many bytes are checked here before the regex runs.
const SHORT: usize = 64;

/// The bytes every match of a pattern starts with.
pub(super) struct Starts {
    /// Byte pairs `(a, b)` at bit `a * 256 + b`: the first two bytes of a prefix literal.
    pairs: Box<[u64; 1024]>,
    /// Bytes that are a whole prefix literal on their own (a match may start with one and
    /// continue with anything).
    singles: [u64; 4],
    /// The fewest bytes a match takes: a match must start this far from the end at least.
    shortest: usize,
}

fn has(bits: &[u64], index: usize) -> bool {
    bits[index / 64] & (1 << (index % 64)) != 0
}

fn set(bits: &mut [u64], index: usize) {
    bits[index / 64] |= 1 << (index % 64);
}

impl Starts {
    /// The starts of `pattern`'s matches, when every match is known to start with one of a
    /// finite set of literals none of them empty (`None`, so that every text is scanned,
    /// otherwise).
    pub(super) fn of(pattern: &str) -> Option<Self> {
        let hir = regex_syntax::parse(pattern).ok()?;
        let shortest = hir.properties().minimum_len()?;
        // Two bytes are all this looks at: a longer literal is cut to its first two (the
        // contract stays: every match starts with one of them).
        let prefixes = Extractor::new().limit_literal_len(2).extract(&hir);
        let literals = prefixes.literals()?;
        let mut starts = Self {
            pairs: Box::new([0; 1024]),
            singles: [0; 4],
            shortest,
        };
        for literal in literals {
            match *literal.as_bytes() {
                [] => return None,
                [first] => set(&mut starts.singles, usize::from(first)),
                [first, second, ..] => set(
                    &mut starts.pairs[..],
                    usize::from(first) * 256 + usize::from(second),
                ),
            }
        }
        Some(starts)
    }

    /// False only when no match can start anywhere in `text`; true for a text too long to
    /// check here, which the regex then scans.
    pub(super) fn may_match(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        if bytes.len() > SHORT {
            return true;
        }
        let Some(last_start) = bytes.len().checked_sub(self.shortest.max(1)) else {
            return false;
        };
        (0..=last_start).any(|at| {
            let first = usize::from(bytes[at]);
            has(&self.singles, first)
                || bytes
                    .get(at + 1)
                    .is_some_and(|&second| has(&self.pairs[..], first * 256 + usize::from(second)))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use proptest::prelude::*;
    use regex::Regex;

    use super::*;
    use crate::guards::redact::kinds::{BESIDE, BESIDE_ANCHORS, BUILTINS};

    /// The built-ins' alternation as `Alternation::new` builds it.
    fn builtins() -> String {
        BUILTINS
            .iter()
            .map(|builtin| format!("({})", builtin.pattern))
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn words_that_start_no_secret_are_left_unscanned() {
        let main = Starts::of(&builtins()).expect("every built-in starts with a literal");
        let anchors = Starts::of(BESIDE_ANCHORS).expect("the anchors are literals");
        for word in ["message", "hello", "result", "status: done", "", "x"] {
            assert!(!main.may_match(word), "{word}");
            assert!(!anchors.may_match(word), "{word}");
        }
        for text in [
            "sk-abc",
            "AKIA0123456789ABCDEF",
            "the aws key",
            "https://x",
            "a://b:c@d",
            "SECRET",
        ] {
            assert!(main.may_match(text), "{text}");
        }
        assert!(anchors.may_match("password"));
        assert!(anchors.may_match("[REDACTED:aws_access_key] x"));
        // Long texts are the regex's to scan.
        assert!(main.may_match(&"m".repeat(SHORT + 1)));
    }

    #[test]
    fn a_pattern_that_can_start_anywhere_has_no_starts() {
        assert!(Starts::of(r"[a-z]+secret").is_none());
        assert!(Starts::of(r"x?").is_none());
        assert!(Starts::of(r"(").is_none());
        let single = Starts::of(r"a|bcd").expect("two literals");
        assert!(single.may_match("xa"));
        assert!(single.may_match("xbcd"));
        assert!(!single.may_match("xyzb"));
    }

    /// Texts built from the bytes that start matches, so that candidates and matches are
    /// common, with the odd non-ASCII character.
    fn texts() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                8 => prop::sample::select(vec![
                    "sk-", "sk_live_", "AKIA", "aws", "secret", "SECRET", "password", "://",
                    "@", ":", "ey", "J", "gh", "p_", "xox", "b-", "-----BEGIN", "[REDACTED:",
                    "aws_access_key]", "Au", "thorization", "npm_", "ht", "tps", "glpat-",
                    "AIza", "ecret", "ccount", "hared", "assw", "-", "_", " ", "\n",
                ]).prop_map(str::to_owned),
                4 => "[A-Za-z0-9]{1,6}",
                1 => "[\u{80}-\u{10ffff}]",
            ],
            0..12,
        )
        .prop_map(|pieces| pieces.concat())
    }

    /// The built-ins' alternation, the anchors and the beside alternation, each with its
    /// starts, compiled once for every case.
    static PATTERNS: LazyLock<Vec<(Regex, Starts)>> = LazyLock::new(|| {
        let beside = BESIDE
            .iter()
            .map(|builtin| format!("({})", builtin.pattern))
            .collect::<Vec<_>>()
            .join("|");
        [builtins(), BESIDE_ANCHORS.to_owned(), beside]
            .iter()
            .map(|pattern| {
                let starts = Starts::of(pattern).expect("each starts with literals");
                (Regex::new(pattern).unwrap(), starts)
            })
            .collect()
    });

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// What the filter passes over, the regex finds nothing in.
        #[test]
        fn a_text_the_filter_skips_has_no_match(text in texts()) {
            for (regex, starts) in PATTERNS.iter() {
                prop_assert!(
                    starts.may_match(&text) || !regex.is_match(&text),
                    "{regex} matches {text:?}"
                );
            }
        }
    }
}
