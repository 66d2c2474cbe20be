//! Secret redaction against a corpus generated here, deterministically (a fixed-seed
//! generator, so every run sees the same corpus and this file holds no credential a scanner
//! would flag): fake secrets of every built-in kind with the shapes of real ones, embedded in
//! the text they turn up in (log lines, JSON, env files, YAML, URLs, curl commands), and
//! look-alikes that are not secrets (hashes, git ids, UUIDs, base64 of text, version strings,
//! ARNs, public keys, words).
//!
//! The oracle is independent of the patterns: a secret is caught when none of its raw text
//! survives and the marker of its expected kind is there; a look-alike is a false positive
//! when its text comes back changed at all. Counts print with `--nocapture`.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use harness_runtime::guards::redact::{Redactions, redact_with};

/// False positives the look-alike corpus may have: none (raise it, with a reason, only for
/// a look-alike no pattern can tell from a secret).
const ALLOWED_FALSE_POSITIVES: usize = 0;

/// splitmix64: small, fixed, and good enough to draw characters.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `len` characters drawn from `alphabet`.
    fn chars(&mut self, alphabet: &str, len: usize) -> String {
        let alphabet = alphabet.as_bytes();
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";
const BASE62: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// One planted secret: the text it sits in, the strings that must not survive, its kind,
/// and the kind of the other half of its pair where the text holds one (a key id beside its
/// secret key).
struct Planted {
    text: String,
    raw: Vec<String>,
    kind: &'static str,
    pair: Option<&'static str>,
}

/// Surroundings for a bare token (`{}` is where it goes).
const TOKEN_CONTEXTS: &[&str] = &[
    "2026-11-30T10:15:02Z INFO worker[4121] loaded credentials {} for job 7781",
    "{\"level\":\"debug\",\"config\":{\"token\":\"{}\",\"region\":\"eu-west-1\"}}",
    "# .env\nAPI_TOKEN={}\nLOG_LEVEL=info\n",
    "deploy:\n  secrets:\n    api_key: \"{}\"\n  replicas: 3\n",
    "GET https://api.example.com/v1/items?key={}&page=2 200 14ms",
    "$ curl -s -H 'X-Api-Key: {}' https://api.example.com/v1/status",
    "error: request failed (token={}): 401 Unauthorized",
    "export TOKEN='{}'",
];

fn in_context(rng: &mut Rng, contexts: &[&str], secret: &str) -> String {
    rng.pick(contexts).replace("{}", secret)
}

fn plant(rng: &mut Rng, kind: &'static str, secret: String) -> Planted {
    Planted {
        text: in_context(rng, TOKEN_CONTEXTS, &secret),
        raw: vec![secret],
        kind,
        pair: None,
    }
}

fn pem_block(rng: &mut Rng) -> (String, Vec<String>) {
    let label = rng.pick(&["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED ", "DSA "]);
    let lines: Vec<String> = (0..4 + rng.below(6))
        .map(|_| rng.chars(BASE64, 64))
        .collect();
    let block = format!(
        "-----BEGIN {label}PRIVATE KEY-----\n{}\n{}==\n-----END {label}PRIVATE KEY-----",
        lines.join("\n"),
        rng.chars(BASE64, 20)
    );
    (block, lines)
}

fn jwt(rng: &mut Rng) -> String {
    let header = format!(
        r#"{{"alg":"{}","typ":"JWT"}}"#,
        rng.pick(&["HS256", "RS256", "ES256"])
    );
    let payload = format!(
        r#"{{"sub":"{}","iat":{},"scope":"read write"}}"#,
        rng.chars(DIGITS, 10),
        1_700_000_000 + rng.below(90_000_000)
    );
    format!(
        "{}.{}.{}",
        URL_SAFE_NO_PAD.encode(header),
        URL_SAFE_NO_PAD.encode(payload),
        rng.chars(BASE64URL, 43)
    )
}

/// Eight secrets or more of each built-in kind, eight key ids beside their secret keys among
/// them: 144 texts, 152 secrets.
fn secrets() -> Vec<Planted> {
    let mut rng = Rng(0x5ec2_e7ed);
    let mut corpus = Vec::new();
    for _ in 0..8 {
        let r = &mut rng;
        let prefix = r.pick(&["AKIA", "ASIA"]);
        let secret = format!("{prefix}{}", r.chars(BASE32, 16));
        corpus.push(plant(r, "aws_access_key", secret));

        let secret = r.chars(BASE64, 40);
        let text = r
            .pick(&[
                "[default]\naws_access_key_id = AKIA...\naws_secret_access_key = {}\n",
                "AWS_SECRET_ACCESS_KEY={}\nAWS_DEFAULT_REGION=us-east-1",
                "{\"Credentials\":{\"SecretAccessKey\":\"{}\",\"Expiration\":\"2026-12-01T00:00:00Z\"}}",
                "aws_secret_key: '{}'",
            ])
            .replace("{}", &secret);
        corpus.push(Planted {
            text,
            raw: vec![secret],
            kind: "aws_secret_key",
            pair: None,
        });

        let secret = format!("AIza{}", r.chars(BASE64URL, 35));
        corpus.push(plant(r, "google_api_key", secret));

        let secret = if r.below(3) == 0 {
            format!("github_pat_{}_{}", r.chars(BASE62, 22), r.chars(BASE62, 59))
        } else {
            let prefix = r.pick(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]);
            format!("{prefix}{}", r.chars(BASE62, 36))
        };
        corpus.push(plant(r, "github_token", secret));

        let secret = format!("glpat-{}", r.chars(BASE64URL, 20));
        corpus.push(plant(r, "gitlab_token", secret));

        let secret = if r.below(4) == 0 {
            format!(
                "xapp-1-A{}-{}-{}",
                r.chars(BASE62, 10).to_uppercase(),
                r.chars(DIGITS, 13),
                r.chars(HEX, 64)
            )
        } else {
            let prefix = r.pick(&["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"]);
            format!(
                "{prefix}{}-{}-{}",
                r.chars(DIGITS, 12),
                r.chars(DIGITS, 13),
                r.chars(BASE62, 24)
            )
        };
        corpus.push(plant(r, "slack_token", secret));

        let secret = format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            r.chars(UPPER, 8),
            r.chars(UPPER, 10),
            r.chars(BASE62, 24)
        );
        corpus.push(Planted {
            text: format!("notify: posting incident summary to {secret} (channel #ops)"),
            raw: vec![secret],
            kind: "slack_webhook",
            pair: None,
        });

        let prefix = r.pick(&["sk_live_", "sk_test_", "rk_live_", "rk_test_"]);
        let len = 24 + r.below(75);
        let secret = format!("{prefix}{}", r.chars(BASE62, len));
        corpus.push(plant(r, "stripe_key", secret));

        let secret = format!("sk-ant-api03-{}AA", r.chars(BASE64URL, 93));
        corpus.push(plant(r, "anthropic_key", secret));

        let secret = if r.below(2) == 0 {
            format!("sk-proj-{}", r.chars(BASE64URL, 120))
        } else {
            format!("sk-{}T3BlbkFJ{}", r.chars(BASE62, 20), r.chars(BASE62, 20))
        };
        corpus.push(plant(r, "openai_key", secret));

        let secret = format!("npm_{}", r.chars(BASE62, 36));
        let text = r
            .pick(&[
                "//registry.npmjs.org/:_authToken={}\n",
                "NPM_TOKEN={} npm publish --access public",
            ])
            .replace("{}", &secret);
        corpus.push(Planted {
            text,
            raw: vec![secret],
            kind: "npm_token",
            pair: None,
        });

        let (block, lines) = pem_block(r);
        let text = match r.below(3) {
            0 => format!("$ cat deploy/id_rsa\n{block}\n$ ls -l deploy"),
            // Inside JSON: the newlines escaped.
            1 => serde_json::json!({"name": "deploy-key", "private_key": block}).to_string(),
            _ => format!(
                "tls:\n  key: |\n{}\n  cert: cert.pem",
                block.replace('\n', "\n    ")
            ),
        };
        corpus.push(Planted {
            text,
            raw: lines,
            kind: "private_key",
            pair: None,
        });

        let token = jwt(r);
        let text = r
            .pick(&[
                "set-cookie: session={}; Path=/; HttpOnly",
                "{\"id_token\":\"{}\",\"expires_in\":3600}",
                "redirect https://app.example.com/callback#access_token={}&state=xyz",
            ])
            .replace("{}", &token);
        corpus.push(Planted {
            text,
            raw: vec![token],
            kind: "jwt",
            pair: None,
        });

        let value = if r.below(2) == 0 {
            let len = 32 + r.below(32);
            format!("Bearer {}", r.chars(BASE62, len))
        } else {
            let pair = format!("svc-{}:{}", r.chars(HEX, 6), r.chars(BASE62, 18));
            format!("Basic {}", STANDARD.encode(pair))
        };
        let secret = value
            .split_once(' ')
            .map(|(_, secret)| secret.to_owned())
            .unwrap();
        let text = r
            .pick(&[
                "> GET /api/v2/orders HTTP/1.1\n> Host: orders.internal\n> Authorization: {}\n> Accept: */*",
                "{\"headers\":{\"Authorization\":\"{}\",\"Accept\":\"application/json\"}}",
                "curl -H \"authorization: {}\" https://orders.internal/api",
                "requests.get(url, headers={'Authorization': '{}'})",
            ])
            .replace("{}", &value);
        corpus.push(Planted {
            text,
            raw: vec![secret],
            kind: "authorization",
            pair: None,
        });

        let password = r.chars(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!$*._-",
            18,
        );
        let url = format!(
            "{}://{}:{password}@{}",
            r.pick(&["postgres", "mysql", "redis", "amqp", "https", "mongodb+srv"]),
            r.pick(&["app", "admin", "svc_orders", ""]),
            r.pick(&[
                "db.internal:5432/orders",
                "cache:6379/0",
                "mq.internal/vhost",
                "example.com/path"
            ])
        );
        let text = r
            .pick(&[
                "DATABASE_URL={}\n",
                "2026-11-30 connecting to {} (attempt 2)",
                "{\"dsn\":\"{}\",\"pool\":10}",
            ])
            .replace("{}", &url);
        corpus.push(Planted {
            text,
            raw: vec![password],
            kind: "url_password",
            pair: None,
        });

        let id = format!("{}{}", r.pick(&["AKIA", "ASIA"]), r.chars(BASE32, 16));
        let secret = r.chars(BASE64, 40);
        let text = r
            .pick(&[
                "Access key ID,Secret access key\n{id},{secret}\n",
                "$ aws iam list-access-keys --show-secrets\n{id}  {secret}  Active\n",
                "aws configure set aws_access_key_id {id} && aws configure set aws_secret_access_key {secret}",
                "export AWS_ACCESS_KEY_ID={id} AWS_SECRET_ACCESS_KEY={secret}",
                "{\"AccessKeyId\":\"{id}\",\"SecretAccessKey\":\"{secret}\"}",
            ])
            .replace("{id}", &id)
            .replace("{secret}", &secret);
        corpus.push(Planted {
            text,
            raw: vec![id, secret],
            kind: "aws_secret_key",
            pair: Some("aws_access_key"),
        });

        let secret = format!("{}{}", r.chars(BASE62, 20), r.chars(DIGITS, 2));
        let text = r
            .pick(&[
                "client_id=svc-orders\nclient_secret={}\nscope=read\n",
                "{\"client_id\":\"web\",\"client_secret\":\"{}\",\"grant_type\":\"client_credentials\"}",
                "DB_USER=orders\nDB_PASSWORD={}\nDB_HOST=db.internal\n",
                "spring.datasource.username=app\nspring.datasource.password={}",
                "database:\n  user: app\n  password: \"{}\"\n",
                "NEXTAUTH_SECRET={} npm run start",
            ])
            .replace("{}", &secret);
        corpus.push(Planted {
            text,
            raw: vec![secret],
            kind: "labelled_secret",
            pair: None,
        });
        let secret = format!("{}{}==", r.chars(BASE64, 84), r.chars(DIGITS, 2));
        corpus.push(Planted {
            text: format!(
                "DefaultEndpointsProtocol=https;AccountName=logs;AccountKey={secret};EndpointSuffix=core.windows.net"
            ),
            raw: vec![secret],
            kind: "labelled_secret",
            pair: None,
        });
    }
    corpus
}

