//! A shutdown with a `subscriptions/listen` stream open: the fixture (the server generated
//! from examples/conformance/harness.toml, with `test://watched-resource` subscribable) ends
//! the stream with its final result as the shutdown begins and exits at once, instead of
//! waiting the whole grace period (10 s) for a request that never finishes on its own.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use harness_test_support::{HttpServer, scratch_dir};

/// The fixture seals request state with a key from this variable; any 32 bytes do here.
const STATE_KEY: (&str, &str) = (
    "CONFORMANCE_STATE_KEY",
    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
);

#[test]
fn a_shutdown_ends_an_open_listen_stream_with_its_final_result_and_does_not_wait_for_it() {
    let dir = scratch_dir("listen-shutdown");
    let mut server = HttpServer::start_with_env(
        env!("CARGO_BIN_EXE_conformance-fixture"),
        &dir.join("audit.jsonl"),
        &["--stateless"],
        &[STATE_KEY],
    );
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 41,
        "method": "subscriptions/listen",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "notifications": {"resourceSubscriptions": ["test://watched-resource"]},
        },
    })
    .to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    // A guard against a hang, not a wait: every read below returns as soon as data comes.
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut received = Vec::new();
    let mut buffer = [0; 4096];
    while !String::from_utf8_lossy(&received).contains("notifications/subscriptions/acknowledged") {
        let read = stream.read(&mut buffer).unwrap();
        assert!(read > 0, "the stream closed before its acknowledgment");
        received.extend_from_slice(&buffer[..read]);
    }

    assert!(
        server.terminate(Duration::from_secs(5)),
        "the server did not exit within 5 s of SIGTERM with a listen stream open:\n{}",
        server.log().text()
    );
    stream.read_to_end(&mut received).unwrap();
    let received = String::from_utf8_lossy(&received);
    assert!(
        received.contains(r#""resultType":"complete""#),
        "{received}"
    );
    assert!(
        received.contains(r#""io.modelcontextprotocol/subscriptionId":41"#),
        "{received}"
    );
}
