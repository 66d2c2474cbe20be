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
//! `LazyLock`, each added list on its first use). The `regex` crate's automata run in time
//! linear in the text whatever the pattern (no backtracking), so no output can make
//! redaction slow: the text is scanned once, left to right, and a match is replaced whole.
//! Redaction is idempotent: no pattern matches a marker.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{LazyLock, RwLock};

use regex::{Captures, Regex};
use serde_json::Value;

use crate::spec::{GuardSpec, RedactPattern};

mod kinds;

use self::kinds::BUILTINS;
pub use self::kinds::KINDS;

/// One alternative of the compiled alternation.
struct Rule {
    kind: &'static str,
    /// The capture group around the whole alternative.
    group: usize,
    /// The groups inside it that mark the secret: the first that takes part is replaced.
    secrets: std::ops::Range<usize>,
    check: Option<fn(&str) -> bool>,
}

/// Passes of redaction over one text at most (see `Engine::redact`): a secret key beside its
/// key id is found in the pass after the id's, and a third pass confirms nothing is left; the
/// rest is headroom.
const MAX_PASSES: usize = 4;

/// Every pattern of one policy as one regex.
struct Engine {
    regex: Regex,
    rules: Vec<Rule>,
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
        let mut alternatives = Vec::new();
        let mut rules = Vec::new();
        let mut group = 1;
        for (kind, pattern, check) in builtins.chain(added) {
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
        match Regex::new(&alternatives.join("|")) {
            Ok(regex) => Self { regex, rules },
            Err(error) => {
                tracing::error!(%error, "the added redaction patterns do not compile together (duplicate group names?); only the built-in ones apply");
                Self::new(&[])
            }
        }
    }

    /// `text` with every secret replaced, counting each kind in `tally`.
    /// Redacts until nothing more matches: a marker next to text the pass left alone can make
    /// a secret of it (`[` is a word boundary `AKIA...` glued to a URL lacked; an AWS key id's
    /// marker is what finds the secret key beside it), and a guard's output must be a fixed
    /// point. Each extra pass runs only after a change, and at most
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

    fn redact_once<'t>(&self, text: &'t str, tally: &mut Redactions) -> Cow<'t, str> {
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
    if let Some(engine) = find(&WITH_ADDED.read().unwrap_or_else(|e| e.into_inner())) {
        return engine;
    }
    let mut engines = WITH_ADDED.write().unwrap_or_else(|e| e.into_inner());
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
mod tests {
    use super::*;

    /// Pieces joined at run time, so this file holds no credential a scanner would flag.
    fn join(pieces: &[&str]) -> String {
        pieces.concat()
    }

    fn one(text: &str) -> (String, Redactions) {
        let mut tally = Redactions::default();
        let out = redact_with(text, &[], &mut tally).into_owned();
        (out, tally)
    }

    #[track_caller]
    fn redacts(kind: &str, secret: &str, context: &str) {
        let text = context.replace("{}", secret);
        let (out, tally) = one(&text);
        assert!(!out.contains(secret), "{kind}: {out}");
        assert!(out.contains(&format!("[REDACTED:{kind}]")), "{kind}: {out}");
        assert_eq!(tally.count(kind), 1, "{kind}: {tally:?}");
        assert_eq!(one(&out).0, out, "{kind}: idempotent");
    }

    #[test]
    fn the_marker_replaces_the_secret_and_keeps_its_surroundings() {
        let key = join(&["AKIA", "IOSFODNN7", "EXAMPLE"]);
        let (out, tally) = one(&format!("key={key}, region=eu-west-1"));
        assert_eq!(out, "key=[REDACTED:aws_access_key], region=eu-west-1");
        assert_eq!(tally.total(), 1);
        assert_eq!(tally.to_json(), serde_json::json!({"aws_access_key": 1}));
        assert!(matches!(redact("nothing to see here"), Cow::Borrowed(_)));
    }

