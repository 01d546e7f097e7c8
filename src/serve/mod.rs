//! `glossary serve`: build into memory, serve it over HTTP on localhost, rebuild when a
//! source changes and reload the pages open in a browser.
//!
//! - [`rebuild`]: the one place a rebuild happens, timed; a failed build keeps the last good
//!   site and carries the error to show;
//! - [`watch`]: file-system events on the project's sources, a save handed over as soon
//!   as it is complete; deferred work runs between saves;
//! - [`livereload`]: the generation counter pages long-poll, and the script injected into
//!   served HTML (never into built files);
//! - [`server`]: HTTP: path resolution that refuses anything outside the site, responses.

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
}

/// Build, serve, watch; returns only if the server cannot start or the watcher fails.
pub fn serve(opts: &ServeOptions) -> Result<()> {
    // Canonical, so the watcher's (absolute) paths print relative to it.
    let root = opts
        .root
        .canonicalize()
        .map_err(|e| Error::io(&opts.root, e))?;
    // Watch first: whatever is saved during the first build is rebuilt right after it.
    let watch = watch::SourceWatch::start(&root)?;
    let mut rebuilder = rebuild::Rebuilder::new(&root, opts.drafts);
    let state = Arc::new(livereload::SiteState::new(rebuilder.rebuild(&[])));
    let cannot_listen = |e: &dyn std::fmt::Display| {
        Error::Other(format!("cannot listen on {}:{}: {e}", opts.bind, opts.port))
    };
    let listener =
        std::net::TcpListener::bind((opts.bind, opts.port)).map_err(|e| cannot_listen(&e))?;
    no_delay(&listener);
    let http = tiny_http::Server::from_listener(listener, None).map_err(|e| cannot_listen(&e))?;
    let addr = http
        .server_addr()
        .to_ip()
        .ok_or_else(|| Error::Other("the server has no IP address".into()))?;
    println!(
        "serving {} at http://{addr}/{} (Ctrl-C to stop)",
        opts.root.display(),
        if opts.drafts { " with drafts" } else { "" }
    );
    let server_state = state.clone();
    std::thread::spawn(move || server::run(http, server_state));
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

/// Turn off Nagle's algorithm on the listening socket; on Linux the sockets it accepts
/// inherit it. tiny_http writes a response's headers and body separately, so with Nagle on,
/// a browser's kept-alive connection waits for the delayed ACK (about 40 ms) on every
/// request after the first: an edit's reload took 44 ms longer than its rebuild.
fn no_delay(listener: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    let on: libc::c_int = 1;
    // SAFETY: a valid socket descriptor, and a c_int option value of the size given.
    let rc = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        // Only slower, never wrong.
        eprintln!(
            "warning: TCP_NODELAY not set on the server socket: {}",
            std::io::Error::last_os_error()
        );
    }
}
