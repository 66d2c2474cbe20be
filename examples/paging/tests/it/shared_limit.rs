//! Three replicas of the paging server share one rate limit in a real Redis (`redis-server`
//! on loopback, started by each test): across them exactly the limit is admitted; with Redis
//! killed mid-run every call is still answered, refused as the manifest says, calls in flight
//! at the kill included; with Redis back they admit again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use harness_test_support::{
    Client, HttpServer, RedisServer, Relay, ScratchDir, TEST_TOKEN, audit_records, call,
    scratch_dir,
};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_paging");
/// `page_oncall`'s limit in harness.toml (per hour, across every replica).
const LIMIT: usize = 100;
/// A call that takes longer than this hangs (the store's timeout is 250 ms).
const HANG: Duration = Duration::from_secs(20);
const WINDOW_KEY: &str = "{harness:paging:page_oncall}:window";

struct Replicas {
    servers: Vec<HttpServer>,
    clients: Vec<Client>,
    scratch: ScratchDir,
}

impl Replicas {
    /// `count` replicas keeping their windows in the Redis at `url`.
    async fn start(count: usize, url: &str) -> Self {
        let scratch = scratch_dir("paging-replicas");
        let mut servers = Vec::new();
        let mut clients = Vec::new();
        for replica in 0..count {
            let audit = scratch.join(format!("audit-{replica}.jsonl"));
            let server = HttpServer::start_with_env(
                SERVER,
                &audit,
                &[],
                &[("PAGING_TOKEN", TEST_TOKEN), ("PAGING_REDIS_URL", url)],
            );
            clients.push(server.client("/mcp").await);
            servers.push(server);
        }
        Self {
            servers,
            clients,
            scratch,
        }
    }

    /// Every replica's audit records.
    fn records(&self) -> Vec<serde_json::Map<String, Value>> {
        (0..self.servers.len())
            .flat_map(|replica| audit_records(&self.scratch.join(format!("audit-{replica}.jsonl"))))
            .collect()
    }
}

/// What one call ended as: `ok`, or the envelope's error_code; with the envelope's message.
async fn page(client: &Client, incident_id: u64) -> (String, String) {
    let arguments = json!({"incident_id": incident_id, "summary": "disk full on db-1"});
    let result = tokio::time::timeout(HANG, call(client, "page_oncall", arguments))
        .await
        .expect("the call is answered, never hangs")
        .expect("no protocol error");
    let structured = result.structured_content.expect("structuredContent");
    if result.is_error == Some(true) {
        (
            structured["error_code"].as_str().unwrap().to_owned(),
            structured["message"].as_str().unwrap().to_owned(),
        )
    } else {
        assert!(structured["page_id"].is_string(), "{structured}");
        ("ok".to_owned(), String::new())
    }
}

/// `count` concurrent calls spread round-robin over the replicas; the ending of each.
async fn burst(replicas: &Replicas, count: usize, done: &AtomicUsize) -> Vec<(String, String)> {
    let calls = (0..count).map(|index| {
        let client = &replicas.clients[index % replicas.clients.len()];
        async move {
            let ending = page(client, index as u64 + 1).await;
            done.fetch_add(1, Ordering::Relaxed);
            ending
        }
    });
    futures::future::join_all(calls).await
}

fn count(endings: &[(String, String)], what: &str) -> usize {
    endings.iter().filter(|(ending, _)| ending == what).count()
}

