//! An upstream's child process: started with only the environment the manifest allows, in a
//! process group of its own (on Linux under `SCHED_BATCH`, so that it does not preempt the
//! gateway that feeds it), its stderr logged (and its last lines kept), its exit status
//! watched; killed with its whole group when its connection drops, so what a launcher such
//! as `npx` or `uvx` started goes with it.
//!
//! rmcp's own `TokioChildProcess` owns and reaps its child, so an error could only say that
//! the process had gone, not how; here the child is ours and rmcp gets its pipes: its stdin
//! through the writer the direct lane shares (crate::upstream::lane), and of its stdout the
//! lines that are neither a plain `tools/call` reply, decoded here
//! (crate::upstream::replies), nor a reply to the lane, handed to the call waiting for it.

use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ServerJsonRpcMessage, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, ServiceError};
use tokio::io::{AsyncWriteExt, DuplexStream, Sink};
use tokio::process::ChildStdout;
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::sync::lock;
use crate::upstream::lane::{self, Answer, PipeLane};
use crate::upstream::replies::{Lines, MAX_LINE, Read, plain_reply, reply_id};
use crate::upstream::stdin::StdinWriter;

/// How long a child gets to exit after its stdin closes (a server ends on EOF) before it is
/// killed.
const EXIT_ON_CLOSE: Duration = Duration::from_secs(3);

/// How long a failed connection waits for its child's exit and last lines before it says why.
const EXIT_ON_FAILURE: Duration = Duration::from_millis(500);

/// Lines of a child's stderr an error quotes, at most, and the characters of each.
const TAIL_LINES: usize = 12;
const TAIL_LINE_CHARS: usize = 300;

/// Lines of a child's stderr written to the server log per second, at most (a child that
/// floods its stderr cannot flood the log).
const STDERR_LINES_PER_SECOND: u32 = 20;

/// The connection's side of a child: its stdout read here, its stdin written through the
/// writer the lane shares, rmcp's line transport reading the lines passed on to it, and the
/// guard that kills the child's group when the connection drops.
pub(crate) struct ChildTransport {
    /// rmcp's reader of the lines passed on (its writer is never used).
    pipes: AsyncRwTransport<RoleClient, DuplexStream, Sink>,
    writer: Arc<StdinWriter>,
    lane: Arc<PipeLane>,
    stdout: Lines<ChildStdout>,
    /// Where the lines rmcp decodes go; `None` once the child's stdout has ended (rmcp's
    /// reader then sees the end after the lines it has).
    passed_on: Option<DuplexStream>,
    exit: watch::Receiver<Option<ExitStatus>>,
    _kill_on_drop: DropGuard,
}

/// What a failed connection tells about its child: how it ended, and the last lines of its
/// stderr.
#[derive(Clone)]
pub(crate) struct ChildReport {
    exit: watch::Receiver<Option<ExitStatus>>,
    tail: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<String>>>,
    stderr_closed: watch::Receiver<bool>,
}

/// Starts `command` for upstream `upstream` (`Err` when it cannot be started at all): its environment cleared but for `PATH` and the
/// allowed variables (the server's own secrets, such as its bearer token, never reach it).
pub(crate) fn spawn(
    upstream: &'static str,
    command: &'static str,
    args: &'static [&'static str],
    cwd: Option<&'static str>,
    env: &'static [&'static str],
) -> std::io::Result<(ChildTransport, ChildReport)> {
    let mut process = tokio::process::Command::new(command);
    process
        .args(args)
        .env_clear()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    process.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the forked child before exec and makes one syscall, which
    // is async-signal-safe; it touches no memory the parent's other threads may hold.
    unsafe {
        process.pre_exec(run_as_batch);
    }
    for name in std::iter::once(&"PATH").chain(env) {
        if let Some(value) = std::env::var_os(name) {
            process.env(name, value);
        }
    }
    if let Some(cwd) = cwd {
        process.current_dir(cwd);
    }
    let mut child = process.spawn()?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("the three pipes were asked for");
    };
    let (exit_sender, exit) = watch::channel(None);
    let (closed_sender, stderr_closed) = watch::channel(false);
    let report = ChildReport {
        exit: exit.clone(),
        tail: std::sync::Arc::default(),
        stderr_closed,
    };
    tokio::spawn(log_stderr(upstream, stderr, report.clone(), closed_sender));
    let dropped = CancellationToken::new();
    tokio::spawn(watch_exit(child, exit_sender, dropped.clone()));
    // Room for two whole lines: one is passed on only after rmcp has read the one before.
    let (passed_on, rmcp_reads) = tokio::io::duplex(2 * MAX_LINE);
    let writer = Arc::new(StdinWriter::new(stdin));
    let transport = ChildTransport {
        pipes: AsyncRwTransport::new(rmcp_reads, tokio::io::sink()),
        lane: Arc::new(PipeLane::new(Arc::clone(&writer))),
        writer,
        stdout: Lines::new(stdout),
        passed_on: Some(passed_on),
        exit,
        _kill_on_drop: dropped.drop_guard(),
    };
    Ok((transport, report))
}

