//! The OpenID provider of these tests: tests/oauth/provider.mjs (oidc-provider) on its fixed
//! loopback port, one process for the whole test binary, installed by
//! scripts/oauth-provider.sh on first use. It ends when this process does (its stdin closes).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};

/// Where the manifest's `[auth] issuer` points.
pub(crate) const ISSUER: &str = "http://127.0.0.1:29417";
/// The manifest's `[auth] audience`.
pub(crate) const AUDIENCE: &str = "https://mcp.oauth-resource.test/mcp";
/// Where the 401 says the resource metadata is.
pub(crate) const METADATA_URL: &str =
    "https://mcp.oauth-resource.test/.well-known/oauth-protected-resource/mcp";

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Starts the provider once and waits for its "listening" line.
pub(crate) fn ensure() {
    static PROVIDER: OnceLock<Mutex<Child>> = OnceLock::new();
    PROVIDER.get_or_init(|| {
        let root = workspace();
        let install = Command::new("bash")
            .arg(root.join("scripts/oauth-provider.sh"))
            .output()
            .expect("bash runs");
        assert!(
            install.status.success(),
            "scripts/oauth-provider.sh failed: {}",
            String::from_utf8_lossy(&install.stderr)
        );
        let modules = String::from_utf8(install.stdout).expect("a path");
        let mut child = Command::new("node")
            .arg(root.join("tests/oauth/provider.mjs"))
            .args(["29417", modules.trim()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node starts (Node 20 or later)");
        let stdout = child.stdout.take().expect("piped");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        assert_eq!(
            first,
            format!("listening {ISSUER}"),
            "the provider did not start (is port 29417 taken?)"
        );
        // Keep reading so the provider never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Mutex::new(child)
    });
}

/// A plain HTTP client (no redirects followed, so every status is seen as sent).
pub(crate) fn http() -> reqwest::Client {
    harness_test_support::install_tls_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client builds")
}

/// An access token from the client-credentials grant for `resource`.
pub(crate) async fn token(client: &str, secret: &str, scope: &str, resource: &str) -> String {
    ensure();
    let answer: Value = http()
        .post(format!("{ISSUER}/token"))
        .basic_auth(client, Some(secret))
        .form(&[
            ("grant_type", "client_credentials"),
            ("scope", scope),
            ("resource", resource),
        ])
        .send()
        .await
        .expect("the provider answers")
        .json()
        .await
        .expect("JSON");
    answer["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no access_token in {answer}"))
        .to_owned()
}

/// A token the provider would not mint: `mode` is `rs256` (its signing key), `stranger` (a
/// key it never published), `none` or `hs256-public`; `claims` override a good token's.
pub(crate) async fn forge(mode: &str, claims: Value) -> String {
    ensure();
    let answer: Value = http()
        .post(format!("{ISSUER}/test/forge"))
        .json(&json!({"mode": mode, "claims": claims, "audience": AUDIENCE}))
        .send()
        .await
        .expect("the provider answers")
        .json()
        .await
        .expect("JSON");
    answer["token"].as_str().expect("a token").to_owned()
}

/// Replaces the provider's signing key (the old one stays published); returns the new `kid`.
pub(crate) async fn rotate() -> String {
    ensure();
    let answer: Value = http()
        .post(format!("{ISSUER}/test/rotate"))
        .send()
        .await
        .expect("the provider answers")
        .json()
        .await
        .expect("JSON");
    answer["kid"].as_str().expect("a kid").to_owned()
}

/// How often the key set was fetched since the provider started.
pub(crate) async fn jwks_fetches() -> u64 {
    ensure();
    let answer: Value = http()
        .get(format!("{ISSUER}/test/jwks-fetches"))
        .send()
        .await
        .expect("the provider answers")
        .json()
        .await
        .expect("JSON");
    answer["fetches"].as_u64().expect("a count")
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}
