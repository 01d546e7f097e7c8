//! The rebuild step of `serve`. Every rebuild goes through [`Rebuilder::rebuild`], which
//! keeps a [`Session`]: the first build renders the whole site into memory, and each later
//! save re-renders only the pages the changed files affect (a full render when templates,
//! settings or measurements change). A failed build keeps the session as it was, so the
//! next good save recovers from there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::content::IdSet;
use crate::pipeline::{BuildOptions, Rebuilt, Session};

use super::error_page::{BuildFailure, Problem, When};

/// The served site: every file by its URL path relative to the root (`terms/x/index.html`).
pub type SiteFiles = HashMap<String, Arc<Vec<u8>>>;

/// The files one rebuild changed, to fold into the served site.
pub struct SiteUpdate {
    /// The whole site: `files` replace every file.
    pub full: bool,
    pub files: Vec<(String, Arc<Vec<u8>>)>,
    pub removed: Vec<String>,
}

/// What one rebuild produced.
pub enum RebuildOutcome {
    Built {
        update: SiteUpdate,
        summary: String,
        took: Duration,
    },
    /// The build failed: what the error page shows. Until a build has worked, the site's
    /// own files (`templates/static`, its style sheet) come with it, so the error page
    /// is styled like the site.
    Failed {
        failure: BuildFailure,
        statics: Vec<(String, Arc<Vec<u8>>)>,
        took: Duration,
    },
}

impl RebuildOutcome {
    /// A good build that changed no file (deferred work given up for a save).
    pub fn changes_nothing(&self) -> bool {
        matches!(self, RebuildOutcome::Built { update, .. }
            if !update.full && update.files.is_empty() && update.removed.is_empty())
    }
}

pub struct Rebuilder {
    root: PathBuf,
    drafts: bool,
    /// The address pages are rendered for (their absolute links, reproduce commands).
    base_url: String,
    /// None until a first build succeeds.
    session: Option<Session>,
    /// Deferred work done since the last save: files made, time taken.
    behind: Option<(usize, Duration)>,
    /// The last save broke the build. Deferred work waits for the next good save: done
    /// now, it would publish a good build over the error the author has to see.
    broken: bool,
    /// The entries the last good rebuild published, to tell which an edit withdrew.
    published: IdSet,
}

impl Rebuilder {
    /// `base_url`: the server's own address, in place of glossary.toml's.
    pub fn new(root: &Path, drafts: bool, base_url: String) -> Rebuilder {
        Rebuilder {
            root: root.to_path_buf(),
            drafts,
            base_url,
            session: None,
            behind: None,
            broken: false,
            published: IdSet::default(),
        }
    }

    /// Rebuild after `changed` paths changed (empty: the first build). Prints the outcome
    /// and how long it took.
    pub fn rebuild(&mut self, changed: &[PathBuf]) -> RebuildOutcome {
        let started = Instant::now();
        self.behind = None;
        let result = match &mut self.session {
            Some(session) => session.edit(changed),
            None => Session::start(BuildOptions {
                root: self.root.clone(),
                out: None,
                drafts: self.drafts,
                today: chrono::Local::now().date_naive(),
                base_url: Some(self.base_url.clone()),
                keep_bodies_up_to: crate::pipeline::KEEP_BODIES_UP_TO,
            })
            .map(|(mut session, site)| {
                session.show_withdrawn();
                self.session = Some(session);
                site
            }),
        };
        let outcome = result.and_then(update);
        self.broken = outcome.is_err();
        match outcome {
            Ok((update, summary)) => {
                let count = update.files.len();
                let took = started.elapsed();
                let cause = match changed {
                    [] => "built".to_string(),
                    [one] => format!("rebuilt after a change to {}", display_rel(&self.root, one)),
                    many => format!("rebuilt after {} changes", many.len()),
                };
                let behind = match &self.session {
                    Some(s) if s.is_behind() => {
                        "; the pages that list it and the site-wide files follow"
                    }
                    _ => "",
                };
                print!("{summary}");
                for line in self.withdrawn_now() {
                    println!("{line}");
                }
                println!(
                    "{cause}: {count} files written in {:.1} ms{behind}",
                    ms(took)
                );
                RebuildOutcome::Built {
                    update,
                    summary,
                    took,
                }
            }
            Err(e) => {
                let when = match changed {
                    [] if self.session.is_none() => When::Start,
                    _ => {
                        When::Changed(changed.iter().map(|p| display_rel(&self.root, p)).collect())
                    }
                };
                self.failed(e, when, started)
            }
        }
    }

