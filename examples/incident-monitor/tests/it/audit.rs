//! The audit under load and at shutdown, over real sockets: calls that finish together share
//! the audit's writes (the group commit, runtime/src/audit/group.rs), and a SIGTERM in the
//! middle of them loses no record: every answered call has one, each a whole line.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use harness_test_support::{HttpServer, audit_records, scratch_file};

const SERVER: &str = env!("CARGO_BIN_EXE_incident-monitor");

/// Clients calling at once, each one call after another on connections of its own.
const CLIENTS: usize = 24;
/// Calls answered before the SIGTERM is sent.
const BEFORE_SIGTERM: usize = 600;

/// One stateless `tools/call` on a connection of its own: whether it was answered with a
/// result (`None` once the server no longer accepts connections).
fn call(port: u16, id: usize) -> Option<bool> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_incident_snapshot","arguments":{{"incident_id":42}}}}}}"#
    );
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response.starts_with("HTTP/1.1 200") && response.contains(r#""result""#))
}

#[test]
fn calls_at_once_and_a_sigterm_leave_one_whole_record_per_answered_call() {
    let audit = scratch_file("group-commit", "audit.jsonl");
    let mut server = HttpServer::start_with(SERVER, &audit, &["--stateless"]);
    let port = server.port;
    let answered = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(CLIENTS));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (answered, start) = (Arc::clone(&answered), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                let mut refused = 0;
                for n in 0.. {
                    match call(port, client * 100_000 + n) {
                        Some(true) => {
                            answered.fetch_add(1, Ordering::SeqCst);
                        }
                        // A call cut short by the shutdown is not an answer.
                        Some(false) => refused += 1,
                        None => return refused,
                    }
                }
                refused
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while answered.load(Ordering::SeqCst) < BEFORE_SIGTERM {
        assert!(Instant::now() < deadline, "the calls did not get answered");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        server.terminate(Duration::from_secs(20)),
        "the server exits after SIGTERM"
    );
    for client in clients {
        client.join().expect("a client thread");
    }
    let answered = answered.load(Ordering::SeqCst);
    // Every line parses whole (audit_records panics on a torn one).
    let records = audit_records(&audit);
    // An answered call was recorded before its reply; a call whose reply the shutdown cut
    // off may be recorded too (one per client at most).
    assert!(
        records.len() >= answered && records.len() <= answered + CLIENTS,
        "{} records for {answered} answered calls",
        records.len()
    );
    // The manifest's rate limit (60 a minute) refuses most of them: refusals are calls too,
    // answered and recorded like any other.
    assert!(
        records
            .iter()
            .all(|record| record["tool"] == "get_incident_snapshot"
                && ["ok", "rate_limited"].contains(&record["outcome"].as_str().unwrap())),
        "every record is one of these calls: {:?}",
        records
            .iter()
            .map(|record| record["outcome"].as_str().unwrap())
            .collect::<std::collections::BTreeSet<_>>()
    );
    let mut ids: Vec<&str> = records
        .iter()
        .map(|record| record["call_id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), records.len(), "no record written twice");
}
