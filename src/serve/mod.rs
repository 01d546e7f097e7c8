//! `glossary serve`: build into memory, serve it over HTTP on localhost, rebuild when a
//! source changes and reload the pages open in a browser.
//!
//! - [`rebuild`]: the one place a rebuild happens, timed; a failed build keeps the last good
//!   site and carries the error to show;
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
    // Watch first: whatever is saved during the first build is rebuilt right after it.
    let watch = watch::SourceWatch::start(&root)?;
    let mut rebuilder = rebuild::Rebuilder::new(&root, opts.drafts);
    let state = Arc::new(livereload::SiteState::new(rebuilder.rebuild(&[])));
    let cannot_listen = |e: &dyn std::fmt::Display| {
        Error::Other(format!("cannot listen on {}:{}: {e}", opts.bind, opts.port))
    };
    let listener =
        std::net::TcpListener::bind((opts.bind, opts.port)).map_err(|e| cannot_listen(&e))?;
    let addr = listener.local_addr().map_err(|e| cannot_listen(&e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| cannot_listen(&e))?;
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
