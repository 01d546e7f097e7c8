//! Watching a project's sources: `content/`, `templates/`, `measurements/` and
//! `glossary.toml`. Editors save in bursts (write, rename, chmod), so events are collected
//! until the sources have been quiet for [`DEBOUNCE`], then handed over as one change.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use crate::config::{Layout, CONFIG_FILE};
use crate::error::{Error, Result};

pub const DEBOUNCE: Duration = Duration::from_millis(50);

/// Call `on_change` with the changed paths after each burst of changes. Runs until the
/// watcher fails.
pub fn watch(root: &Path, mut on_change: impl FnMut(&[PathBuf])) -> Result<()> {
    let root = root.canonicalize().map_err(|e| Error::io(root, e))?;
    let layout = Layout::new(&root);
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx)
        .map_err(|e| Error::Other(format!("cannot watch {}: {e}", root.display())))?;
    let dirs = [layout.content(), layout.templates(), layout.measurements()];
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        watcher
            .watch(dir, RecursiveMode::Recursive)
            .map_err(|e| Error::Other(format!("cannot watch {}: {e}", dir.display())))?;
    }
    // The root itself, not recursively: `glossary.toml` is often replaced by a rename,
    // which a watch on the file would miss, and new source folders appear here.
    watcher
        .watch(&root, RecursiveMode::NonRecursive)
        .map_err(|e| Error::Other(format!("cannot watch {}: {e}", root.display())))?;
    let is_source = |p: &Path| {
        p.starts_with(layout.content())
            || p.starts_with(layout.templates())
            || p.starts_with(layout.measurements())
            || p == root.join(CONFIG_FILE)
    };

    loop {
        let first = rx
            .recv()
            .map_err(|_| Error::Other("the file watcher stopped".into()))?;
        let mut changed: Vec<PathBuf> = Vec::new();
        let mut note = |event: notify::Result<notify::Event>| match event {
            Ok(e) if !matches!(e.kind, notify::EventKind::Access(_)) => {
                changed.extend(e.paths.into_iter().filter(|p| is_source(p)))
            }
            Ok(_) => {}
            Err(e) => eprintln!("warning: file watcher: {e}"),
        };
        note(first);
        loop {
            match rx.recv_timeout(DEBOUNCE) {
                Ok(event) => note(event),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(Error::Other("the file watcher stopped".into()))
                }
            }
        }
        changed.sort();
        changed.dedup();
        if !changed.is_empty() {
            on_change(&changed);
        }
    }
}