    /// `withdrawn: <entry>: <reason>` for each entry published before this rebuild and
    /// not now (its page stays served, with a banner: `Session::show_withdrawn`).
    fn withdrawn_now(&mut self) -> Vec<String> {
        let Some(report) = self.session.as_ref().map(|s| s.report()) else {
            return Vec::new();
        };
        let now: IdSet = report.published.iter().cloned().collect();
        let mut lines = Vec::new();
        for (id, refusals) in &report.refused {
            if self.published.contains(id) {
                let why: Vec<String> = refusals.iter().map(|r| r.to_string()).collect();
                lines.push(format!("withdrawn: {id}: {}", why.join("; ")));
            }
        }
        self.published = now;
        lines
    }

    fn failed(&mut self, e: crate::Error, when: When, started: Instant) -> RebuildOutcome {
        let took = started.elapsed();
        let errors = e.flatten();
        eprintln!(
            "error: build failed ({:.1} ms); the browser shows this until a save fixes it:",
            ms(took)
        );
        for e in &errors {
            for line in e.to_string().lines() {
                eprintln!("  {line}");
            }
        }
        let problems = errors.iter().map(|e| Problem::of(e, &self.root)).collect();
        // Nothing served yet: the style sheet the error page links to comes from here.
        let statics = match &self.session {
            None => static_files(
                &crate::config::Layout::new(&self.root)
                    .templates()
                    .join("static"),
            )
            .unwrap_or_default(),
            Some(_) => Vec::new(),
        };
        RebuildOutcome::Failed {
            failure: BuildFailure { when, problems },
            statics,
            took,
        }
    }

    /// Work an edit deferred (see `Session::catch_up_until`), one slice at a time; None
    /// when there is none left. A slice given up because `waiting` says a save is waiting
    /// changes nothing (see [`RebuildOutcome::changes_nothing`]).
    pub fn catch_up(&mut self, waiting: crate::site::search::Stop<'_>) -> Option<RebuildOutcome> {
        if self.broken {
            return None;
        }
        let started = Instant::now();
        let Some(result) = self.session.as_mut()?.catch_up_until(waiting) else {
            if let Some((count, took)) = self.behind.take() {
                println!(
                    "caught up: {count} files that list the changed entries written in {:.1} ms",
                    ms(took)
                );
            }
            return None;
        };
        match result.and_then(update) {
            Ok((update, summary)) => {
                let took = started.elapsed();
                let (count, total) = self.behind.get_or_insert((0, Duration::ZERO));
                *count += update.files.len();
                *total += took;
                Some(RebuildOutcome::Built {
                    update,
                    summary,
                    took,
                })
            }
            Err(e) => {
                // Not retried until the next save, which may fix what failed.
                self.broken = true;
                Some(self.failed(e, When::CatchingUp, started))
            }
        }
    }
}

/// What a rebuild changed, keyed as served, and its report's summary.
fn update(site: Rebuilt) -> crate::Result<(SiteUpdate, String)> {
    let mut files: Vec<(String, Arc<Vec<u8>>)> = Vec::with_capacity(site.files.len());
    if site.full {
        files.extend(static_files(&site.static_dir)?);
    }
    files.extend(
        site.files
            .into_iter()
            .map(|f| (url_key(&f.path), Arc::new(f.bytes))),
    );
    let update = SiteUpdate {
        full: site.full,
        files,
        removed: site.removed.iter().map(|p| url_key(p)).collect(),
    };
    // The author's warnings, as `check` lists them; the records' notes counted.
    let listed = crate::pipeline::Listed {
        warnings: true,
        notes: false,
    };
    Ok((update, site.report.summary(listed)))
}

fn url_key(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn display_rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// `templates/static`, served at `static/`.
fn static_files(static_dir: &Path) -> crate::Result<Vec<(String, Arc<Vec<u8>>)>> {
    let mut files = Vec::new();
    if static_dir.is_dir() {
        for item in walkdir::WalkDir::new(static_dir) {
            let item =
                item.map_err(|e| crate::Error::Other(format!("{}: {e}", static_dir.display())))?;
            if !item.file_type().is_file() {
                continue;
            }
            let rel = item.path().strip_prefix(static_dir).unwrap_or(item.path());
            let bytes = std::fs::read(item.path()).map_err(|e| crate::Error::io(item.path(), e))?;
            files.push((format!("static/{}", url_key(rel)), Arc::new(bytes)));
        }
    }
    Ok(files)
}