    /// Found by the idempotence property: redacting the webhook puts `[` after the AWS-shaped
    /// run, a word boundary it lacked while glued to the URL, so a second pass found a key.
    #[test]
    fn a_secret_a_marker_uncovers_is_redacted_in_the_same_call() {
        let text = join(&[
            "AKIAAKIAAKIA",
            "Q7Q7Q7Q7",
            "https://hooks.slack.com/services/",
            "aws_secret_access_key=",
        ]);
        let (out, tally) = one(&text);
        assert_eq!(out, "[REDACTED:aws_access_key][REDACTED:slack_webhook]=");
        assert_eq!(
            (tally.count("aws_access_key"), tally.count("slack_webhook")),
            (1, 1)
        );
        assert_eq!(one(&out).0, out, "a fixed point");
    }

    #[test]
    fn cloud_keys() {
        let access = join(&["AKIA", "Q7Q7Q7Q7", "Q7Q7Q7Q7"]);
        redacts("aws_access_key", &access, "aws_access_key_id = {}");
        redacts(
            "aws_access_key",
            &join(&["ASIA", "ZX2YW3VU4TS5RQ6P"]),
            "\"AccessKeyId\": \"{}\"",
        );
        let secret = join(&["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"]);
        redacts("aws_secret_key", &secret, "aws_secret_access_key = {}");
        redacts("aws_secret_key", &secret, "AWS_SECRET_ACCESS_KEY={}\n");
        redacts("aws_secret_key", &secret, "{\"SecretAccessKey\": \"{}\"}");
        let (out, _) = one(&format!("aws_secret_access_key = {secret}"));
        assert_eq!(out, "aws_secret_access_key = [REDACTED:aws_secret_key]");
        let google = join(&["AIza", "SyD-9tSrke72PouQMnMX", "-a7eZSW0jkFMBWY"]);
        redacts(
            "google_api_key",
            &google,
            "https://maps.example/api?key={}&q=x",
        );
    }

    #[test]
    fn forge_and_chat_tokens() {
        let gh = join(&["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO", "0pINUx"]);
        redacts("github_token", &gh, "token {} expires");
        let pat = join(&[
            "github_pat_",
            "11ABCDEFG0",
            "abcdefghijKLMNOPQRSTUV_wxyz0123456789",
        ]);
        redacts("github_token", &pat, "GH={}");
        redacts(
            "gitlab_token",
            &join(&["glpat-", "xK9mN2pQ7r", "S4tU6vW8yZ"]),
            "PRIVATE-TOKEN: {}",
        );
        redacts(
            "slack_token",
            &join(&[
                "xoxb-",
                "123456789012-",
                "1234567890123-",
                "AbCdEfGhIjKlMnOpQrStUvWx",
            ]),
            "slack={}",
        );
        redacts(
            "slack_token",
            &join(&["xapp-1-", "A0123456789-", "1234567890123-abcdef0123456789"]),
            "{}",
        );
        let hook = join(&[
            "https://hooks.slack",
            ".com/services/",
            "T0123ABCD/B0456EFGH/",
            "aBcDeFgHiJkLmNoPqRsTuVwX",
        ]);
        redacts("slack_webhook", &hook, "posting to {} now");
    }

    #[test]
    fn payment_ai_and_registry_keys() {
        redacts(
            "stripe_key",
            &join(&["sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc"]),
            "STRIPE={}",
        );
        redacts(
            "stripe_key",
            &join(&["rk_", "test_", "51H8sKdLkJ3fGhT2q"]),
            "{}",
        );
        let ant = join(&[
            "sk-ant-",
            "api03-",
            "R2D2C3POr2d2c3po_R2D2C3POr2d2c3po-R2D2C3PO",
            "AA",
        ]);
        redacts("anthropic_key", &ant, "ANTHROPIC_API_KEY={}");
        let openai = join(&["sk-", "proj-", "Ab3dEf6hIj9lMn2pQr5tUv8x", "Yz1BcD4fGh7j"]);
        redacts("openai_key", &openai, "OPENAI_API_KEY=\"{}\"");
        redacts(
            "openai_key",
            &join(&["sk-", "T3BlbkFJ", "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ01"]),
            "{}",
        );
        redacts(
            "npm_token",
            &join(&["npm_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7", "bC0eF3hI6"]),
            "//registry.npmjs.org/:_authToken={}",
        );
    }

