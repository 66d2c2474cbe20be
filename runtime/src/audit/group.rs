//! Group commit of audit records: the records of calls that finish together reach the file in
//! one `write` (and one `fsync` under `every_record`), each call's reply still waiting until its
//! own line has been written.
//!
//! Appending to a file costs more in the kernel than the bytes do (each write that extends it
//! updates its inode): at 16 connections one `write` per record was about an eighth of the
//! server's time. So the first call to finish becomes the leader of a batch: it yields once to
//! the runtime, every call that finishes meanwhile adds its line and waits, and the leader
//! writes them all. Waiting only pays when calls do finish together, so a leader waits for
//! company only while the last batch had some, and otherwise every [`PROBE_EVERY`]th record: one
//! call at a time writes its own line at once, as it always did.
//!
//! A leader dropped before it wrote (its request abandoned) writes its batch as it drops, so a
//! line added to a batch is never lost with its leader.

use std::fs::File;
use std::io::{self, Write};
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::sync::lock;

/// Records written alone between two leaders that wait for company anyway, to notice calls
/// that have begun to finish together.
const PROBE_EVERY: u32 = 32;

/// The audit file and the batch being gathered for it.
#[derive(Debug)]
pub(crate) struct GroupCommit {
    /// The file; held across a batch's write, so batches are written in the order they close.
    file: Mutex<File>,
    gathering: Mutex<Gathering>,
    /// Told each time a batch has been written (or has failed).
    written: Notify,
    /// Whether every write is flushed to the disk before anyone hears of it.
    sync_each_write: bool,
}

#[derive(Debug, Default)]
struct Gathering {
    /// The lines of the open batch.
    lines: Vec<u8>,
    /// How many records `lines` holds.
    records: usize,
    /// The number of the open batch.
    open: u64,
    /// Batches written (or failed) so far: batches close and are written in order.
    written: u64,
    /// Whether the open batch has a leader (then a record joins it rather than writing).
    led: bool,
    /// Whether the last batch a leader wrote held more than one record.
    company: bool,
    /// Records written alone since a leader last waited for company.
    alone: u32,
    /// The last batch whose write failed, and why. Only the last is kept: the waiters of an
    /// older failed batch that look after a newer one failed read success, but each failure
    /// is logged by its leader with the number of records it held.
    failed: Option<(u64, io::ErrorKind, String)>,
    /// Batches written by leaders, and the records in them (the tests read how well records
    /// group).
    batches: u64,
    batched_records: u64,
}

/// What [`GroupCommit::commit`] does with one line.
enum Role {
    /// Write it now, alone.
    Alone,
    /// Lead batch `n`: wait for company, then write it.
    Lead(u64),
    /// Wait for batch `n`, which a leader will write.
    Join(u64),
}

impl GroupCommit {
    /// Batches for `file`, each write followed by `sync_data` when `sync_each_write`.
    pub(crate) fn new(file: File, sync_each_write: bool) -> Self {
        Self {
            file: Mutex::new(file),
            gathering: Mutex::new(Gathering::default()),
            written: Notify::new(),
            sync_each_write,
        }
    }

    /// Writes `bytes` now, as one write, outside any batch.
    pub(crate) fn write_now(&self, bytes: &[u8]) -> io::Result<()> {
        let mut file = lock(&self.file);
        self.write_to(&mut file, bytes)
    }

    /// Flushes everything written so far to the disk.
    pub(crate) fn sync(&self) -> io::Result<()> {
        lock(&self.file).sync_data()
    }

    /// Writes `line` (whole records, newline included) with the lines of the calls that finish
    /// with it, and resolves once it has been written.
    pub(crate) async fn commit(&self, line: &[u8]) -> io::Result<()> {
        let role = {
            let mut gathering = lock(&self.gathering);
            if gathering.led {
                gathering.lines.extend_from_slice(line);
                gathering.records += 1;
                Role::Join(gathering.open)
            } else if !gathering.company && gathering.alone < PROBE_EVERY {
                gathering.alone += 1;
                Role::Alone
            } else {
                gathering.led = true;
                gathering.alone = 0;
                gathering.lines.extend_from_slice(line);
                gathering.records = 1;
                Role::Lead(gathering.open)
            }
        };
        match role {
            Role::Alone => self.write_now(line),
            Role::Lead(batch) => {
                let leader = Leader { group: self };
                tokio::task::yield_now().await;
                drop(leader);
                self.outcome_of(batch)
                    .expect("a leader's batch is written when the leader drops")
            }
            Role::Join(batch) => loop {
                let notified = self.written.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(outcome) = self.outcome_of(batch) {
                    return outcome;
                }
                notified.await;
            },
        }
    }