fn redacted(text: &str) -> (String, Redactions) {
    let mut tally = Redactions::default();
    let out = redact_with(text, &[], &mut tally).into_owned();
    (out, tally)
}

#[test]
fn every_planted_secret_is_redacted_as_its_kind() {
    let corpus = secrets();
    let kinds: std::collections::BTreeSet<&str> = corpus.iter().map(|p| p.kind).collect();
    assert!(corpus.len() >= 100 && kinds.len() >= 10);
    let mut missed = Vec::new();
    for planted in &corpus {
        let (out, _) = redacted(&planted.text);
        let marked = std::iter::once(planted.kind)
            .chain(planted.pair)
            .all(|kind| out.contains(&format!("[REDACTED:{kind}]")));
        let leaked = planted.raw.iter().any(|raw| out.contains(raw.as_str()));
        if leaked || !marked {
            missed.push(format!(
                "{}: {:?}\n  -> {:?}",
                planted.kind, planted.text, out
            ));
        }
    }
    println!(
        "redaction corpus: {} of {} texts caught whole ({} secrets of {} kinds)",
        corpus.len() - missed.len(),
        corpus.len(),
        corpus
            .iter()
            .map(|planted| 1 + usize::from(planted.pair.is_some()))
            .sum::<usize>(),
        kinds.len()
    );
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
}

