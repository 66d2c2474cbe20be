//! Tasks kept in Redis (`escalate`'s `[tools.task]`, whose store follows `[rate_limit_store]
//! backend = "redis"`), over real HTTP between two real replicas sharing one real
//! `redis-server`: each replica reads, answers and cancels the other's tasks; a cancel sent to
//! the replica that does not run the body stops it before its side effect; a replica killed
//! mid-task leaves its tasks `failed` once their lease has run out, freeing their places;
//! `max_alive` holds across the replicas; Redis keeps only what the tool's bounds allow.

use std::path::{Path, PathBuf};

use harness_test_support::{
    HttpServer, RedisServer, ScratchDir, StatelessClient, TEST_TOKEN, audit_records, scratch_dir,
};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_paging");
/// `escalate`'s `max_alive` and `lease_ms` in harness.toml.
const MAX_ALIVE: usize = 4;
/// What Redis keeps of a tool's finished tasks: four per task it may have alive.
const KEPT_FINISHED: usize = 4 * MAX_ALIVE;

struct Replica {
    _server: HttpServer,
    client: StatelessClient,
    audit: PathBuf,
}

struct Replicas {
    replicas: Vec<Option<Replica>>,
    scratch: ScratchDir,
}

impl Replicas {
    /// Two replicas keeping their tasks in the Redis at `url`, appending their escalations to
    /// one log.
    fn start(name: &str, url: &str) -> Self {
        let scratch = scratch_dir(name);
        let log = scratch.join("escalations.jsonl");
        let log = log.to_str().expect("a UTF-8 path");
        let replicas = (0..2)
            .map(|replica| {
                let audit = scratch.join(format!("audit-{replica}.jsonl"));
                let server = HttpServer::start_with_env(
                    SERVER,
                    &audit,
                    &[],
                    &[
                        ("PAGING_TOKEN", TEST_TOKEN),
                        ("PAGING_REDIS_URL", url),
                        ("PAGING_ESCALATION_LOG", log),
                    ],
                );
                let url = format!("http://127.0.0.1:{}/mcp", server.port);
                let client = StatelessClient::new(&url, json!({"elicitation": {"form": {}}}))
                    .with_token(TEST_TOKEN)
                    .declaring_tasks();
                Some(Replica {
                    _server: server,
                    client,
                    audit,
                })
            })
            .collect();
        Self { replicas, scratch }
    }

    fn client(&self, replica: usize) -> &StatelessClient {
        &self.replicas[replica].as_ref().expect("running").client
    }

    fn audit(&self, replica: usize) -> &Path {
        &self.replicas[replica].as_ref().expect("running").audit
    }

    /// Kills a replica as a crash would (SIGKILL).
    fn kill(&mut self, replica: usize) {
        drop(self.replicas[replica].take());
    }

    /// The incidents escalated so far, with their tier.
    fn escalations(&self) -> Vec<(u64, String)> {
        let log =
            std::fs::read_to_string(self.scratch.join("escalations.jsonl")).unwrap_or_default();
        log.lines()
            .map(|line| {
                let page: Value = serde_json::from_str(line).expect("a JSON line");
                let incident = page["incident_id"].as_u64().expect("an incident");
                (incident, page["tier"].as_str().expect("a tier").to_owned())
            })
            .collect()
    }
}

/// Creates an `escalate` task on `client`; returns its id.
async fn escalate(client: &StatelessClient, arguments: Value) -> String {
    let created = client.call("escalate", arguments).await.expect("answered");
    assert_eq!(created["resultType"], "task", "a task: {created}");
    assert_eq!(created["status"], "working", "{created}");
    created["taskId"].as_str().expect("a task id").to_owned()
}

