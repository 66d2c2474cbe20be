//! The edge over real loopback sockets, in process, with limits short enough to watch:
//! each test waits on what the server does (an answer, an end of stream), never on a
//! sleep, and gives each event a generous deadline rather than timing it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use axum::routing::get;

use super::*;

/// The longest any expected event may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(20);

/// A running edge in front of a router with `GET /health`.
struct Edge {
    addr: SocketAddr,
    stop: CancellationToken,
    served: tokio::task::JoinHandle<()>,
}

async fn start(limits: HttpLimits) -> Edge {
    let listener = listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new().route("/health", get(|| async { "ok" }));
    let stop = CancellationToken::new();
    let served = tokio::spawn(serve(listener, router, limits, stop.clone()));
    Edge { addr, stop, served }
}

fn limits() -> HttpLimits {
    HttpLimits {
        header_read_timeout: Duration::from_secs(60),
        keep_alive_idle: Duration::from_secs(60),
        max_connections: 64,
        ..HttpLimits::default()
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    stream
}

/// Sends `GET /health` on a kept-alive connection and returns the status code.
fn health(stream: &mut TcpStream) -> u16 {
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    read_response(stream).0
}

/// One response: (status, body); its body by Content-Length.
fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        let read = stream
            .read(&mut byte)
            .expect("an answer within the deadline");
        assert_eq!(read, 1, "the connection closed mid-answer: {head:?}");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

/// Waits (at most the read deadline) until the server closes `stream`; true when it did.
fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut rest = Vec::new();
    match stream.read_to_end(&mut rest) {
        Ok(_) => true,
        Err(error) => error.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

/// Runs blocking socket work off the runtime the server runs on.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work).await.unwrap()
}

/// Twice tokio's default backlog of 1024: a listener bound with that default completes
/// only 1025 of these while nobody accepts, and the next connect waits for a place that
/// never comes (CI once spent a minute in SYN retransmits on 10,000 connects).
const QUEUED: usize = 2048;

#[test]
fn the_listener_queues_a_burst_past_tokios_default_backlog() {
    let somaxconn: usize = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(usize::MAX);
    if somaxconn < QUEUED {
        eprintln!("skipped: net.core.somaxconn is {somaxconn}, below the {QUEUED} this test needs");
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    // Bound and never accepted from: every handshake below is the kernel's alone.
    let listener = runtime.block_on(async { listen("127.0.0.1:0".parse().unwrap()).unwrap() });
    let addr = listener.local_addr().unwrap();
    let queued: Vec<TcpStream> = (0..QUEUED)
        .map(|index| {
            TcpStream::connect_timeout(&addr, DEADLINE)
                .unwrap_or_else(|error| panic!("connect {index} of {QUEUED}: {error}"))
        })
        .collect();
    assert_eq!(queued.len(), QUEUED);
}

#[tokio::test]
async fn accepted_connections_have_nodelay() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let accepted = accept(&listener).await.unwrap();
    assert!(
        accepted.nodelay().unwrap(),
        "the server side of the connection"
    );
    drop(client);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_head_is_closed_while_a_silent_connection_still_serves() {
    let edge = start(HttpLimits {
        header_read_timeout: Duration::from_millis(300),
        ..limits()
    })
    .await;
    let addr = edge.addr;
    blocking(move || {
        // Silent since it connected: idle, which the 60 s idle limit allows.
        let mut silent = connect(addr);
        let mut stalled = connect(addr);
        stalled
            .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-")
            .unwrap();
        assert!(closed_by_server(&mut stalled), "a stalled head is closed");
        assert_eq!(
            health(&mut silent),
            200,
            "the silent connection still serves"
        );
        assert_eq!(health(&mut silent), 200, "and is kept alive");
    })
    .await;
    edge.stop.cancel();
    edge.served.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_are_closed_after_the_idle_time_fresh_or_kept_alive() {
    let edge = start(HttpLimits {
        keep_alive_idle: Duration::from_millis(300),
        ..limits()
    })
    .await;
    let addr = edge.addr;
    blocking(move || {
        let mut fresh = connect(addr);
        assert!(closed_by_server(&mut fresh), "never sent a byte");
        let mut kept = connect(addr);
        assert_eq!(health(&mut kept), 200);
        assert!(closed_by_server(&mut kept), "silent after its answer");
    })
    .await;
    edge.stop.cancel();
    edge.served.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_or_too_large_headers_get_431() {
    let edge = start(HttpLimits {
        max_header_bytes: 2048,
        ..limits()
    })
    .await;
    let addr = edge.addr;
    blocking(move || {
        let mut many = String::from("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for index in 0..100 {
            many.push_str(&format!("x-{index}: 1\r\n"));
        }
        many.push_str("\r\n");
        let mut stream = connect(addr);
        stream.write_all(many.as_bytes()).unwrap();
        assert_eq!(read_response(&mut stream).0, 431, "101 header fields");
        let large = format!(
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nx-large: {}\r\n\r\n",
            "a".repeat(2048)
        );
        let mut stream = connect(addr);
        stream.write_all(large.as_bytes()).unwrap();
        assert_eq!(read_response(&mut stream).0, 431, "a head over 2048 bytes");
        assert_eq!(
            health(&mut connect(addr)),
            200,
            "100 fields and a small head"
        );
    })
    .await;
    edge.stop.cancel();
    edge.served.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_past_the_limit_gets_503_and_a_closed_one_makes_room() {
    let edge = start(HttpLimits {
        max_connections: 4,
        ..limits()
    })
    .await;
    let addr = edge.addr;
    blocking(move || {
        // Each connection is answered before the next opens, so each holds its place.
        let mut open: Vec<TcpStream> = (0..4).map(|_| connect(addr)).collect();
        for stream in &mut open {
            assert_eq!(health(stream), 200);
        }
        let mut fifth = connect(addr);
        let (status, body) = read_response(&mut fifth);
        assert_eq!((status, body.as_str()), (503, "too many connections\n"));
        assert!(closed_by_server(&mut fifth), "then closed");
        // A client that ends its connection and sees the server close it has freed a place.
        let mut leaving = open.pop().unwrap();
        leaving.shutdown(std::net::Shutdown::Write).unwrap();
        assert!(closed_by_server(&mut leaving));
        assert_eq!(health(&mut connect(addr)), 200, "the freed place is taken");
    })
    .await;
    edge.stop.cancel();
    edge.served.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_closes_idle_connections_and_returns() {
    let edge = start(limits()).await;
    let addr = edge.addr;
    let mut idle = blocking(move || {
        let mut idle = connect(addr);
        assert_eq!(health(&mut idle), 200);
        idle
    })
    .await;
    edge.stop.cancel();
    edge.served.await.unwrap();
    assert!(blocking(move || closed_by_server(&mut idle)).await);
}