#[test]
fn every_secret_in_one_document_is_redacted_and_counted() {
    let corpus = secrets();
    let document: String = corpus
        .iter()
        .map(|planted| planted.text.clone())
        .collect::<Vec<_>>()
        .join("\n");
    let (out, tally) = redacted(&document);
    for planted in &corpus {
        for raw in &planted.raw {
            assert!(!out.contains(raw.as_str()), "{}: {raw}", planted.kind);
        }
    }
    let secrets = corpus
        .iter()
        .map(|planted| 1 + u64::from(planted.pair.is_some()))
        .sum::<u64>();
    assert_eq!(tally.total(), secrets, "{tally:?}");
    assert_eq!(redacted(&out).0, out, "idempotent");
}

/// Texts that look like secrets and are not, 194 in all.
fn look_alikes() -> Vec<String> {
    let mut rng = Rng(0x100c_a11e);
    let r = &mut rng;
    let mut corpus = Vec::new();
    let prose = [
        "The deployment finished without errors and all checks passed.",
        "Please rotate the credentials before Friday; see the runbook.",
        "user=alice role=reader team=payments",
        "{\"status\":\"ok\",\"items\":[1,2,3]}",
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
    ];
    for index in 0..10 {
        corpus.push(format!("sha256:{}", r.chars(HEX, 64)));
        corpus.push(format!(
            "image: registry.example.com/api@sha256:{}",
            r.chars(HEX, 64)
        ));
        corpus.push(format!(
            "commit {}\nAuthor: Dev <dev@example.com>",
            r.chars(HEX, 40)
        ));
        corpus.push(format!(
            "Merge {} into {} (short {})",
            r.chars(HEX, 40),
            r.chars(HEX, 40),
            r.chars(HEX, 7)
        ));
        corpus.push(format!(
            "request_id={}-{}-4{}-a{}-{}",
            r.chars(HEX, 8),
            r.chars(HEX, 4),
            r.chars(HEX, 3),
            r.chars(HEX, 3),
            r.chars(HEX, 12)
        ));
        corpus.push(format!("md5 {}  backup.tar.gz", r.chars(HEX, 32)));
        corpus.push(format!(
            "payload={}",
            STANDARD.encode(prose[index % prose.len()])
        ));
        corpus.push(format!("nonce={}=", r.chars(BASE64, 43)));
        corpus.push(format!(
            "version {}.{}.{}-rc.{}+build.{}",
            r.below(10),
            r.below(30),
            r.below(100),
            r.below(9),
            r.chars(HEX, 7)
        ));
        // "AKIA" inside a longer upper-case word, and a too-short one.
        corpus.push(format!(
            "ERR_{}AKIA{}X",
            r.chars(UPPER, 3),
            r.chars(BASE32, 16)
        ));
        corpus.push(format!(
            "arn:aws:iam::{}:role/deploy-{}",
            r.chars(DIGITS, 12),
            r.chars(HEX, 6)
        ));
        corpus.push(format!(
            "Stripe publishable key pk_live_{}",
            r.chars(BASE62, 24)
        ));
        corpus.push(format!("eyJ{} is only one segment", r.chars(BASE64URL, 30)));
        corpus.push(format!(
            "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
            r.chars(BASE64, 64)
        ));
        corpus.push(format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
            r.chars(BASE64, 64)
        ));
        corpus.push(format!(
            "https://example.com:{}/download?file={}&user=bob@example.com",
            1024 + r.below(60000),
            r.chars(HEX, 12)
        ));
    }
    corpus.extend(
        [
            "pip install scikit-learn==1.5.2  # imported as sk-learn in the notebook",
            "sk-learn, sk-image and sk-video are community nicknames",
            "disk-usage-report-for-the-whole-cluster-2026",
            "sk-this-is-a-long-kebab-case-identifier-name",
            "npm_config_cache=/home/dev/.npm npm_package_version=2.4.1",
            "ghp_ tokens start with ghp_ and gho_ is for OAuth apps",
            "xoxo-hugs and xoxb- alone are not tokens",
            "Authorization: denied for user bob",
            "authorization: token expired, please sign in again",
            "The Authorization header is missing",
            "Bearer tokens are described in RFC 6750",
            "ssh://git@github.com/example/repo.git",
            "mailto:ops@example.com?subject=incident",
            "git@gitlab.com:group/project.git",
            "https://user@example.com/profile",
            "glpat- is the prefix of GitLab personal access tokens",
            "AIza alone is just a prefix",
            "sk_live_ and sk_test_ are Stripe prefixes",
            "aws_secret_access_key = <your secret here>",
            "AWS_SECRET_ACCESS_KEY=REPLACE_ME",
            "password: ******** (hidden)",
            "https://hooks.slack.com/ is the webhook host",
            "-----BEGIN PGP SIGNATURE-----",
            "at com.example.Service.run(Service.java:42)",
            "UUID 00000000-0000-0000-0000-000000000000 is nil",
            "password: required",
            "password=${DB_PASSWORD}",
            "client_secret: <from vault>",
            "AccountKey=REPLACE_ME;AccountName=logs",
            "secret: true",
            "passwords rotated: 3",
            "password_reset_url=https://example.com/r/abc123",
            "the secret is out; the password policy is 12 characters",
            "session_id=123e4567-e89b-12d3-a456-426614174000 commit=da39a3ee5e6b4b0d3255bfef95601890afd80709",
        ]
        .map(str::to_owned),
    );
    corpus
}

#[test]
fn look_alikes_are_left_alone() {
    let corpus = look_alikes();
    assert!(corpus.len() >= 100);
    let false_positives: Vec<(String, String)> = corpus
        .iter()
        .filter_map(|text| {
            let (out, _) = redacted(text);
            (out != *text).then(|| (text.clone(), out))
        })
        .collect();
    println!(
        "redaction corpus: {} false positives in {} look-alikes",
        false_positives.len(),
        corpus.len()
    );
    for (text, out) in &false_positives {
        println!("  false positive: {text:?}\n    -> {out:?}");
    }
    assert!(
        false_positives.len() == ALLOWED_FALSE_POSITIVES,
        "{false_positives:#?}"
    );
}