/// Seconds in `... Retry after 3599.2s.`
fn retry_after_seconds(message: &str) -> f64 {
    let tail = message
        .split("Retry after ")
        .nth(1)
        .unwrap_or_else(|| panic!("{message}"));
    tail.trim_end_matches("s.").parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_replicas_admit_exactly_the_limit_between_them() {
    let redis = RedisServer::start_new();
    let replicas = Replicas::start(3, &redis.url()).await;
    let started = Instant::now();
    let endings = burst(&replicas, 1000, &AtomicUsize::new(0)).await;

    assert_eq!(
        count(&endings, "ok"),
        LIMIT,
        "admitted across three replicas"
    );
    assert_eq!(count(&endings, "ToolRateLimitError"), 1000 - LIMIT);
    // Every replica admitted some: the window really is shared, not one replica's.
    let records = replicas.records();
    for replica in 0..3 {
        let path = replicas.scratch.join(format!("audit-{replica}.jsonl"));
        let admitted = audit_records(&path)
            .iter()
            .filter(|record| record["outcome"] == "ok")
            .count();
        assert!(admitted > 0, "replica {replica} admitted none");
    }
    assert_eq!(records.len(), 1000);
    assert_eq!(
        records.iter().filter(|r| r["outcome"] == "ok").count(),
        LIMIT
    );
    assert_eq!(
        records
            .iter()
            .filter(|r| r["outcome"] == "rate_limited")
            .count(),
        1000 - LIMIT
    );
    // The retry hint counts from the oldest admission: an hour minus the time since the burst
    // began.
    let elapsed = started.elapsed().as_secs_f64();
    for (_, message) in endings.iter().filter(|(e, _)| e == "ToolRateLimitError") {
        let retry = retry_after_seconds(message);
        assert!(
            retry <= 3600.0 && retry >= 3600.0 - elapsed - 1.0,
            "{message} (burst took {elapsed:.1}s)"
        );
        assert!(message.starts_with("Rate limit exceeded: 100 calls per 3600.0s limit reached."));
    }
    // Redis holds exactly the admissions; `runbook` (backend = "memory") has no key.
    assert_eq!(redis.cli(&["ZCARD", WINDOW_KEY]), LIMIT.to_string());
    assert_eq!(redis.cli(&["KEYS", "*"]), WINDOW_KEY);
    let ttl: i64 = redis.cli(&["PTTL", WINDOW_KEY]).parse().unwrap();
    assert!(
        ttl > 3_500_000 && ttl <= 3_600_000,
        "the window expires with its period: {ttl}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_down_refuses_without_hanging_and_redis_back_admits_again() {
    let mut redis = RedisServer::start_new();
    // The replicas reach Redis through a relay: its address stays the test's for the whole
    // test (Redis comes back on a fresh port), and it can hold their commands in flight.
    let relay = Arc::new(Relay::start(redis.address()));
    let url = format!("redis://127.0.0.1:{}/0", relay.port());
    let replicas = Replicas::start(3, &url).await;

    let before = burst(&replicas, 20, &AtomicUsize::new(0)).await;
    assert_eq!(count(&before, "ok"), 20);

    // Redis dies while 300 calls are in flight: the first thing the replicas send passes,
    // then what they send Redis waits in the relay; once a call's command waits there (sent,
    // unanswered), Redis is killed (the relay, like a dead Redis, now refuses new
    // connections: the old port may be a parallel test's by now), and only then is the
    // command let go, to a Redis that is gone.
    relay.hold_after(1);
    let done = AtomicUsize::new(0);
    let during = {
        let held = Arc::clone(&relay);
        let (_, endings) = tokio::join!(
            async {
                let waiting =
                    tokio::task::spawn_blocking(move || held.wait_held(1, Duration::from_secs(20)));
                assert!(waiting.await.unwrap(), "no command reached the relay");
                relay.cut();
                redis.stop();
                relay.release();
            },
            burst(&replicas, 300, &done),
        );
        endings
    };
    assert_eq!(during.len(), 300, "every call answered");
    let admitted_during = count(&during, "ok");
    assert!(
        admitted_during <= LIMIT - 20,
        "never past the limit: {admitted_during}"
    );
    for (ending, message) in &during {
        assert!(
            ["ok", "ToolRateLimitError", "RateLimitStoreUnavailable"].contains(&ending.as_str()),
            "{ending}: {message}"
        );
    }
    // The held command never got its answer: its call saw the outage.
    assert!(
        count(&during, "RateLimitStoreUnavailable") >= 1,
        "no call in flight at the kill was refused: {during:?}"
    );

    // Down: the manifest says refuse, and every replica does, promptly.
    let down = burst(&replicas, 60, &AtomicUsize::new(0)).await;
    assert_eq!(count(&down, "RateLimitStoreUnavailable"), 60, "{down:?}");
    assert!(down[0].1.contains("could not be checked"), "{}", down[0].1);

    // Back (empty, as after a restart without persistence, and on another port, which the
    // relay now leads to): every replica admits again.
    redis.start();
    relay.set_upstream(redis.address());
    for client in &replicas.clients {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let (ending, message) = page(client, 7).await;
            if ending == "ok" {
                break;
            }
            assert_eq!(ending, "RateLimitStoreUnavailable", "{message}");
            assert!(Instant::now() < deadline, "never recovered");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let after = burst(&replicas, 200, &AtomicUsize::new(0)).await;
    assert_eq!(count(&after, "ok"), LIMIT - 3, "the fresh window's limit");
    assert_eq!(count(&after, "ToolRateLimitError"), 200 - (LIMIT - 3));

    let records = replicas.records();
    let unavailable = records
        .iter()
        .filter(|r| r["outcome"] == "rate_limit_unavailable")
        .count();
    assert!(unavailable >= 60, "audited as rate_limit_unavailable");
    assert!(
        records
            .iter()
            .filter(|r| r["outcome"] == "rate_limit_unavailable")
            .all(|r| r["error_code"] == "RateLimitStoreUnavailable")
    );
}
