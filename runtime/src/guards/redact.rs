//! Secret redaction: credentials a body lets slip into its output (a cloud key in a log line,
//! a private key in a config dump, a token in a URL) are replaced by `[REDACTED:<kind>]`
//! before the model reads them.
//!
//! The built-in kinds ([`KINDS`]) are shapes with a fixed prefix or a label, chosen so that
//! hashes, UUIDs, git commit ids, base64 of ordinary text and words such as `sk-learn` are
//! left alone; where a pattern needs context (a label, a header name, a URL's user), only the
//! secret itself is replaced and the context stays readable. The manifest adds patterns of
//! its own (`[[defaults.guards.redact_patterns]]`): the first capture group that takes part
//! in a match is what is replaced, or the whole match when the pattern has none.
//!
//! All patterns, built-in and added, are one alternation compiled once (the built-ins in a
//! `LazyLock`, each added list on its first use), but for the built-ins found beside
//! something else (a secret key beside its key id's marker, a value beside its field's name),
//! a second alternation scanned after it only where one of their literal anchors is. The `regex` crate's automata run in time
//! linear in the text whatever the pattern (no backtracking), so no output can make
//! redaction slow: the text is scanned once, left to right, and a match is replaced whole.
//! Redaction is idempotent: no pattern matches a marker.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{LazyLock, RwLock};

use regex::{Captures, Regex};
use serde_json::Value;

use crate::spec::{GuardSpec, RedactPattern};
use crate::sync::{read, write};

mod kinds;
mod starts;

use self::kinds::BUILTINS;
pub use self::kinds::KINDS;
use self::starts::Starts;

/// One alternative of a compiled alternation.
struct Rule {
    kind: &'static str,
    /// The capture group around the whole alternative.
    group: usize,
    /// The groups inside it that mark the secret: the first that takes part is replaced.
    secrets: std::ops::Range<usize>,
    check: Option<fn(&str) -> bool>,
}

/// Passes of redaction over one text at most (see `Engine::redact`); two suffice for every
/// case found, the rest is headroom.
const MAX_PASSES: usize = 4;

/// A kind, its pattern, and the check on its secret.
type Pattern = (&'static str, &'static str, Option<fn(&str) -> bool>);

/// Patterns as one regex, each alternative a rule.
struct Alternation {
    regex: Regex,
    /// The fewest bytes a match takes: a shorter text (a key, a word, a number) is not
    /// scanned at all, where a scan of five bytes costs as much as one of five hundred.
    shortest_match: usize,
    /// The bytes a match starts with, which a short text must hold for the regex to run.
    starts: Option<Starts>,
    rules: Vec<Rule>,
}

/// The fewest bytes a match of `pattern` takes (0, so that nothing is skipped, when it cannot
/// be worked out).
fn shortest_match(pattern: &str) -> usize {
    regex_syntax::parse(pattern)
        .ok()
        .and_then(|hir| hir.properties().minimum_len())
        .unwrap_or(0)
}

impl Alternation {
    fn new(patterns: impl Iterator<Item = Pattern>) -> Result<Self, regex::Error> {
        let mut alternatives = Vec::new();
        let mut rules = Vec::new();
        let mut group = 1;
        for (kind, pattern, check) in patterns {
            let inner = Regex::new(pattern).map_or(0, |regex| regex.captures_len() - 1);
            rules.push(Rule {
                kind,
                group,
                secrets: group + 1..group + 1 + inner,
                check,
            });
            alternatives.push(format!("({pattern})"));
            group += 1 + inner;
        }
        let alternation = alternatives.join("|");
        Ok(Self {
            regex: Regex::new(&alternation)?,
            shortest_match: shortest_match(&alternation),
            starts: Starts::of(&alternation),
            rules,
        })
    }