    #[test]
    fn private_key_blocks_go_whole() {
        let block = join(&[
            "-----BEGIN RSA PRIVATE",
            " KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n",
            "aFDrBz9vFqU4yQ==\n-----END RSA PRIVATE KEY-----",
        ]);
        let (out, tally) = one(&format!("config:\n{block}\nnext line"));
        assert_eq!(out, "config:\n[REDACTED:private_key]\nnext line");
        assert_eq!(tally.count("private_key"), 1);
        // Escaped inside JSON text, OpenSSH and PKCS#8 headers, and cut off before its END.
        let escaped = block.replace('\n', "\\n");
        redacts("private_key", &escaped, "{\"key\":\"{}\"}");
        redacts(
            "private_key",
            &join(&[
                "-----BEGIN OPENSSH PRIVATE",
                " KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----",
            ]),
            "{}",
        );
        let (cut, _) = one(&join(&[
            "head\n-----BEGIN PRIVATE",
            " KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7",
        ]));
        assert_eq!(cut, "head\n[REDACTED:private_key]");
        let public = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----";
        assert_eq!(one(public).0, public);
    }

    #[test]
    fn jwts_authorization_values_and_url_passwords() {
        let jwt = join(&[
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
            ".eyJzdWIiOiIxMjM0NTY3ODkwIn0",
            ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ]);
        redacts("jwt", &jwt, "id_token={}&state=x");
        let (out, _) = one(&format!("Authorization: Bearer {jwt}"));
        assert_eq!(out, "Authorization: Bearer [REDACTED:authorization]");
        redacts(
            "authorization",
            "dXNlcjpodW50ZXIyaHVudGVyMg==",
            "authorization: Basic {}\r\n",
        );
        redacts(
            "authorization",
            "Zm9vYmFyYmF6cXV4MTIzNDU2",
            "{\"Authorization\": \"{}\"}",
        );
        redacts(
            "authorization",
            "abcdef0123456789abcd",
            "'authorization': 'token {}'",
        );
        for prose in [
            "Authorization: denied",
            "authorization: token expired",
            "Authorization header missing",
        ] {
            assert_eq!(one(prose).0, prose);
        }
        let (out, tally) = one(&join(&[
            "postgres://admin:",
            "hunter2hunter2",
            "@db.internal:5432/app",
        ]));
        assert_eq!(
            out,
            "postgres://admin:[REDACTED:url_password]@db.internal:5432/app"
        );
        assert_eq!(tally.count("url_password"), 1);
        redacts("url_password", "p@ss:w0rd", "redis://:{}@cache:6379");
        for plain in [
            "https://example.com:8443/path",
            "mailto:ops@example.com",
            "ssh://git@github.com/org/repo",
            "https://user@example.com/x",
        ] {
            assert_eq!(one(plain).0, plain);
        }
    }

    #[test]
    fn look_alikes_are_left() {
        for text in [
            "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "commit da39a3ee5e6b4b0d3255bfef95601890afd80709",
            "request 123e4567-e89b-12d3-a456-426614174000",
            "pip install scikit-learn; import sklearn as sk-learn",
            "MAKIAIOSFODNN7EXAMPLEX and AKIA alone",
            "eyJhbGciOiJIUzI1NiJ9 is one segment",
            "v1.2.3-rc.4+build.5 and ghp_short and xoxo-hugs",
            "sk-this-is-a-long-kebab-case-identifier-name",
            // Found by the property test: `sk-learn` run into a hex id.
            "sk-learn0aaaa00a0aaa0aa",
            "npm_config_cache=/tmp/npm and npm_package_version=1.0.0",
            "aGVsbG8gd29ybGQsIHRoaXMgaXMgb3JkaW5hcnkgdGV4dA==",
        ] {
            assert_eq!(one(text).0, text, "{text}");
        }
    }

    #[test]
    fn added_patterns_redact_their_group_or_their_whole_match() {
        static ADDED: [RedactPattern; 2] = [
            RedactPattern {
                kind: "internal_ticket_key",
                pattern: r"TKT-[0-9]{6}-[a-f0-9]{8}",
            },
            RedactPattern {
                kind: "vault_token",
                pattern: r"vault_token=(hvs\.[A-Za-z0-9]{12,})",
            },
        ];
        let mut tally = Redactions::default();
        let text = "TKT-123456-deadbeef vault_token=hvs.AbCdEf012345678 ok";
        let out = redact_with(text, &ADDED, &mut tally);
        assert_eq!(
            out,
            "[REDACTED:internal_ticket_key] vault_token=[REDACTED:vault_token] ok"
        );
        assert_eq!(tally.total(), 2);
        // One engine per list, built once.
        let again = redact_with(text, &ADDED, &mut tally);
        assert_eq!(again, out);
        assert!(std::ptr::eq(engine(&ADDED), engine(&ADDED)));
    }

