//! Loopback ports that stay the test's own: a port that refuses connections and that nobody
//! else can take while it is held, and a TCP relay whose address outlives the server behind
//! it and that can hold traffic in flight until the test lets it go.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use socket2::{Domain, Socket, Type};

/// A loopback port that refuses connections for as long as this lives: a socket bound to it
/// without `SO_REUSEADDR` and never listening, so connecting is refused and no other socket
/// (a parallel test's server included) can bind it. A port merely found free and released
/// can be taken by anyone before the test connects to it.
pub struct ClosedPort {
    _socket: Socket,
    /// The port.
    pub port: u16,
}

impl ClosedPort {
    /// Reserves a closed port on 127.0.0.1.
    pub fn reserve() -> Self {
        let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a TCP socket");
        let any_port: SocketAddr = "127.0.0.1:0".parse().expect("an address");
        socket.bind(&any_port.into()).expect("a loopback port");
        let port = socket
            .local_addr()
            .ok()
            .and_then(|address| address.as_socket())
            .expect("a bound address")
            .port();
        Self {
            _socket: socket,
            port,
        }
    }
}

#[derive(Default)]
struct Hold {
    holding: bool,
    /// Reads that may still pass while holding.
    passing: usize,
    held: usize,
}

struct Shared {
    upstream: Mutex<Option<SocketAddr>>,
    hold: Mutex<Hold>,
    changed: Condvar,
    streams: Mutex<Vec<TcpStream>>,
    closed: AtomicBool,
}

/// A TCP relay on a loopback port of its own (bound once, never released while it lives) to
/// an upstream address that can change, e.g. a Redis restarted on a fresh port. A connection
/// that cannot reach the upstream is closed as soon as it is accepted. While held, what
/// clients send waits in the relay, so their requests are provably in flight; what the
/// upstream sends, and its closing, still pass.
pub struct Relay {
    port: u16,
    shared: Arc<Shared>,
}

impl Relay {
    /// Starts relaying to `upstream`.
    pub fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("a bound address").port();
        let shared = Arc::new(Shared {
            upstream: Mutex::new(Some(upstream)),
            hold: Mutex::new(Hold::default()),
            changed: Condvar::new(),
            streams: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        });
        let accepting = Arc::clone(&shared);
        std::thread::spawn(move || accept(&listener, &accepting));
        Self { port, shared }
    }

    /// The port clients connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Relays new connections to `upstream` from now on.
    pub fn set_upstream(&self, upstream: SocketAddr) {
        *self.shared.upstream.lock().unwrap() = Some(upstream);
    }

    /// Closes new connections from now on, as an upstream that is down would (its old port
    /// may be anyone's by now), until [`Relay::set_upstream`].
    pub fn cut(&self) {
        *self.shared.upstream.lock().unwrap() = None;
    }

    /// From now on, what clients send waits in the relay until [`Relay::release`].
    pub fn hold(&self) {
        self.hold_after(0);
    }

    /// [`Relay::hold`], once the next `passing` reads from clients have gone through.
    pub fn hold_after(&self, passing: usize) {
        let mut hold = self.shared.hold.lock().unwrap();
        hold.holding = true;
        hold.passing = passing;
    }

    /// Waits (at most `within`) until at least `chunks` reads from clients are held; whether
    /// they are.
    pub fn wait_held(&self, chunks: usize, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        let mut hold = self.shared.hold.lock().unwrap();
        while hold.held < chunks {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            hold = self
                .shared
                .changed
                .wait_timeout(hold, deadline - now)
                .unwrap()
                .0;
        }
        true
    }

    /// Lets what is held go on to the upstream (or fail, if the upstream is gone).
    pub fn release(&self) {
        self.shared.hold.lock().unwrap().holding = false;
        self.shared.changed.notify_all();
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        self.release();
        for stream in self.shared.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
        // Wake the accepting thread, which then sees `closed`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn accept(listener: &TcpListener, shared: &Arc<Shared>) {
    for client in listener.incoming() {
        if shared.closed.load(Ordering::SeqCst) {
            return;
        }
        let Ok(client) = client else {
            continue;
        };
        let upstream = *shared.upstream.lock().unwrap();
        let Some(Ok(server)) =
            upstream.map(|address| TcpStream::connect_timeout(&address, Duration::from_secs(1)))
        else {
            // Closed at once, as a refused connection would be.
            continue;
        };
        let (Ok(client_copy), Ok(server_copy)) = (client.try_clone(), server.try_clone()) else {
            continue;
        };
        {
            let mut streams = shared.streams.lock().unwrap();
            for stream in [&client, &server] {
                if let Ok(copy) = stream.try_clone() {
                    streams.push(copy);
                }
            }
        }
        let holding = Arc::clone(shared);
        std::thread::spawn(move || pump(client, server, Some(&*holding)));
        std::thread::spawn(move || pump(server_copy, client_copy, None));
    }
}

/// Copies `from` to `to` until either ends, then closes both; reads wait while `hold` holds.
fn pump(mut from: TcpStream, mut to: TcpStream, hold: Option<&Shared>) {
    let mut buffer = [0u8; 16 * 1024];
    loop {
        let read = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        if let Some(shared) = hold {
            let mut state = shared.hold.lock().unwrap();
            if state.holding && state.passing > 0 {
                state.passing -= 1;
            } else if state.holding {
                state.held += 1;
                shared.changed.notify_all();
                while state.holding {
                    state = shared.changed.wait(state).unwrap();
                }
                state.held -= 1;
            }
        }
        if to.write_all(&buffer[..read]).is_err() {
            break;
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}
