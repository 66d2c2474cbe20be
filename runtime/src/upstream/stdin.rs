//! A stdio upstream's stdin, shared by the direct lane (crate::upstream::lane) and rmcp's
//! sends: each message is written whole, at once when the pipe has room, otherwise queued
//! behind what waits and written by one flushing task. A write never waits, so a caller
//! dropped halfway (a call abandoned) cannot leave half a line, and lines never interleave.
//!
//! Calls that are sent together are written together: a child reads each write of its stdin
//! apart (an rmcp server through tokio's blocking pool, a thread hand-off per read), so at
//! sixteen connections one write per call cost the child about as much as the call itself.
//! While the last batch had company, a message opens a batch instead of being written: the
//! flushing task lets every task the runtime has ready run first (each adds its message),
//! then writes them all. One message at a time is written at once, as ever, and every
//! [`PROBE_EVERY`]th of them opens a batch anyway, to notice when calls begin to overlap (the
//! audit's group commit does the same, crate::audit).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use tokio::io::AsyncWrite;
use tokio::process::ChildStdin;
use tokio::sync::Notify;

use crate::sync::lock;

/// Bytes waiting for a child that does not read its stdin, at most: past them a message is
/// refused rather than queued without bound.
const MAX_BACKLOG: usize = 16 << 20;

/// Messages written alone between two that open a batch anyway.
const PROBE_EVERY: u32 = 32;

/// The child's stdin and what waits to be written to it.
pub(crate) struct StdinWriter {
    state: Mutex<State>,
    /// Told when the flushing task has written everything that waited.
    flushed: Notify,
}

struct State {
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    backlog: Vec<u8>,
    /// Whether the flushing task runs (then every write queues behind it).
    flushing: bool,
    /// Messages queued since the flushing task started.
    queued: u32,
    /// Whether the last batch held more than one message.
    company: bool,
    /// Messages written alone since a batch was last opened.
    alone: u32,
    /// Writes to the pipe so far (the tests read how well messages group).
    writes: u64,
    /// Why the pipe cannot be written any more.
    failed: Option<(io::ErrorKind, String)>,
}

impl StdinWriter {
    /// The writer of `stdin`.
    pub(crate) fn new(stdin: ChildStdin) -> Self {
        Self {
            state: Mutex::new(State {
                stdin: Some(stdin),
                backlog: Vec::new(),
                flushing: false,
                queued: 0,
                company: false,
                alone: 0,
                writes: 0,
                failed: None,
            }),
            flushed: Notify::new(),
        }
    }

    /// Writes `line` (one whole message): queued behind what waits, or opening a batch
    /// while messages come together, otherwise at once (what the pipe does not take is queued
    /// for the flushing task); refused once the pipe has failed or closed, or when
    /// [`MAX_BACKLOG`] bytes already wait.
    pub(crate) fn write(self: &Arc<Self>, line: &[u8]) -> io::Result<()> {
        let mut state = lock(&self.state);
        if let Some((kind, why)) = &state.failed {
            return Err(io::Error::new(*kind, why.clone()));
        }
        if state.stdin.is_none() {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "stdin is closed"));
        }
        if state.flushing {
            if state.backlog.len().saturating_add(line.len()) > MAX_BACKLOG {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!("the upstream has not read the last {MAX_BACKLOG} bytes written to it"),
                ));
            }
            state.backlog.extend_from_slice(line);
            state.queued += 1;
            return Ok(());
        }
        if state.company || state.alone == PROBE_EVERY {
            state.alone = 0;
            state.backlog.extend_from_slice(line);
            state.queued = 1;
            state.flushing = true;
            drop(state);
            let writer = Arc::clone(self);
            tokio::spawn(async move {
                // Every task the runtime has ready runs before this one goes on.
                tokio::task::yield_now().await;
                writer.flush().await;
            });
            return Ok(());
        }
        state.alone += 1;
        let Some(stdin) = state.stdin.as_mut() else {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "stdin is closed"));
        };
        // Polled without a task to wake: a full pipe hands the rest to the flushing task.
        let mut cx = Context::from_waker(Waker::noop());
        let (mut written, mut writes) = (0, 0);
        while written < line.len() {
            match Pin::new(&mut *stdin).poll_write(&mut cx, &line[written..]) {
                Poll::Ready(Ok(0)) => {
                    state.fail(io::ErrorKind::WriteZero, "the pipe took nothing".into());
                    return Err(io::ErrorKind::WriteZero.into());
                }
                Poll::Ready(Ok(count)) => {
                    written += count;
                    writes += 1;
                }
                Poll::Ready(Err(error)) => {
                    state.fail(error.kind(), error.to_string());
                    return Err(error);
                }
                Poll::Pending => break,
            }
        }
        state.writes += writes;
        if written < line.len() {
            state.backlog.extend_from_slice(&line[written..]);
            state.queued = 1;
            state.flushing = true;
            let writer = Arc::clone(self);
            tokio::spawn(async move { writer.flush().await });
        }
        Ok(())
    }

    /// The flushing task: writes the backlog as the pipe takes it, then tells the waiters.
    async fn flush(&self) {
        std::future::poll_fn(|cx| lock(&self.state).poll_backlog(cx)).await;
        self.flushed.notify_waiters();
    }

    /// Waits for what waits to be written, then closes the child's stdin (a server ends on
    /// EOF); later writes are refused.
    pub(crate) async fn close(&self) {
        loop {
            let flushed = self.flushed.notified();
            tokio::pin!(flushed);
            flushed.as_mut().enable();
            {
                let mut state = lock(&self.state);
                if !state.flushing {
                    state.stdin = None;
                    return;
                }
            }
            flushed.await;
        }
    }
}