/// Puts the calling process (the child, between fork and exec) under Linux's `SCHED_BATCH`
/// policy, which its threads and its own children inherit, so that its wakeups do not preempt
/// the gateway. Each request the gateway writes to a child's stdin wakes the child; under the
/// normal policy that wakeup preempted the gateway mid-batch, and the two took turns a
/// request at a time. The child's share of the CPU (its nice value) is unchanged: it runs as
/// soon as the gateway waits, with every request the gateway had in hand (BENCHMARKS.md,
/// section 2d). A kernel that refuses the policy leaves the child under the normal one, which
/// costs speed and nothing else.
#[cfg(target_os = "linux")]
fn run_as_batch() -> std::io::Result<()> {
    let normal = libc::sched_param { sched_priority: 0 };
    // SAFETY: `normal` is a valid sched_param; pid 0 is the calling process.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &normal) };
    Ok(())
}

/// Waits for `child` to exit and publishes how (killing it first if its connection drops),
/// then, once the connection has dropped, kills whatever is left of its process group.
async fn watch_exit(
    mut child: tokio::process::Child,
    exit: watch::Sender<Option<ExitStatus>>,
    dropped: CancellationToken,
) {
    let group = child.id();
    let status = tokio::select! {
        status = child.wait() => status,
        () = dropped.cancelled() => {
            kill_group(group);
            let _ = child.start_kill();
            child.wait().await
        }
    };
    match status {
        Ok(status) => {
            exit.send_replace(Some(status));
        }
        Err(error) => tracing::warn!(%error, "cannot wait for an upstream's process"),
    }
    // The group outlives its leader while a member lives (a server a launcher started), and
    // its id is not reused meanwhile.
    dropped.cancelled().await;
    kill_group(group);
}

/// SIGKILL to every process of the group `leader` leads (none left is no error).
#[cfg(unix)]
fn kill_group(leader: Option<u32>) {
    if let Some(group) = leader.and_then(|pid| libc::pid_t::try_from(pid).ok()) {
        // SAFETY: killpg only sends a signal; the group is the child's own (process_group(0)).
        unsafe { libc::killpg(group, libc::SIGKILL) };
    }
}

#[cfg(not(unix))]
fn kill_group(_leader: Option<u32>) {}

impl ChildTransport {
    /// The connection's direct lane (which it answers while rmcp reads it).
    pub(crate) fn lane(&self) -> Arc<PipeLane> {
        Arc::clone(&self.lane)
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    /// Written at once, whole, through the writer the lane shares.
    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let written = serde_json::to_vec(&item)
            .map_err(std::io::Error::other)
            .and_then(|mut line| {
                line.push(b'\n');
                self.writer.write(&line)
            });
        std::future::ready(written)
    }

