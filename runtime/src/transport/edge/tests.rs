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

/// A running edge in front of a router with `GET /health`, `GET /wait` (answered once
/// [`Edge::release`] is called) and `GET /events` (an event stream that never ends).
struct Edge {
    addr: SocketAddr,
    stop: CancellationToken,
    served: tokio::task::JoinHandle<()>,
    release: tokio::sync::watch::Sender<bool>,
    waiting: tokio::sync::watch::Receiver<usize>,
}

impl Edge {
    /// Returns once `count` requests wait in `/wait` (each in flight on its connection).
    async fn waiting(&mut self, count: usize) {
        self.waiting
            .wait_for(|waiting| *waiting >= count)
            .await
            .unwrap();
    }

    /// Lets every `/wait` answer.
    fn release(&self) {
        self.release.send_replace(true);
    }
}

async fn start(limits: HttpLimits) -> Edge {
    let listener = listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let (release, released) = tokio::sync::watch::channel(false);
    let (entered, waiting) = tokio::sync::watch::channel(0);
    let router = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route(
            "/wait",
            get(move || {
                let mut released = released.clone();
                entered.send_modify(|entered| *entered += 1);
                async move {
                    released.wait_for(|released| *released).await.unwrap();
                    "done"
                }
            }),
        )
        .route(
            "/events",
            get(|| async {
                let never = futures::stream::pending::<Result<hyper::body::Bytes, io::Error>>();
                (
                    [("content-type", "text/event-stream")],
                    axum::body::Body::from_stream(never),
                )
            }),
        );
    let stop = CancellationToken::new();
    let served = tokio::spawn(serve(listener, router, None, limits, stop.clone()));
    Edge {
        addr,
        stop,
        served,
        release,
        waiting,
    }
}

fn limits() -> HttpLimits {
    HttpLimits {
        header_read_timeout: Duration::from_secs(60),
        keep_alive_idle: Duration::from_secs(60),
        first_byte_timeout: Duration::from_secs(60),
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

/// Sends `GET path` asking for an event stream, on a kept-alive connection; the status code.
fn get_on(stream: &mut TcpStream, path: &str) -> u16 {
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    read_response(stream).0
}

/// Sends `GET path` without waiting for its answer.
fn ask(addr: SocketAddr, path: &str) -> TcpStream {
    let mut stream = connect(addr);
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    stream
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
        first_byte_timeout: Duration::from_millis(300),
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
async fn at_the_limit_the_oldest_idle_connection_gives_way() {
    let edge = start(HttpLimits {
        max_connections: 4,
        ..limits()
    })
    .await;
    let addr = edge.addr;
    blocking(move || {
        // Accepted in order: each holds its place before the next asks.
        let mut kept_alive = connect(addr);
        assert_eq!(health(&mut kept_alive), 200);
        let mut silent: Vec<TcpStream> = (0..3).map(|_| connect(addr)).collect();
        let mut fifth = connect(addr);
        assert_eq!(health(&mut fifth), 200, "the fifth is served");
        assert!(
            closed_by_server(&mut silent[0]),
            "the oldest silent one closed"
        );
        assert_eq!(health(&mut connect(addr)), 200, "and the sixth");
        assert!(closed_by_server(&mut silent[1]), "the next silent one");
        assert_eq!(
            health(&mut kept_alive),
            200,
            "the kept-alive one still serves"
        );
        assert_eq!(health(&mut fifth), 200, "and so does the fifth");
    })
    .await;
    edge.stop.cancel();
    edge.served.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_every_connection_busy_the_next_gets_503_and_a_finished_request_makes_room() {
    let mut edge = start(HttpLimits {
        max_connections: 4,
        max_streams: 1,
        ..limits()
    })
    .await;
    let addr = edge.addr;
    let mut busy = blocking(move || {
        let mut stream = connect(addr);
        assert_eq!(get_on(&mut stream, "/events"), 200, "a stream is open");
        let mut busy = vec![stream];
        busy.extend((0..3).map(|_| ask(addr, "/wait")));
        busy
    })
    .await;
    edge.waiting(3).await;
    let waits = busy.split_off(1);
    blocking(move || {
        let mut fifth = connect(addr);
        let (status, body) = read_response(&mut fifth);
        assert_eq!((status, body.as_str()), (503, "too many connections\n"));
        assert!(closed_by_server(&mut fifth), "then closed");
    })
    .await;
    edge.release();
    blocking(move || {
        for mut wait in waits {
            assert_eq!(
                read_response(&mut wait),
                (200, "done".to_owned()),
                "every call in flight completes"
            );
        }
        assert_eq!(
            health(&mut connect(addr)),
            200,
            "an idle connection gives way now"
        );
    })
    .await;
    drop(busy);
    edge.stop.cancel();
    edge.served.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_streams_past_max_streams_get_503_while_requests_are_served() {
    let edge = start(HttpLimits {
        max_streams: 2,
        ..limits()
    })
    .await;
    let addr = edge.addr;
    blocking(move || {
        let mut open: Vec<TcpStream> = (0..2).map(|_| connect(addr)).collect();
        for stream in &mut open {
            assert_eq!(get_on(stream, "/events"), 200);
        }
        let mut third = connect(addr);
        assert_eq!(get_on(&mut third, "/events"), 503, "past max_streams");
        assert_eq!(
            health(&mut third),
            200,
            "the same connection serves requests"
        );
        drop(open.pop());
        let mut after = connect(addr);
        let opened = (0..100).any(|_| get_on(&mut after, "/events") == 200);
        assert!(opened, "a closed stream gives its place back");
    })
    .await;
    edge.stop.cancel();
    edge.served.await.unwrap();
}

/// The idle connections one client holds open in the flood test: more than four times the
/// default `max_connections`.
const FLOOD: usize = 5_000;

/// Calls in flight before the flood, which must all complete.
const BEFORE_THE_FLOOD: usize = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_thousand_idle_connections_leave_health_and_calls_answering() {
    allow_open_files(FLOOD + 1_100);
    let mut edge = start(HttpLimits {
        // Only admission can make room: no timer closes the idle sockets within the test.
        first_byte_timeout: Duration::from_secs(600),
        ..HttpLimits::default()
    })
    .await;
    let addr = edge.addr;
    let calls = blocking(move || {
        (0..BEFORE_THE_FLOOD)
            .map(|_| ask(addr, "/wait"))
            .collect::<Vec<_>>()
    })
    .await;
    edge.waiting(BEFORE_THE_FLOOD).await;
    let flood = blocking(move || {
        (0..FLOOD)
            .map(|index| {
                TcpStream::connect_timeout(&addr, DEADLINE)
                    .unwrap_or_else(|error| panic!("connect {index} of {FLOOD}: {error}"))
            })
            .collect::<Vec<_>>()
    })
    .await;
    blocking(move || {
        assert_eq!(health(&mut connect(addr)), 200, "health beside the flood");
        let mut other = connect(addr);
        assert_eq!(health(&mut other), 200);
        assert_eq!(health(&mut other), 200, "kept alive beside the flood");
    })
    .await;
    edge.release();
    blocking(move || {
        for mut call in calls {
            assert_eq!(
                read_response(&mut call),
                (200, "done".to_owned()),
                "a call in flight before the flood"
            );
        }
        drop(flood);
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
