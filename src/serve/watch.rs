//! Watching a project's sources: `content/`, `templates/`, `measurements/`, `static/`
//! and `glossary.toml`. A source folder made while serve runs is watched from then on.
//!
//! A save is handed over as soon as it is complete, not after a fixed quiet time: the
//! watch starts before the first build (so nothing saved meanwhile is lost), and a burst
//! of events ends when every file written in it has been closed (inotify's close-write)
//! and nothing more arrived for [`SETTLE`]. Editors save in bursts (write, rename,
//! chmod, a backup removed) that take well under a millisecond, so [`SETTLE`] only
//! gathers those; a file still open for writing (a slow writer) holds the burst open up to
//! [`OPEN_WRITE_WAIT`] after its last event, so it is not read half-written.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::config::{Layout, CONFIG_FILE};
use crate::error::{Error, Result};

/// Quiet time that ends a burst once no file in it is open for writing.
pub const SETTLE: Duration = Duration::from_millis(2);
/// Quiet time that ends a burst while a file in it is still open for writing.
pub const OPEN_WRITE_WAIT: Duration = Duration::from_millis(100);

/// A watch on a project's sources, started (events are queued) but not yet consumed.
pub struct SourceWatch {
    root: PathBuf,
    layout: Layout,
    rx: mpsc::Receiver<(bool, notify::Result<notify::Event>)>,
    /// Events on sources sent so far: deferred work gives up when more were sent than
    /// [`SourceWatch::run`] has taken.
    sent: Arc<AtomicU64>,
    /// Dropping it ends the watch.
    watcher: RecommendedWatcher,
    /// The source folders watched (recursively) so far.
    watched: BTreeSet<PathBuf>,
}