    /// The next message for rmcp: a plain `tools/call` reply decoded here, a reply to the lane
    /// handed to its call instead, anything else decoded by rmcp.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let Some(passed_on) = self.passed_on.as_mut() else {
                return self.pipes.receive().await;
            };
            // rmcp's reader first, so that a line passed on is read before the next comes.
            tokio::select! {
                biased;
                message = self.pipes.receive() => return message,
                read = self.stdout.next() => match read {
                    Read::Line => {
                        let line = self.stdout.line();
                        let text = line.strip_suffix(b"\n").unwrap_or(line);
                        let text = text.strip_suffix(b"\r").unwrap_or(text);
                        if let Some((id, result)) = plain_reply(text) {
                            let result = ServerResult::CallToolResult(result);
                            if lane::is_lane_id(&id) {
                                self.lane.answer(&id, Ok(result));
                                continue;
                            }
                            return Some(ServerJsonRpcMessage::response(result, id));
                        }
                        if let Some(id) = reply_id(text).filter(lane::is_lane_id) {
                            self.lane.answer(&id, lane_answer(text));
                            continue;
                        }
                        // Never waits: the pipe has room for this line and the one before.
                        if passed_on.write_all(line).await.is_err() {
                            self.passed_on = None;
                        }
                    }
                    Read::TooLong => tracing::error!(
                        max_line_length = MAX_LINE,
                        "Incoming message exceeded the maximum line length, discarding it"
                    ),
                    // The lane's calls fail when rmcp's service ends and drops this transport,
                    // as rmcp's own requests do: the link is marked down at that moment too.
                    Read::End => self.passed_on = None,
                },
            }
        }
    }

    /// Writes what waits, closes the child's stdin and gives it [`EXIT_ON_CLOSE`] to exit; the
    /// drop kills it if it has not.
    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let mut exit = self.exit.clone();
        let writer = Arc::clone(&self.writer);
        async move {
            writer.close().await;
            let _ = tokio::time::timeout(EXIT_ON_CLOSE, exit.wait_for(Option::is_some)).await;
            Ok(())
        }
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        self.lane.close();
    }
}

/// A reply to the lane that is not a plain one, decoded as rmcp decodes any message: a result
/// of another kind (input required, a task), or an error.
fn lane_answer(text: &[u8]) -> Answer {
    match serde_json::from_slice::<ServerJsonRpcMessage>(text) {
        Ok(ServerJsonRpcMessage::Response(response)) => Ok(response.result),
        Ok(ServerJsonRpcMessage::Error(error)) => Err(ServiceError::McpError(error.error)),
        Ok(_) => Err(ServiceError::UnexpectedResponse),
        Err(error) => {
            tracing::warn!(%error, "an upstream's reply to a call could not be read");
            Err(ServiceError::UnexpectedResponse)
        }
    }
}

impl ChildReport {
    fn push(&self, line: &str) {
        let mut lines = lock(&self.tail);
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line.chars().take(TAIL_LINE_CHARS).collect());
    }

    /// What to add to an error once the connection failed: how the process ended (its exit
    /// status, or the signal that ended it), and the last lines of its stderr. Waits a
    /// moment for a dying process's exit and last lines.
    pub(crate) async fn after_failure(&self) -> String {
        let (mut exit, mut closed) = (self.exit.clone(), self.stderr_closed.clone());
        let ended = async {
            let _ = exit.wait_for(Option::is_some).await;
            let _ = closed.wait_for(|closed| *closed).await;
        };
        let _ = tokio::time::timeout(EXIT_ON_FAILURE, ended).await;
        let mut why = match *self.exit.borrow() {
            Some(status) => format!("; the process ended ({status})"),
            None => "; the process is still running".to_owned(),
        };
        let lines = lock(&self.tail);
        if lines.is_empty() {
            why.push_str("; it wrote nothing to stderr");
        } else {
            why.push_str("; the last lines of its stderr:");
            for line in lines.iter() {
                why.push_str("\n    ");
                why.push_str(line);
            }
        }
        why
    }
}

/// The child's stderr, line by line, into the server log under the upstream's name: stripped
/// like anything else the upstream writes, each line cut at 1,000 characters, at most
/// [`STDERR_LINES_PER_SECOND`] a second (what is dropped is counted before the next line).
/// Every line is also kept in `report`, which is told when the child closes its stderr.
async fn log_stderr(
    upstream: &'static str,
    stderr: tokio::process::ChildStderr,
    report: ChildReport,
    closed: watch::Sender<bool>,
) {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let mut window = tokio::time::Instant::now();
    let (mut written, mut dropped) = (0u32, 0u64);
    while let Ok(Some(line)) = lines.next_line().await {
        if window.elapsed() >= Duration::from_secs(1) {
            window = tokio::time::Instant::now();
            written = 0;
        }
        let line = crate::guards::strip::sanitize(&line, true);
        report.push(&line);
        if written == STDERR_LINES_PER_SECOND {
            dropped += 1;
            continue;
        }
        written += 1;
        let line: String = line.chars().take(1000).collect();
        if dropped > 0 {
            tracing::warn!(
                upstream,
                dropped,
                "upstream stderr lines dropped (at most 20 a second)"
            );
            dropped = 0;
        }
        tracing::info!(upstream, stderr = %line, "upstream stderr");
    }
    closed.send_replace(true);
}