    /// `text` with every secret this alternation finds replaced, in one scan.
    fn replace<'t>(&self, text: &'t str, tally: &mut Redactions) -> Cow<'t, str> {
        // Most text holds no secret: a match test needs no capture slots, which for an
        // alternation of every kind cost more than the scan itself.
        if text.len() < self.shortest_match
            || self
                .starts
                .as_ref()
                .is_some_and(|starts| !starts.may_match(text))
            || !self.regex.is_match(text)
        {
            return Cow::Borrowed(text);
        }
        let mut out = String::new();
        let mut last = 0;
        for captures in self.regex.captures_iter(text) {
            let Some((kind, start, end)) = self.secret(&captures) else {
                continue;
            };
            out.push_str(&text[last..start]);
            out.push_str("[REDACTED:");
            out.push_str(kind);
            out.push(']');
            last = end;
            *tally.0.entry(kind).or_default() += 1;
        }
        if out.is_empty() {
            return Cow::Borrowed(text);
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// The kind and span of the secret in one match, unless its check refuses it or it is
    /// empty.
    fn secret(&self, captures: &Captures<'_>) -> Option<(&'static str, usize, usize)> {
        let rule = self
            .rules
            .iter()
            .find(|rule| captures.get(rule.group).is_some())?;
        let secret = rule
            .secrets
            .clone()
            .find_map(|group| captures.get(group))
            .or_else(|| captures.get(rule.group))?;
        if secret.is_empty() || rule.check.is_some_and(|check| !check(secret.as_str())) {
            return None;
        }
        Some((rule.kind, secret.start(), secret.end()))
    }
}

/// The built-ins found beside something else ([`kinds::BESIDE`]), scanned only in a text
/// that holds one of their anchors.
struct Beside {
    anchors: Regex,
    /// The fewest bytes an anchor takes.
    shortest_anchor: usize,
    /// The bytes an anchor starts with.
    anchor_starts: Option<Starts>,
    alternation: Alternation,
}

static BESIDE: LazyLock<Beside> = LazyLock::new(|| Beside {
    anchors: Regex::new(kinds::BESIDE_ANCHORS).expect("the anchors are literals"),
    shortest_anchor: shortest_match(kinds::BESIDE_ANCHORS),
    anchor_starts: Starts::of(kinds::BESIDE_ANCHORS),
    alternation: Alternation::new(kinds::BESIDE.iter().map(|b| (b.kind, b.pattern, b.check)))
        .expect("the built-in patterns compile"),
});

/// Every pattern of one policy: the built-ins and the manifest's added ones as one
/// alternation, then the built-ins found beside something else.
struct Engine {
    main: Alternation,
}

impl Engine {
    /// The built-ins followed by `added`. An added pattern that does not compile (codegen
    /// refuses those, so only a hand-written spec has one) is left out and logged.
    fn new(added: &[RedactPattern]) -> Self {
        let builtins = BUILTINS.iter().map(|b| (b.kind, b.pattern, b.check));
        let added = added.iter().filter_map(|pattern| {
            match Regex::new(pattern.pattern) {
                Ok(_) => Some((pattern.kind, pattern.pattern, None)),
                Err(error) => {
                    tracing::error!(kind = pattern.kind, %error, "a redaction pattern does not compile; it is left out");
                    None
                }
            }
        });
        match Alternation::new(builtins.chain(added)) {
            Ok(main) => Self { main },
            Err(error) => {
                tracing::error!(%error, "the added redaction patterns do not compile together (duplicate group names?); only the built-in ones apply");
                Self::new(&[])
            }
        }
    }