impl State {
    /// Writes what it can of the backlog with `cx`'s waker: `Ready` once it is all written
    /// (or the pipe failed), `Pending` while the pipe is full.
    fn poll_backlog(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while !self.backlog.is_empty() {
            let Some(stdin) = self.stdin.as_mut() else {
                self.fail(io::ErrorKind::BrokenPipe, "stdin is closed".into());
                break;
            };
            match Pin::new(stdin).poll_write(cx, &self.backlog) {
                Poll::Ready(Ok(0)) => {
                    self.fail(io::ErrorKind::WriteZero, "the pipe took nothing".into())
                }
                Poll::Ready(Ok(written)) => {
                    self.backlog.drain(..written);
                    self.writes += 1;
                }
                Poll::Ready(Err(error)) => self.fail(error.kind(), error.to_string()),
                Poll::Pending => return Poll::Pending,
            }
        }
        self.flushing = false;
        self.company = self.queued > 1;
        Poll::Ready(())
    }

    /// The pipe failed: what waits is dropped (its calls fail when the connection ends).
    fn fail(&mut self, kind: io::ErrorKind, why: String) {
        tracing::warn!(error = why, "cannot write to the upstream's stdin");
        self.failed = Some((kind, why));
        self.backlog.clear();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    use tokio::process::{Child, ChildStdout, Command};

    use super::*;

    /// `cat`: what is written to its stdin comes back on its stdout; it stops reading while
    /// its stdout is not read.
    pub(crate) fn cat() -> (Child, Arc<StdinWriter>, ChildStdout) {
        let mut child = Command::new("cat")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("cat starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        (child, Arc::new(StdinWriter::new(stdin)), stdout)
    }

    #[tokio::test]
    async fn lines_written_past_a_full_pipe_arrive_whole_and_in_order() {
        let (_child, writer, mut stdout) = cat();
        // Far more than the two pipes hold while nobody reads cat's stdout.
        let lines: Vec<String> = (0..2000)
            .map(|n| format!("{n:04}:{}\n", "x".repeat(1000)))
            .collect();
        for line in &lines {
            writer.write(line.as_bytes()).unwrap();
        }
        assert!(
            lock(&writer.state).flushing,
            "the pipe filled, so the rest waits for the flushing task"
        );
        let expected: String = lines.concat();
        let mut read = Vec::new();
        let mut buffer = vec![0; 1 << 16];
        while read.len() < expected.len() {
            let count = stdout.read(&mut buffer).await.unwrap();
            assert!(count > 0, "cat ended early");
            read.extend_from_slice(&buffer[..count]);
        }
        assert_eq!(String::from_utf8(read).unwrap(), expected);
        writer.close().await;
        assert!(lock(&writer.state).backlog.is_empty());
    }

    #[tokio::test]
    async fn messages_sent_together_are_written_together_and_one_alone_at_once() {
        let (_child, writer, stdout) = cat();
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        // One at a time: each written at once, and every 33rd opening a batch of its own.
        for n in 0..=PROBE_EVERY {
            writer.write(format!("alone {n}\n").as_bytes()).unwrap();
            assert_eq!(
                lines.next_line().await.unwrap().unwrap(),
                format!("alone {n}")
            );
        }
        assert_eq!(lock(&writer.state).writes, u64::from(PROBE_EVERY) + 1);
        // Ten tasks made ready together: the batch the first opens holds the other nine.
        lock(&writer.state).company = true;
        let before = lock(&writer.state).writes;
        let sending: Vec<_> = (0..10)
            .map(|n| {
                let writer = Arc::clone(&writer);
                tokio::spawn(async move { writer.write(format!("together {n}\n").as_bytes()) })
            })
            .collect();
        for sent in sending {
            sent.await.unwrap().unwrap();
        }
        for n in 0..10 {
            assert_eq!(
                lines.next_line().await.unwrap().unwrap(),
                format!("together {n}")
            );
        }
        assert_eq!(lock(&writer.state).writes, before + 1);
        assert!(lock(&writer.state).company);
        // The next message opens a batch too, which, holding only it, ends the company: the
        // one after is written at once, before `write` returns.
        writer.write(b"next\n").unwrap();
        assert_eq!(lines.next_line().await.unwrap().unwrap(), "next");
        assert!(!lock(&writer.state).company);
        writer.write(b"last\n").unwrap();
        assert_eq!(lock(&writer.state).writes, before + 3);
        assert!(!lock(&writer.state).flushing);
    }

    #[tokio::test]
    async fn a_child_that_stops_reading_cannot_grow_the_backlog_without_bound() {
        let (_child, writer, _stdout) = cat();
        let line = vec![b'x'; 1 << 20];
        let refused = (0..(MAX_BACKLOG >> 20) + 4)
            .map(|_| writer.write(&line))
            .find_map(Result::err)
            .expect("a write past the bound is refused");
        assert_eq!(refused.kind(), io::ErrorKind::WouldBlock);
        assert!(lock(&writer.state).backlog.len() <= MAX_BACKLOG);
    }

    #[tokio::test]
    async fn closing_writes_what_waits_then_ends_the_childs_input() {
        let (mut child, writer, mut stdout) = cat();
        let reading = tokio::spawn(async move {
            let mut all = Vec::new();
            stdout.read_to_end(&mut all).await.unwrap();
            all.len()
        });
        let line = vec![b'y'; 300_000];
        writer.write(&line).unwrap();
        writer.close().await;
        assert_eq!(reading.await.unwrap(), line.len());
        assert!(child.wait().await.unwrap().success());
        assert!(writer.write(b"late\n").is_err());
    }
}