    #[test]
    fn added_patterns_that_cannot_work_are_left_out() {
        static BAD: [RedactPattern; 2] = [
            RedactPattern {
                kind: "broken",
                pattern: r"(unclosed",
            },
            RedactPattern {
                kind: "empty",
                pattern: r"x*",
            },
        ];
        let mut tally = Redactions::default();
        let key = join(&["AKIA", "Q7Q7Q7Q7", "Q7Q7Q7Q7"]);
        let text = format!("{key} yyy");
        let out = redact_with(&text, &BAD, &mut tally);
        assert_eq!(out, "[REDACTED:aws_access_key] yyy");
        assert_eq!(tally.total(), 1);
    }

    #[test]
    fn every_kind_is_listed_once_in_pattern_order() {
        let mut kinds: Vec<&str> = Vec::new();
        for builtin in BUILTINS {
            if !kinds.contains(&builtin.kind) {
                kinds.push(builtin.kind);
            }
        }
        assert_eq!(kinds, KINDS);
    }

    /// Found by a trial: a log held a key id and its secret side by side, and only the id
    /// was redacted.
    #[test]
    fn a_secret_key_beside_its_key_id_goes_with_it() {
        let id = join(&["AKIA", "Q7Q7Q7Q7", "Q7Q7Q7Q7"]);
        let secret = join(&["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"]);
        for context in [
            "Access key ID,Secret access key\n{id},{secret}\n",
            "{id} {secret}",
            "aws configure set --access-key {id} --secret-key {secret}",
            "{\"AccessKeyId\": \"{id}\", \"SecretAccessKey\": \"{secret}\"}",
            "key={id}; secret={secret}",
        ] {
            let text = context.replace("{id}", &id).replace("{secret}", &secret);
            let (out, tally) = one(&text);
            assert!(!out.contains(&id) && !out.contains(&secret), "{out}");
            // The secret is `aws_secret_key`, or `labelled_secret` where its label says so
            // first (`secret=`).
            assert_eq!(
                (tally.count("aws_access_key"), tally.total()),
                (1, 2),
                "{out}"
            );
            assert_eq!(one(&out).0, out, "idempotent");
        }
        // A commit id beside a key id is a hash, not its secret.
        let hash = "da39a3ee5e6b4b0d3255bfef95601890afd80709";
        let (out, tally) = one(&format!("{id} {hash}"));
        assert_eq!(out, format!("[REDACTED:aws_access_key] {hash}"));
        assert_eq!(tally.total(), 1);
    }

    #[test]
    fn the_secret_half_of_a_labelled_pair_goes() {
        for (context, secret) in [
            (
                "client_id=inventory-svc\nclient_secret={}\n",
                "Zk3q9vP2xR7tL0mN4bW8",
            ),
            (
                "{\"client_id\": \"app\", \"client_secret\": \"{}\"}",
                "q8Xv2Lr5Tz1Nw4Pk",
            ),
            (
                "DB_USER=orders DB_PASSWORD={} DB_HOST=db",
                "s3cr3t-Passw0rd",
            ),
            (
                "DefaultEndpointsProtocol=https;AccountName=logs;AccountKey={};EndpointSuffix=core.windows.net",
                "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
            ),
            ("JWT_SECRET: {}", "9f2Kd8sLq0Zx"),
            ("spring.datasource.password={}", "hunter2hunter2"),
        ] {
            redacts("labelled_secret", secret, context);
        }
        for prose in [
            "password: required",
            "secret: true",
            "password: ******** (hidden)",
            "password=${DB_PASSWORD}",
            "client_secret: <from vault>",
            "AccountKey=REPLACE_ME",
            "passwords rotated: 3",
            "password_reset_url=https://example.com/r/abc123",
            "the secret is out",
        ] {
            assert_eq!(one(prose).0, prose);
        }
    }
}
