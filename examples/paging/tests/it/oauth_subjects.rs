//! Three replicas of paging behind OAuth 2.1 (the `paging-oauth` binary, oauth.toml) share one
//! Redis: `page_oncall`'s limit (20 an hour, `per = "subject"`) is kept for each token subject
//! across all three, exactly, under 500 concurrent calls of 10 subjects spread round-robin over
//! the replicas. The issuer is served by this test on oauth.toml's loopback port: discovery
//! and an ES256 key set, with tokens it signs; the replicas find the keys by discovery, as they
//! would at a real provider.

use std::collections::BTreeMap;

use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use harness_test_support::{
    Client, HttpServer, RedisServer, StatelessClient, audit_records, call, http_client_with_token,
    scratch_dir,
};
use serde_json::json;

const SERVER: &str = env!("CARGO_BIN_EXE_paging-oauth");
/// oauth.toml's `[auth]`.
const ISSUER: &str = "http://127.0.0.1:29418";
const AUDIENCE: &str = "https://paging.example.test/mcp";
/// `page_oncall`'s limit per subject in oauth.toml.
const LIMIT: usize = 20;
const SUBJECTS: usize = 10;
const CALLS_PER_SUBJECT: usize = 50;
/// The subject of the calls that warm the replicas up.
const WARM_UP: &str = "warm-up";

