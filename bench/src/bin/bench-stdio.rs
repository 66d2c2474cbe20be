//! A raw JSON-RPC pipe client for the stdio benchmark: starts the server command given after
//! `--`, initializes, makes sequential `tools/call echo` requests for `--seconds`, and prints
//! one JSON line: calls per second, p50/p99 latency in µs, the server's CPU time per call,
//! and its RSS idle (after initialize and warm-up) and peak (VmHWM at the end), in KiB.
//!
//! A raw pipe rather than an SDK client, because a client library's own cost per call
//! (about 0.7 ms for the Python `mcp` client) would cap and blur the comparison.
//!
//! `bench-stdio [--seconds S] [--warmup CALLS] -- SERVER COMMAND...`

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Why the benchmark could not run.
#[derive(Debug)]
struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for Failure {
    fn from(error: E) -> Self {
        Self(error.to_string())
    }
}

struct Options {
    seconds: f64,
    warmup: usize,
    command: Vec<String>,
}

fn parse_options() -> Result<Options, Failure> {
    let mut options = Options {
        seconds: 10.0,
        warmup: 500,
        command: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| Failure(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--seconds" => {
                options.seconds = value("--seconds")?
                    .parse()
                    .ok()
                    .filter(|seconds: &f64| *seconds > 0.0)
                    .ok_or_else(|| Failure("--seconds needs a positive number".to_owned()))?;
            }
            "--warmup" => {
                options.warmup = value("--warmup")?
                    .parse()
                    .map_err(|_| Failure("--warmup needs a count of calls".to_owned()))?;
            }
            "--" => {
                options.command = args.collect();
                break;
            }
            other => return Err(Failure(format!("unknown argument {other:?}"))),
        }
    }
    if options.command.is_empty() {
        return Err(Failure(
            "usage: bench-stdio [--seconds S] [--warmup CALLS] -- SERVER COMMAND...".to_owned(),
        ));
    }
    Ok(options)
}

/// One stdio session with the server under test.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Session {
    fn start(command: &[String]) -> Result<Self, Failure> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| Failure(format!("cannot start {:?}: {error}", command[0])))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        Ok(Self {
            child,
            stdin,
            stdout,
            line: String::new(),
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), Failure> {
        let mut text = message.to_string();
        text.push('\n');
        self.stdin.write_all(text.as_bytes())?;
        self.stdin.flush()?;
        Ok(())
    }

    /// Reads messages until the response with `id`, skipping notifications and logs.
    fn response(&mut self, id: u64) -> Result<Value, Failure> {
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line)? == 0 {
                return Err(Failure(format!(
                    "the server closed stdout before answering request {id}"
                )));
            }
            let message: Value = serde_json::from_str(&self.line).map_err(|error| {
                Failure(format!(
                    "the server wrote a line that is not JSON ({error}): {}",
                    self.line.trim_end()
                ))
            })?;
            if message.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(error) = message.get("error") {
                    return Err(Failure(format!("request {id} failed: {error}")));
                }
                return Ok(message);
            }
        }
    }

    fn call(&mut self, id: u64) -> Result<(), Failure> {
        self.send(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "hello"}}
        }))?;
        let reply = self.response(id)?;
        if reply.pointer("/result/isError") == Some(&Value::Bool(true)) {
            return Err(Failure(format!("echo returned an error: {reply}")));
        }
        Ok(())
    }

    /// The server's user + system CPU time so far (all threads), from /proc/PID/stat.
    fn cpu_time(&self) -> Option<Duration> {
        // Linux reports these in USER_HZ, which is 100 on every architecture it supports.
        const USER_HZ: u64 = 100;
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        // Fields after the parenthesised command name, which may itself hold spaces.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 1000 / USER_HZ))
    }

    /// A `VmRSS`/`VmHWM` line of /proc/PID/status, in KiB.
    fn memory_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    let index = ((sorted.len() - 1) as f64 * fraction).round() as usize;
    sorted[index].as_secs_f64() * 1e6
}

fn run(options: &Options) -> Result<Value, Failure> {
    let mut session = Session::start(&options.command)?;
    session.send(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench-stdio", "version": "0.1.0"}
        }
    }))?;
    session.response(0)?;
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let mut id = 1;
    for _ in 0..options.warmup {
        session.call(id)?;
        id += 1;
    }
    let rss_idle = session.memory_kib("VmRSS");
    let cpu_before = session.cpu_time();
    let mut latencies = Vec::new();
    let budget = Duration::from_secs_f64(options.seconds);
    let started = Instant::now();
    while started.elapsed() < budget {
        let sent = Instant::now();
        session.call(id)?;
        latencies.push(sent.elapsed());
        id += 1;
    }
    let elapsed = started.elapsed();
    let cpu_per_call = cpu_before
        .zip(session.cpu_time())
        .map(|(before, after)| (after - before).as_secs_f64() * 1e6 / latencies.len() as f64);
    let rss_peak = session.memory_kib("VmHWM");
    latencies.sort_unstable();
    Ok(json!({
        "calls": latencies.len(),
        "calls_per_second": (latencies.len() as f64 / elapsed.as_secs_f64()).round(),
        "p50_us": percentile(&latencies, 0.50).round(),
        "p99_us": percentile(&latencies, 0.99).round(),
        "cpu_us_per_call": cpu_per_call.map(f64::round),
        "rss_idle_kib": rss_idle,
        "rss_peak_kib": rss_peak,
    }))
}

fn main() -> std::process::ExitCode {
    match parse_options().and_then(|options| run(&options)) {
        Ok(report) => {
            println!("{report}");
            std::process::ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("bench-stdio: {failure}");
            std::process::ExitCode::FAILURE
        }
    }
}
