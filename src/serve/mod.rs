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
    let http = tiny_http::Server::http((opts.bind, opts.port))
        .map_err(|e| Error::Other(format!("cannot listen on {}:{}: {e}", opts.bind, opts.port)))?;
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
        || match rebuilder.borrow_mut().catch_up() {
            Some(outcome) => {
                state.publish(outcome);
                true
            }
            None => false,
        },
    )
}
