//! A child process's stderr, read by a thread of its own as it comes: kept whole for failure
//! messages, and watched for lines, so a test waits on what the process says it did instead
//! of sleeping.

use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Default)]
struct State {
    text: String,
    ended: bool,
}

/// What a child wrote to stderr so far; cloning shares it.
#[derive(Clone, Default)]
pub struct ChildLog(Arc<(Mutex<State>, Condvar)>);

impl ChildLog {
    /// Reads `stream` (a child's stderr) to its end on a thread of its own.
    pub fn capture(stream: impl Read + Send + 'static) -> Self {
        let log = Self::default();
        let writer = log.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stream);
            let mut line = Vec::new();
            loop {
                line.clear();
                let read = reader.read_until(b'\n', &mut line);
                let (state, grew) = &*writer.0;
                let mut state = state.lock().unwrap();
                match read {
                    Ok(0) | Err(_) => {
                        state.ended = true;
                        grew.notify_all();
                        return;
                    }
                    Ok(_) => {
                        state.text.push_str(&String::from_utf8_lossy(&line));
                        grew.notify_all();
                    }
                }
            }
        });
        log
    }

    /// Everything written so far.
    pub fn text(&self) -> String {
        self.0.0.lock().unwrap().text.clone()
    }

    /// Whether the stream has ended (the child closed its stderr, as it does when it exits).
    pub fn ended(&self) -> bool {
        self.0.0.lock().unwrap().ended
    }

    /// The first complete line for which `matches` holds, waiting for it at most `within`;
    /// `None` when the stream ends (the child exited) or the time is up without one.
    pub fn wait_for_line(
        &self,
        within: Duration,
        matches: impl Fn(&str) -> bool,
    ) -> Option<String> {
        let deadline = Instant::now() + within;
        let (state, grew) = &*self.0;
        let mut state = state.lock().unwrap();
        let mut scanned = 0;
        loop {
            let complete = state.text[scanned..]
                .rfind('\n')
                .map_or(scanned, |end| scanned + end + 1);
            if let Some(line) = state.text[scanned..complete]
                .lines()
                .find(|line| matches(line))
            {
                return Some(line.to_owned());
            }
            scanned = complete;
            let now = Instant::now();
            if state.ended || now >= deadline {
                return None;
            }
            state = grew.wait_timeout(state, deadline - now).unwrap().0;
        }
    }
}