/// Waits until `audit` holds the record of `task`'s end; returns its outcome.
async fn final_outcome(audit: &Path, task: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let end = audit_records(audit)
            .into_iter()
            .find(|record| record["task_id"] == task && record["outcome"] != "task_created");
        if let Some(end) = end {
            return end["outcome"].as_str().expect("an outcome").to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "task {task} never ended in {audit:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_replica_reads_answers_and_cancels_the_others_tasks() {
    let redis = RedisServer::start_new();
    let replicas = Replicas::start("paging-tasks", &redis.url());
    let (a, b) = (replicas.client(0), replicas.client(1));

    // Created on A, read to its result on B.
    let id = escalate(a, json!({"incident_id": 1, "after_seconds": 0})).await;
    let task = b.wait_for(&id, "completed").await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        task["result"]["structuredContent"],
        json!({"incident_id": 1, "escalated": true, "tier": "secondary"})
    );
    assert_eq!(task["pollIntervalMs"], 200);
    assert_eq!(replicas.escalations(), [(1, "secondary".to_owned())]);

    // Created on A, cancelled on B: the body on A stops before it pages.
    let id = escalate(a, json!({"incident_id": 2, "after_seconds": 30})).await;
    assert_eq!(
        b.get_task(&id).await.expect("readable on B")["status"],
        "working"
    );
    b.request("tasks/cancel", json!({"taskId": id}))
        .await
        .expect("cancelled from B");
    assert_eq!(
        a.get_task(&id).await.expect("readable on A")["status"],
        "cancelled"
    );
    assert_eq!(final_outcome(replicas.audit(0), &id).await, "cancelled");
    assert_eq!(
        replicas.escalations().len(),
        1,
        "incident 2 was never paged"
    );

    // Created on B, its question answered on A: the answer reaches the body on B.
    let id = escalate(
        b,
        json!({"incident_id": 3, "after_seconds": 0, "ask_tier": true}),
    )
    .await;
    let task = a.wait_for(&id, "input_required").await;
    assert_eq!(task["status"], "input_required", "{task}");
    assert_eq!(
        task["inputRequests"]["tier"]["method"],
        "elicitation/create"
    );
    let answer = json!({"tier": {"action": "accept", "content": {"tier": "manager"}}});
    a.request(
        "tasks/update",
        json!({"taskId": id, "inputResponses": answer}),
    )
    .await
    .expect("answered on A");
    let task = a.wait_for(&id, "completed").await;
    assert_eq!(
        task["result"]["structuredContent"],
        json!({"incident_id": 3, "escalated": true, "tier": "manager"}),
        "{task}"
    );
    assert_eq!(final_outcome(replicas.audit(1), &id).await, "ok");
    assert_eq!(replicas.escalations()[1], (3, "manager".to_owned()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_replicas_tasks_fail_after_their_lease_and_free_their_places() {
    let redis = RedisServer::start_new();
    let mut replicas = Replicas::start("paging-tasks-killed", &redis.url());
    let mut ids = Vec::new();
    for incident in 0..MAX_ALIVE {
        let arguments = json!({"incident_id": 10 + incident, "after_seconds": 60});
        ids.push(escalate(replicas.client(0), arguments).await);
    }
    // max_alive holds across the replicas.
    let refused = replicas
        .client(1)
        .call("escalate", json!({"incident_id": 20, "after_seconds": 60}))
        .await
        .expect("answered");
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["error_code"], "TooManyTasks");

    replicas.kill(0);
    for id in &ids {
        let task = replicas.client(1).wait_for(id, "failed").await;
        assert_eq!(task["status"], "failed", "{task}");
        let message = task["error"]["message"].as_str().expect("an error");
        assert!(
            message.contains("stopped renewing it for 3000 ms"),
            "{message}"
        );
        assert_eq!(task["error"]["code"], -32603);
    }
    // Their places are free again.
    let id = escalate(
        replicas.client(1),
        json!({"incident_id": 21, "after_seconds": 0}),
    )
    .await;
    let task = replicas.client(1).wait_for(&id, "completed").await;
    assert_eq!(task["status"], "completed", "{task}");
    assert!(
        replicas
            .escalations()
            .iter()
            .all(|(incident, _)| *incident == 21)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_keeps_only_what_the_tools_bounds_allow() {
    let redis = RedisServer::start_new();
    let replicas = Replicas::start("paging-tasks-bounded", &redis.url());
    let mut ids = Vec::new();
    for incident in 0..KEPT_FINISHED + 6 {
        let client = replicas.client(incident % 2);
        let id = escalate(
            client,
            json!({"incident_id": 100 + incident, "after_seconds": 0}),
        )
        .await;
        client.wait_for(&id, "completed").await;
        ids.push(id);
    }
    let tasks = redis.cli(&["KEYS", "{harness:paging}:tasks:task:*"]);
    assert_eq!(tasks.lines().count(), KEPT_FINISHED, "{tasks}");
    assert_eq!(
        redis.cli(&["ZCARD", "{harness:paging}:tasks:finished:escalate"]),
        KEPT_FINISHED.to_string()
    );
    assert_eq!(
        redis.cli(&["ZCARD", "{harness:paging}:tasks:alive:escalate"]),
        "0"
    );
    // The oldest are forgotten, the newest kept; each expires with its time to live.
    let unknown = replicas
        .client(0)
        .get_task(&ids[0])
        .await
        .expect_err("forgotten");
    assert_eq!(unknown.code, -32602, "{unknown:?}");
    let newest = format!("{{harness:paging}}:tasks:task:{}", ids.last().unwrap());
    let ttl: i64 = redis.cli(&["PTTL", &newest]).parse().unwrap();
    assert!(
        ttl > 0 && ttl <= 900_000,
        "expires with its time to live: {ttl}"
    );
    // No subject is stored as written: the static token has none, so it reads `-`.
    assert_eq!(redis.cli(&["HGET", &newest, "owner"]), "-");
}