    /// `text` with every secret replaced, counting each kind in `tally`.
    /// Redacts until nothing more matches: a marker next to text the pass left alone can make
    /// a secret of it (`[` is a word boundary `AKIA...` glued to a URL lacked), and a guard's
    /// output must be a fixed point. Each extra pass runs only after a change, and at most
    /// [`MAX_PASSES`] run, so a manifest pattern that matches its own marker cannot loop.
    fn redact<'t>(&self, text: &'t str, tally: &mut Redactions) -> Cow<'t, str> {
        let mut out = self.redact_once(text, tally);
        for _ in 1..MAX_PASSES {
            match self.redact_once(&out, tally) {
                Cow::Borrowed(_) => break,
                Cow::Owned(again) => out = Cow::Owned(again),
            }
        }
        out
    }

    /// One pass: the main alternation, then (where an anchor is) the one of things found
    /// beside others, over what the first left, so an AWS key id's marker finds the secret
    /// key beside it and a field's value is named by its field only when no other kind did.
    fn redact_once<'t>(&self, text: &'t str, tally: &mut Redactions) -> Cow<'t, str> {
        let first = self.main.replace(text, tally);
        let beside = &*BESIDE;
        if first.len() < beside.shortest_anchor
            || beside
                .anchor_starts
                .as_ref()
                .is_some_and(|starts| !starts.may_match(&first))
            || !beside.anchors.is_match(&first)
        {
            return first;
        }
        let changed = match beside.alternation.replace(&first, tally) {
            Cow::Owned(changed) => Some(changed),
            Cow::Borrowed(_) => None,
        };
        changed.map_or(first, Cow::Owned)
    }
}

static BUILTIN: LazyLock<Engine> = LazyLock::new(|| Engine::new(&[]));

/// Engines with added patterns, one per list (a list is a `'static` slice of the generated
/// spec, so its address names it); built on first use and kept for the process, so there
/// are at most as many as the spec has lists.
static WITH_ADDED: RwLock<Vec<(usize, usize, &'static Engine)>> = RwLock::new(Vec::new());

fn engine(added: &'static [RedactPattern]) -> &'static Engine {
    if added.is_empty() {
        return &BUILTIN;
    }
    let key = (added.as_ptr() as usize, added.len());
    let find = |engines: &[(usize, usize, &'static Engine)]| {
        engines
            .iter()
            .find(|(at, len, _)| (*at, *len) == key)
            .map(|(_, _, engine)| *engine)
    };
    if let Some(engine) = find(&read(&WITH_ADDED)) {
        return engine;
    }
    let mut engines = write(&WITH_ADDED);
    if let Some(engine) = find(&engines) {
        return engine;
    }
    let engine: &'static Engine = Box::leak(Box::new(Engine::new(added)));
    engines.push((key.0, key.1, engine));
    engine
}

/// How many secrets of each kind were redacted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactions(BTreeMap<&'static str, u64>);

impl Redactions {
    /// True when nothing was redacted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Secrets of `kind` redacted.
    pub fn count(&self, kind: &str) -> u64 {
        self.0.get(kind).copied().unwrap_or(0)
    }

    /// Secrets redacted, every kind together.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// Counts per kind, as the result's `_meta` `harness/redacted` carries them.
    pub(crate) fn to_json(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(kind, count)| ((*kind).to_owned(), Value::from(*count)))
                .collect(),
        )
    }
}

/// `text` with every secret of a built-in kind replaced by `[REDACTED:<kind>]`; borrowed
/// when there is none.
pub fn redact(text: &str) -> Cow<'_, str> {
    BUILTIN.redact(text, &mut Redactions::default())
}

/// [`redact`] with the manifest's `added` patterns too, counting what it replaced.
pub fn redact_with<'t>(
    text: &'t str,
    added: &'static [RedactPattern],
    tally: &mut Redactions,
) -> Cow<'t, str> {
    engine(added).redact(text, tally)
}

/// What a guard policy asks of redaction: `None` when it is off (`redact_secrets = false`),
/// else the patterns the manifest adds to the built-in ones.
pub(crate) fn policy(guards: &GuardSpec) -> Option<&'static [RedactPattern]> {
    guards.redact_secrets.then_some(guards.redact_patterns)
}

/// [`redact_with`] under a policy: the text unchanged when redaction is off.
pub(crate) fn apply<'t>(
    text: &'t str,
    policy: Option<&'static [RedactPattern]>,
    tally: &mut Redactions,
) -> Cow<'t, str> {
    match policy {
        Some(added) => redact_with(text, added, tally),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests;
