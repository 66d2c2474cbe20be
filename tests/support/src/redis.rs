//! A `redis-server` of a test's own, for the tests of limits and keys shared in Redis.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long a Redis may take to start.
const REDIS_START_TIMEOUT: Duration = Duration::from_secs(20);

/// A `redis-server` on a loopback port of its own, without persistence, killed when dropped.
/// Debian's `redis-server` package provides it; `scripts/test.sh` installs it.
///
/// Redis cannot bind port 0 and report it, so a port is found free, and the server started
/// there is checked to be this one (its `INFO` names its process id): when a parallel test
/// took the port first, Redis exits or another server answers, and it starts again on
/// another port.
pub struct RedisServer {
    child: Option<std::process::Child>,
    /// The port it listens on (a fresh one after each [`RedisServer::start`]).
    pub port: u16,
}

impl RedisServer {
    /// Starts Redis and waits until it answers.
    pub fn start_new() -> Self {
        let mut redis = Self {
            child: None,
            port: 0,
        };
        redis.start();
        redis
    }

    /// `redis://127.0.0.1:<port>/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// `127.0.0.1:<port>`.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// Starts (again) with an empty dataset, on a fresh port: the old one may have been
    /// taken by a parallel test while this one was down. Clients that must keep one address
    /// across a restart connect through a [`Relay`](crate::Relay).
    pub fn start(&mut self) {
        assert!(self.child.is_none(), "Redis is already running");
        for _ in 0..10 {
            let port = free_port();
            if let Some(child) = start_redis_on(port) {
                self.child = Some(child);
                self.port = port;
                return;
            }
        }
        panic!("redis-server found no free port in ten tries");
    }

    /// What `redis-cli` prints for `args` against this Redis, trimmed.
    pub fn cli(&self, args: &[&str]) -> String {
        let output = std::process::Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli runs (Debian's redis-tools, installed with redis-server)");
        String::from_utf8(output.stdout)
            .expect("redis-cli prints UTF-8")
            .trim()
            .to_owned()
    }

    /// Kills Redis (as a crash would) and waits for the process to exit.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A `redis-server` of this process's own on `port`, or `None` when the port is taken (Redis
/// exits, or another server answers there).
fn start_redis_on(port: u16) -> Option<std::process::Child> {
    let mut child = std::process::Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .args(["--save", "", "--appendonly", "no", "--protected-mode", "yes"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| {
            panic!("cannot start redis-server ({error}): install it (apt-get install -y redis-server) or run scripts/test.sh, which does")
        });
    let deadline = Instant::now() + REDIS_START_TIMEOUT;
    let ours = loop {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break false; // it could not bind: the port was taken
        }
        match redis_process_id(port) {
            Some(pid) => break pid == child.id(),
            None if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            None => panic!("redis-server never answered on port {port}"),
        }
    };
    if ours {
        return Some(child);
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// The process id the Redis on `port` reports in `INFO server`, if one answers.
fn redis_process_id(port: u16) -> Option<u32> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    stream.write_all(b"INFO server\r\n").ok()?;
    // A bulk string: `$<length>\r\n<length bytes>\r\n`.
    let mut reply = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let read = stream.read(&mut chunk).ok()?;
        if read == 0 {
            return None;
        }
        reply.extend_from_slice(&chunk[..read]);
        let text = String::from_utf8_lossy(&reply);
        let Some((header, body)) = text.split_once("\r\n") else {
            continue;
        };
        let length: usize = header.strip_prefix('$')?.parse().ok()?;
        if body.len() >= length {
            return body
                .lines()
                .find_map(|line| line.strip_prefix("process_id:"))
                .and_then(|pid| pid.trim().parse().ok());
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A loopback port nothing listens on right now; anyone may take it next, so only
/// [`RedisServer`], which checks whose server answers there, uses it.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_is_not_started_on_a_port_another_redis_holds() {
        let first = RedisServer::start_new();
        assert_eq!(
            redis_process_id(first.port),
            first.child.as_ref().map(|c| c.id())
        );
        // The port is taken: the second Redis exits, or the first answers; neither is ours.
        assert!(start_redis_on(first.port).is_none());
        // Restarted, it comes back on a port of its own, answering as itself.
        let mut second = RedisServer::start_new();
        assert_ne!(second.port, first.port);
        second.stop();
        second.start();
        assert_eq!(
            redis_process_id(second.port),
            second.child.as_ref().map(|child| child.id())
        );
    }
}
