//! Secret redaction on a 64 KiB log, without a secret (the usual case: one scan, the text
//! handed back borrowed) and with one secret of a different kind every 16 lines or so (each
//! match replaced). Divan prints throughput beside each time.
//!
//! `cargo bench -p harness-bench --bench redact`; `cargo test -p harness-bench --benches` runs
//! each once as a smoke test.

use divan::Bencher;
use divan::counter::BytesCount;
use harness_runtime::guards::redact::redact;

fn main() {
    divan::main();
}

const SIZE: usize = 64 << 10;

/// Fake secrets joined from pieces, so this file holds no credential a scanner would flag.
fn secrets() -> Vec<String> {
    [
        ["AKIA", "ZX2YW3VU4TS5RQ6P"].concat(),
        ["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO", "0pINUx"].concat(),
        [
            "xoxb-",
            "123456789012-1234567890123-",
            "AbCdEfGhIjKlMnOpQrStUvWx",
        ]
        .concat(),
        ["sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc"].concat(),
        ["Authorization: Bearer ", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA"].concat(),
        ["postgres://app:", "hunter2hunter2", "@db.internal/orders"].concat(),
        [
            "eyJhbGciOiJIUzI1NiJ9",
            ".eyJzdWIiOiIxMjM0NTY3ODkwIn0",
            ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ]
        .concat(),
    ]
    .into()
}

/// Log lines as a service writes them: timestamps, levels, hex ids, JSON fragments, URLs.
fn log(with_secrets: bool) -> String {
    let secrets = secrets();
    let mut text = String::with_capacity(SIZE + 256);
    let mut line = 0usize;
    while text.len() < SIZE {
        let detail = if with_secrets && line % 16 == 15 {
            format!("credential {} loaded", secrets[line / 16 % secrets.len()])
        } else {
            format!(
                "request_id=5f0c{line:08x}-9a1e trace=4bf92f3577b34da6a3ce929d0e0e4736 path=/api/v1/orders?page={line}"
            )
        };
        text.push_str(&format!(
            "2026-11-30T10:{:02}:{:02}.{:03}Z INFO orders[4121] {{\"status\":200,\"ms\":{}}} {detail}\n",
            line / 60 % 60,
            line % 60,
            line % 1000,
            line % 97
        ));
        line += 1;
    }
    let mut end = SIZE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

#[divan::bench(args = [false, true])]
fn redact_64_kib_log(bencher: Bencher, with_secrets: bool) {
    let text = log(with_secrets);
    if with_secrets {
        assert!(redact(&text).contains("[REDACTED:"));
    } else {
        assert_eq!(redact(&text), text.as_str());
    }
    bencher
        .counter(BytesCount::of_str(&text))
        .bench(|| redact(divan::black_box(&text)).len());
}