impl SourceWatch {
    pub fn start(root: &Path) -> Result<SourceWatch> {
        let root = root.canonicalize().map_err(|e| Error::io(root, e))?;
        let layout = Layout::new(&root);
        let (tx, rx) = mpsc::channel();
        let sent = Arc::new(AtomicU64::new(0));
        let counted = sent.clone();
        let sources = (root.clone(), layout.clone());
        let handler = move |event: notify::Result<notify::Event>| {
            let on_source = match &event {
                Ok(e) => e.paths.iter().any(|p| is_source(&sources.0, &sources.1, p)),
                Err(_) => true,
            };
            // Counted before it is sent: `run` never takes more than were counted.
            if on_source {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            let _ = tx.send((on_source, event));
        };
        let mut watcher = notify::recommended_watcher(handler)
            .map_err(|e| Error::Other(format!("cannot watch {}: {e}", root.display())))?;
        // The root itself, not recursively: `glossary.toml` is often replaced by a rename,
        // which a watch on the file would miss, and new source folders appear here.
        watcher
            .watch(&root, RecursiveMode::NonRecursive)
            .map_err(|e| Error::Other(format!("cannot watch {}: {e}", root.display())))?;
        let mut watch = SourceWatch {
            root,
            layout,
            rx,
            sent,
            watcher,
            watched: BTreeSet::new(),
        };
        watch.watch_source_folders()?;
        Ok(watch)
    }

    /// The project's source folders, each watched recursively once it exists.
    fn watch_source_folders(&mut self) -> Result<()> {
        let layout = &self.layout;
        let dirs = [
            layout.content(),
            layout.templates(),
            layout.measurements(),
            layout.static_files(),
        ];
        for dir in dirs {
            if self.watched.contains(&dir) || !dir.is_dir() {
                continue;
            }
            self.watcher
                .watch(&dir, RecursiveMode::Recursive)
                .map_err(|e| Error::Other(format!("cannot watch {}: {e}", dir.display())))?;
            self.watched.insert(dir);
        }
        Ok(())
    }

    fn is_source(&self, p: &Path) -> bool {
        is_source(&self.root, &self.layout, p)
    }

    /// Call `on_change` with the changed paths after each burst of changes. While
    /// `on_idle` has work left (it returns true) and no change is waiting, it is called
    /// again: deferred work runs only while the author is not saving, and is handed a
    /// test of whether a change arrived meanwhile, to give up long work for it. Runs until
    /// the watcher fails.
    pub fn run(
        mut self,
        mut on_change: impl FnMut(&[PathBuf]),
        mut on_idle: impl FnMut(&(dyn Fn() -> bool + Sync)) -> bool,
    ) -> Result<()> {
        let stopped = || Error::Other("the file watcher stopped".into());
        let mut idle_work = false;
        // Source events taken from the channel (see `sent`).
        let taken = std::cell::Cell::new(0u64);
        let take = |(on_source, event): (bool, notify::Result<notify::Event>)| {
            taken.set(taken.get() + u64::from(on_source));
            event
        };
        loop {
            let first = if idle_work {
                match self.rx.try_recv() {
                    Ok(event) => take(event),
                    Err(mpsc::TryRecvError::Empty) => {
                        let seen = taken.get();
                        let sent = &self.sent;
                        idle_work = on_idle(&|| sent.load(Ordering::SeqCst) > seen);
                        continue;
                    }
                    Err(mpsc::TryRecvError::Disconnected) => return Err(stopped()),
                }
            } else {
                take(self.rx.recv().map_err(|_| stopped())?)
            };
            let mut burst = Burst::default();
            burst.note(first, |p| self.is_source(p));
            loop {
                let quiet = if burst.open.is_empty() {
                    SETTLE
                } else {
                    OPEN_WRITE_WAIT
                };
                match self.rx.recv_timeout(quiet) {
                    Ok(event) => burst.note(take(event), |p| self.is_source(p)),
                    Err(mpsc::RecvTimeoutError::Timeout) => break,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return Err(stopped()),
                }
            }
            let mut changed = burst.changed;
            changed.sort();
            changed.dedup();
            // A source folder made since (`static/` for a first CNAME): watched before the
            // rebuild reads it, so nothing written in it afterwards is missed.
            if changed
                .iter()
                .any(|p| p.parent() == Some(self.root.as_path()))
            {
                self.watch_source_folders()?;
            }
            if !changed.is_empty() {
                on_change(&changed);
                idle_work = true;
            }
        }
    }
}

fn is_source(root: &Path, layout: &Layout, p: &Path) -> bool {
    // An editor's lock, backup or autosave beside an entry is no edit: the load skips it.
    if crate::content::is_side_path(&layout.content(), p) {
        return false;
    }
    p.starts_with(layout.content())
        || p.starts_with(layout.templates())
        || p.starts_with(layout.measurements())
        || p.starts_with(layout.static_files())
        || p == root.join(CONFIG_FILE)
}

/// The events of one save.
#[derive(Default)]
struct Burst {
    changed: Vec<PathBuf>,
    /// Files written to and not yet closed.
    open: HashSet<PathBuf>,
}

impl Burst {
    fn note(&mut self, event: notify::Result<notify::Event>, is_source: impl Fn(&Path) -> bool) {
        let event = match event {
            Ok(e) => e,
            Err(e) => {
                eprintln!("warning: file watcher: {e}");
                return;
            }
        };
        let paths = event.paths.into_iter().filter(|p| is_source(p));
        match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => {
                for p in paths {
                    self.open.remove(&p);
                    self.changed.push(p);
                }
            }
            EventKind::Access(_) => {}
            EventKind::Modify(ModifyKind::Data(_)) | EventKind::Create(CreateKind::File) => {
                for p in paths {
                    self.open.insert(p.clone());
                    self.changed.push(p);
                }
            }
            EventKind::Remove(_) => {
                for p in paths {
                    self.open.remove(&p);
                    self.changed.push(p);
                }
            }
            _ => self.changed.extend(paths),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_editors_side_file_in_content_is_no_source() {
        let root = Path::new("/p");
        let layout = Layout::new(root);
        assert!(is_source(root, &layout, Path::new("/p/content/terms/a.md")));
        assert!(is_source(root, &layout, Path::new("/p/static/CNAME")));
        assert!(is_source(
            root,
            &layout,
            Path::new("/p/static/.well-known/security.txt")
        ));
        assert!(!is_source(root, &layout, Path::new("/p/site/index.html")));
        for side in [
            "/p/content/terms/.#a.md",
            "/p/content/terms/a.md~",
            "/p/content/terms/#a.md#",
            "/p/content/.hidden/a.md",
        ] {
            assert!(!is_source(root, &layout, Path::new(side)), "{side}");
        }
    }
}
