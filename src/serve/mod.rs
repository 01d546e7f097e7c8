//! `glossary serve`: build into memory, serve it over HTTP on localhost, rebuild when a
//! source changes and reload the pages open in a browser.
//!
//! - [`rebuild`]: the one place a rebuild happens, timed; a failed build keeps the last good
//!   site and carries the error to show;
//! - [`error_page`]: the page shown in place of every page while the site does not build;
//! - [`watch`]: file-system events on the project's sources, a save handed over as soon
//!   as it is complete; deferred work runs between saves;
//! - [`livereload`]: the generation counter pages long-poll, and the script injected into
//!   served HTML (never into built files);
//! - [`server`]: HTTP: path resolution that refuses anything outside the site, responses;
//! - [`limits`]: the bounds on what one client can hold (header size, time limits, the
//!   number of connections).
//!
//! The HTTP side runs on a tokio runtime made here and used by nothing else; the build,
//! the watcher and the rest of the program stay synchronous.

pub mod error_page;
pub mod limits;
pub mod livereload;
pub mod rebuild;
pub mod server;
pub mod watch;

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Error, Result};

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub root: PathBuf,
    pub bind: IpAddr,
    /// 0 asks the system for a free port; the chosen one is printed.
    pub port: u16,
    pub drafts: bool,
    /// The server's bounds: `Limits::default()` but in tests.
    pub limits: limits::Limits,
}

/// Build, serve, watch; returns only if the server cannot start or the watcher fails.
pub fn serve(opts: &ServeOptions) -> Result<()> {
    // Canonical, so the watcher's (absolute) paths print relative to it.
    let root = opts
        .root
        .canonicalize()
        .map_err(|e| Error::io(&opts.root, e))?;
    let cannot_listen = |e: &dyn std::fmt::Display| {
        Error::Other(format!("cannot listen on {}:{}: {e}", opts.bind, opts.port))
    };
    // Bound before the first build: the pages are rendered for the address (and the port
    // the system chose) they are served at. Connections made meanwhile wait in the backlog.
    let listener =
        std::net::TcpListener::bind((opts.bind, opts.port)).map_err(|e| cannot_listen(&e))?;
    let addr = listener.local_addr().map_err(|e| cannot_listen(&e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| cannot_listen(&e))?;
    // Watch before building: whatever is saved during the first build is rebuilt after it.
    let watch = watch::SourceWatch::start(&root)?;
    let mut rebuilder = rebuild::Rebuilder::new(&root, opts.drafts, own_url(addr));
    let state = Arc::new(livereload::SiteState::new(rebuilder.rebuild(&[])));
    raise_open_files_limit(opts.limits.max_connections);
    // Two workers: serving files from memory is cheap, and the build that runs beside it
    // wants the cores.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("serve-http")
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::Other(format!("cannot start the HTTP server: {e}")))?;
    let listener = {
        let _entered = runtime.enter();
        tokio::net::TcpListener::from_std(listener).map_err(|e| cannot_listen(&e))?
    };
    println!(
        "serving {} at http://{addr}/{} (Ctrl-C to stop)",
        opts.root.display(),
        if opts.drafts { " with drafts" } else { "" }
    );
    runtime.spawn(server::run(listener, state.clone(), opts.limits));
    let rebuilder = std::cell::RefCell::new(rebuilder);
    watch.run(
        |changed| state.publish(rebuilder.borrow_mut().rebuild(changed)),
        |waiting| match rebuilder.borrow_mut().catch_up(waiting) {
            Some(outcome) => {
                if !outcome.changes_nothing() {
                    state.publish(outcome);
                }
                true
            }
            None => false,
        },
    )
}

/// The site's address as a reader on this machine reaches it: a server listening on every
/// interface (`--bind 0.0.0.0`) is reached at loopback.
fn own_url(addr: std::net::SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    // SocketAddr's Display brackets an IPv6 address.
    format!("http://{}/", std::net::SocketAddr::new(ip, addr.port()))
}

/// Each connection is a file descriptor, and the usual soft limit (1024) is below what
/// `max_connections` allows once the process's own files are counted: raise the soft limit
/// towards the hard one, so the connection bound, not EMFILE, is what a flood meets.
fn raise_open_files_limit(max_connections: usize) {
    let want = max_connections as libc::rlim_t + 256;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: a valid resource and a pointer to an rlimit to fill / read.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 || limit.rlim_cur >= want {
            return;
        }
        limit.rlim_cur = want.min(limit.rlim_max);
        // Only a lower bound on connections if it fails, never wrong.
        let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

#[cfg(test)]
mod tests {
    use super::own_url;

    #[test]
    fn the_served_address_is_one_a_reader_here_can_open() {
        let url = |s: &str| own_url(s.parse().unwrap());
        assert_eq!(url("127.0.0.1:8000"), "http://127.0.0.1:8000/");
        assert_eq!(url("0.0.0.0:8000"), "http://127.0.0.1:8000/");
        assert_eq!(url("[::]:8000"), "http://[::1]:8000/");
        assert_eq!(url("[::1]:9"), "http://[::1]:9/");
        assert_eq!(url("192.168.1.5:80"), "http://192.168.1.5:80/");
    }
}
