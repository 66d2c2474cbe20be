//! The process's limit on open files, which bounds connections before `max_connections`
//! does: each connection is a descriptor, and past the limit `accept` fails, so the kernel
//! resets the connections waiting in the backlog, `/health`'s included, instead of the edge
//! admitting or refusing them. Many systems start a process with a soft limit of 1024 and a
//! far higher hard one; `serve` raises the soft limit as far as the hard one allows (as Go's
//! runtime does for every program) and warns when even that is below what the manifest
//! asks for.

/// Descriptors the process needs besides its connections: the listener, the audit file,
/// stdio, upstreams, the runtime's own.
const DESCRIPTORS_BESIDES_CONNECTIONS: u64 = 64;

/// Raises the soft limit on open files to the hard one, warning when that cannot hold
/// `max_connections` connections.
#[cfg(unix)]
pub(crate) fn allow_open_files(max_connections: usize) {
    let needed = u64::try_from(max_connections)
        .unwrap_or(u64::MAX)
        .saturating_add(DESCRIPTORS_BESIDES_CONNECTIONS);
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        tracing::warn!(error = %std::io::Error::last_os_error(), "cannot read the limit on open files");
        return;
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit only reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            tracing::debug!(
                from = limit.rlim_cur,
                to = limit.rlim_max,
                "raised the soft limit on open files"
            );
            limit = raised;
        } else {
            tracing::warn!(error = %std::io::Error::last_os_error(), "cannot raise the limit on open files");
        }
    }
    if limit.rlim_cur < needed {
        tracing::warn!(
            open_files = limit.rlim_cur,
            max_connections,
            "the process may open fewer files than [transport] max_connections needs: past {} connections, new ones are reset by the kernel, not answered; raise the hard limit (ulimit -Hn, or the container's nofile) or lower max_connections",
            limit
                .rlim_cur
                .saturating_sub(DESCRIPTORS_BESIDES_CONNECTIONS),
        );
    }
}

/// Elsewhere the limit is the platform's.
#[cfg(not(unix))]
pub(crate) fn allow_open_files(_max_connections: usize) {}