    /// Closes the open batch and writes it, then tells those waiting for it.
    fn write_batch(&self) {
        let mut file = lock(&self.file);
        let (lines, batch, records) = {
            let mut gathering = lock(&self.gathering);
            gathering.led = false;
            gathering.company = gathering.records > 1;
            gathering.batches += 1;
            gathering.batched_records += gathering.records as u64;
            let records = std::mem::take(&mut gathering.records);
            let batch = gathering.open;
            gathering.open += 1;
            (std::mem::take(&mut gathering.lines), batch, records)
        };
        let result = self.write_to(&mut file, &lines);
        if let Err(error) = &result {
            tracing::error!(%error, records = records, "audit records lost: a batch's write failed");
        }
        // Still under the file's lock, so `written` only ever grows.
        let mut gathering = lock(&self.gathering);
        gathering.written = batch + 1;
        if let Err(error) = result {
            gathering.failed = Some((batch, error.kind(), error.to_string()));
        }
        if gathering.lines.capacity() == 0 {
            // The next batch reuses this one's buffer.
            let mut lines = lines;
            lines.clear();
            gathering.lines = lines;
        }
        drop(gathering);
        drop(file);
        self.written.notify_waiters();
    }

    /// Whether batch `batch` has been written: `None` while it is open or being written.
    fn outcome_of(&self, batch: u64) -> Option<io::Result<()>> {
        let gathering = lock(&self.gathering);
        if batch >= gathering.written {
            return None;
        }
        Some(match &gathering.failed {
            Some((failed, kind, message)) if *failed == batch => {
                Err(io::Error::new(*kind, message.clone()))
            }
            _ => Ok(()),
        })
    }

    fn write_to(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        file.write_all(bytes)?;
        if self.sync_each_write {
            file.sync_data()?;
        }
        Ok(())
    }

    /// Batches written by leaders so far, and the records they held.
    #[cfg(test)]
    pub(crate) fn batches(&self) -> (u64, u64) {
        let gathering = lock(&self.gathering);
        (gathering.batches, gathering.batched_records)
    }
}

/// A batch's leader while it waits for company: it writes the batch when it drops, after the
/// wait or in the middle of it (its request abandoned), so the batch is written either way.
struct Leader<'a> {
    group: &'a GroupCommit,
}

impl Drop for Leader<'_> {
    fn drop(&mut self) {
        self.group.write_batch();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn group(dir: &tempfile::TempDir) -> (Arc<GroupCommit>, std::path::PathBuf) {
        let path = dir.path().join("audit.jsonl");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap();
        (Arc::new(GroupCommit::new(file, false)), path)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn calls_that_finish_together_share_a_write_and_each_line_is_written_before_it_resolves()
    {
        let dir = tempfile::tempdir().unwrap();
        let (group, path) = group(&dir);
        // One call at a time writes alone until a probe finds no company.
        for n in 0..PROBE_EVERY {
            group
                .commit(format!("alone {n}\n").as_bytes())
                .await
                .unwrap();
        }
        assert_eq!(
            group.batches(),
            (0, 0),
            "no batch while calls come one at a time"
        );
        // Then 64 calls finish in the same turn of the runtime: the probe's leader waits
        // for them all, and once one batch had company the next leader waits too.
        let calls: Vec<_> = (0..64)
            .map(|n| {
                let group = Arc::clone(&group);
                let path = path.clone();
                tokio::spawn(async move {
                    let line = format!("together {n}\n");
                    group.commit(line.as_bytes()).await.unwrap();
                    let written = std::fs::read_to_string(&path).unwrap();
                    assert!(
                        written.contains(&line),
                        "{line:?} resolved before it was written"
                    );
                })
            })
            .collect();
        for call in calls {
            call.await.unwrap();
        }
        let (batches, records) = group.batches();
        assert_eq!(
            records, 64,
            "every record after the probe went through a batch"
        );
        assert!(
            batches < 64 / 2,
            "{batches} batches for 64 records finishing together"
        );
        let written = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), usize::try_from(PROBE_EVERY).unwrap() + 64);
        lines.sort_unstable();
        lines.dedup();
        assert_eq!(
            lines.len(),
            usize::try_from(PROBE_EVERY).unwrap() + 64,
            "no line twice"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_leader_abandoned_while_it_waits_still_writes_its_batch() {
        let dir = tempfile::tempdir().unwrap();
        let (group, path) = group(&dir);
        group.gathering.lock().unwrap().company = true;
        let leader = {
            let group = Arc::clone(&group);
            tokio::spawn(async move { group.commit(b"leader\n").await })
        };
        let joiner = {
            let group = Arc::clone(&group);
            tokio::spawn(async move { group.commit(b"joiner\n").await })
        };
        // The leader has yielded and the joiner joined its batch; then the leader's request
        // goes away.
        tokio::task::yield_now().await;
        leader.abort();
        assert!(leader.await.unwrap_err().is_cancelled());
        joiner.await.unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "leader\njoiner\n");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_failed_write_fails_every_record_of_its_batch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read-only");
        std::fs::write(&path, "").unwrap();
        // Opened for reading only: every write fails (EBADF), as a full disk would.
        let group = Arc::new(GroupCommit::new(File::open(&path).unwrap(), false));
        group.gathering.lock().unwrap().company = true;
        let calls: Vec<_> = (0..3)
            .map(|n| {
                let group = Arc::clone(&group);
                tokio::spawn(async move { group.commit(format!("{n}\n").as_bytes()).await })
            })
            .collect();
        for call in calls {
            assert!(call.await.unwrap().is_err());
        }
        assert_eq!(group.batches(), (1, 3));
        assert!(group.write_now(b"alone\n").is_err());
    }
}