/// Serves the issuer's discovery document and key set on oauth.toml's port; returns the key
/// that signs its tokens.
async fn issuer() -> jsonwebtoken::EncodingKey {
    let key = rcgen::KeyPair::generate().expect("a P-256 key");
    // The uncompressed point: 0x04, then x and y.
    let point = key.public_key_raw();
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "kid": "paging-test", "alg": "ES256", "use": "sig",
        "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
        "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
    });
    let discovery = json!({"issuer": ISSUER, "jwks_uri": format!("{ISSUER}/jwks")});
    let keys = json!({"keys": [jwk]});
    let app = axum::Router::new()
        .route(
            "/.well-known/openid-configuration",
            get(move || async move { axum::Json(discovery) }),
        )
        .route("/jwks", get(move || async move { axum::Json(keys) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:29418")
        .await
        .expect("oauth.toml's issuer port 29418 is free");
    tokio::spawn(async move { axum::serve(listener, app).await });
    jsonwebtoken::EncodingKey::from_ec_der(&key.serialize_der())
}

/// An access token for `subject` with the `paging` scope, valid for five minutes.
fn token(key: &jsonwebtoken::EncodingKey, subject: &str) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some("paging-test".into());
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({
        "iss": ISSUER, "aud": AUDIENCE, "sub": subject, "client_id": subject,
        "scope": "paging", "iat": now, "exp": now + 300,
    });
    jsonwebtoken::encode(&header, &claims, key).expect("signed")
}

/// `ok`, or the envelope's error_code.
async fn page(client: &Client, incident_id: usize) -> String {
    let arguments = json!({"incident_id": incident_id, "summary": "disk full on db-1"});
    let result = call(client, "page_oncall", arguments)
        .await
        .expect("no protocol error");
    if result.is_error == Some(true) {
        let structured = result.structured_content.expect("an envelope");
        structured["error_code"].as_str().unwrap().to_owned()
    } else {
        "ok".to_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_replicas_keep_each_subjects_limit_exactly_between_them() {
    let key = issuer().await;
    let redis = RedisServer::start_new();
    let scratch = scratch_dir("paging-oauth");
    let servers: Vec<HttpServer> = (0..3)
        .map(|replica| {
            let audit = scratch.join(format!("audit-{replica}.jsonl"));
            HttpServer::start_with_env(SERVER, &audit, &[], &[("PAGING_REDIS_URL", &redis.url())])
        })
        .collect();
    // One call per replica first, as a subject of its own: each replica fetches the issuer's
    // keys and connects to Redis once, so the burst measures sharing, not a cold start.
    let warm_up = token(&key, WARM_UP);
    for server in &servers {
        let uri = format!("http://127.0.0.1:{}/mcp", server.port);
        let ending = page(&http_client_with_token(&uri, &warm_up).await, 1).await;
        assert_eq!(ending, "ok", "the warm-up call");
    }
    // A client per subject and replica, each with that subject's token.
    let subjects: Vec<String> = (0..SUBJECTS).map(|index| format!("team-{index}")).collect();
    let mut clients = Vec::new();
    for subject in &subjects {
        let token = token(&key, subject);
        let mut per_replica = Vec::new();
        for server in &servers {
            let uri = format!("http://127.0.0.1:{}/mcp", server.port);
            per_replica.push(http_client_with_token(&uri, &token).await);
        }
        clients.push(per_replica);
    }

    let calls = (0..SUBJECTS * CALLS_PER_SUBJECT).map(|index| {
        let (subject, turn) = (index % SUBJECTS, index / SUBJECTS);
        let client = &clients[subject][turn % servers.len()];
        async move { (subject, page(client, index + 1).await) }
    });
    let endings = futures::future::join_all(calls).await;

    let mut tally = BTreeMap::new();
    for (_, ending) in &endings {
        *tally.entry(ending.as_str()).or_insert(0) += 1;
    }
    let mut admitted = vec![0; SUBJECTS];
    for (subject, ending) in &endings {
        match ending.as_str() {
            "ok" => admitted[*subject] += 1,
            "ToolRateLimitError" => {}
            other => panic!(
                "{}: {other} (all endings: {tally:?}); the replicas' warnings:\n{}",
                subjects[*subject],
                warnings(&servers)
            ),
        }
    }
    assert_eq!(
        admitted,
        vec![LIMIT; SUBJECTS],
        "each subject's own limit, exactly"
    );

    // Each replica saw about 17 calls of each subject, under the limit of 20: only a window
    // shared by the three can have refused any. The audit names each call's subject and
    // agrees; every replica admitted some.
    let mut by_subject = BTreeMap::new();
    for replica in 0..servers.len() {
        let mut admitted_here = 0;
        for record in audit_records(&scratch.join(format!("audit-{replica}.jsonl"))) {
            let subject = record["subject"].as_str().expect("a subject").to_owned();
            if subject == WARM_UP {
                continue;
            }
            let entry = by_subject.entry(subject).or_insert((0, 0));
            match record["outcome"].as_str() {
                Some("ok") => {
                    entry.0 += 1;
                    admitted_here += 1;
                }
                Some("rate_limited") => entry.1 += 1,
                other => panic!("outcome {other:?}"),
            }
        }
        assert!(admitted_here > 0, "replica {replica} admitted nothing");
    }
    for subject in &subjects {
        assert_eq!(
            by_subject[subject],
            (LIMIT, CALLS_PER_SUBJECT - LIMIT),
            "{subject}: audited admissions and refusals"
        );
    }

    // One window per subject in Redis (the warm-up's too), each holding exactly its
    // admissions; no key names a subject.
    let keys = redis.cli(&["KEYS", "*"]);
    let keys: Vec<&str> = keys.lines().collect();
    assert_eq!(keys.len(), SUBJECTS + 1, "{keys:?}");
    let mut sizes: Vec<String> = keys
        .iter()
        .map(|key| {
            assert!(!key.contains("team-") && !key.contains(WARM_UP), "{key}");
            redis.cli(&["ZCARD", key])
        })
        .collect();
    sizes.sort();
    let mut expected = vec![LIMIT.to_string(); SUBJECTS];
    expected.push(servers.len().to_string());
    expected.sort();
    assert_eq!(sizes, expected, "admissions per window");

    another_subjects_task_is_unknown_on_every_replica(&key, &servers, &redis).await;
}

/// A task kept in Redis is bound to the subject that created it, on every replica: another
/// subject's `tasks/get`, `tasks/update` and `tasks/cancel` get the answer an unknown id gets,
/// and change nothing; Redis holds the subject's digest, never the subject.
async fn another_subjects_task_is_unknown_on_every_replica(
    key: &jsonwebtoken::EncodingKey,
    servers: &[HttpServer],
    redis: &RedisServer,
) {
    let client = |replica: usize, subject: &str| {
        let url = format!("http://127.0.0.1:{}/mcp", servers[replica].port);
        StatelessClient::new(&url, json!({}))
            .with_token(&token(key, subject))
            .declaring_tasks()
    };
    let (owner, other) = (client(0, "team-0"), client(1, "team-1"));
    let created = owner
        .call("escalate", json!({"incident_id": 7, "after_seconds": 30}))
        .await
        .expect("a task");
    let id = created["taskId"].as_str().expect("a task id").to_owned();
    let unknown_id = "0".repeat(32);
    for (method, params) in [
        ("tasks/get", json!({})),
        ("tasks/update", json!({"inputResponses": {}})),
        ("tasks/cancel", json!({})),
    ] {
        let ask = |id: &str| {
            let mut params = params.clone();
            params["taskId"] = json!(id);
            other.request(method, params)
        };
        let theirs = ask(&id).await.expect_err("refused");
        let unknown = ask(&unknown_id).await.expect_err("refused");
        assert_eq!(theirs.code, -32602, "{method}: {theirs:?}");
        assert_eq!(
            (theirs.code, theirs.message.replace(&id, "ID")),
            (unknown.code, unknown.message.replace(&unknown_id, "ID")),
            "{method}: the same answer as for a task that does not exist"
        );
    }
    let mine = client(2, "team-0");
    assert_eq!(
        mine.get_task(&id).await.expect("the owner's")["status"],
        "working"
    );
    let stored = redis.cli(&[
        "HGET",
        &format!("{{harness:paging}}:tasks:task:{id}"),
        "owner",
    ]);
    assert_eq!(stored, harness_contract::sha256_hex(b"team-0"));
    mine.request("tasks/cancel", json!({"taskId": id}))
        .await
        .expect("the owner cancels it");
    assert_eq!(
        owner.get_task(&id).await.expect("read")["status"],
        "cancelled"
    );
}

/// The replicas' WARN and ERROR log lines, for a failure's message.
fn warnings(servers: &[HttpServer]) -> String {
    let mut lines = Vec::new();
    for server in servers {
        let text = server.log().text();
        lines.extend(
            text.lines()
                .filter(|line| line.contains("WARN") || line.contains("ERROR"))
                .map(str::to_owned),
        );
    }
    lines.join("\n")
}

#[test]
fn a_replica_refuses_a_request_without_a_token() {
    let redis = RedisServer::start_new();
    let scratch = scratch_dir("paging-oauth-refusal");
    let server = HttpServer::start_with_env(
        SERVER,
        &scratch.join("audit.jsonl"),
        &[],
        &[("PAGING_REDIS_URL", &redis.url())],
    );
    let (status, _) = server.get("/mcp").expect("an answer");
    assert!(status.contains(" 401 "), "{status}");
}
