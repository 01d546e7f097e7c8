//! Live reload. Every rebuild bumps a generation number; each served HTML page carries a
//! small script that long-polls `/__livereload?since=N` and reloads when the answer differs
//! from the generation it was served at. Long polling needs nothing but plain HTTP
//! responses, so it works through any proxy and with the simple server we use. A waiting
//! poll is a task on the server's runtime, not a thread: a thousand open tabs cost a
//! thousand small futures.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};
use std::time::Duration;

use super::error_page::BuildFailure;
use super::rebuild::{RebuildOutcome, SiteFiles, SiteUpdate};

pub const ENDPOINT: &str = "/__livereload";

/// How long a poll waits before answering "nothing new"; the script polls again.
pub const POLL_WAIT: Duration = Duration::from_secs(20);

/// The site being served and the state of the last build. A rebuild changes the served
/// files in place (a few files, not a copy of the whole map), under a short write lock.
pub struct SiteState {
    current: RwLock<Site>,
    /// Held while a generation is published, so two publishes never interleave.
    generation: Mutex<u64>,
    /// The generation last published, for the polls waiting on it.
    changed: tokio::sync::watch::Sender<u64>,
}

pub struct Site {
    pub generation: u64,
    /// The last site that built; kept while a broken edit is being fixed.
    pub files: SiteFiles,
    /// The last build's error, if it failed.
    pub error: Option<BuildFailure>,
    /// The generation at which each file last changed (or went away): a page reloads only
    /// when what it shows changed, not on every rebuild of some other page.
    changed_at: HashMap<String, u64>,
    /// The generation at which every page changed: the error appeared, changed or went,
    /// or a static file (a style sheet, a script) every page uses changed.
    all_changed_at: u64,
}

impl Site {
    /// Whether the page at `key` (or, where there is none, the 404 page shown instead)
    /// changed after generation `since`.
    fn page_changed(&self, key: &str, since: u64) -> bool {
        let after = |k: &str| self.changed_at.get(k).is_some_and(|&g| g > since);
        self.all_changed_at > since
            || after(key)
            || (!self.files.contains_key(key) && after("404.html"))
    }

    fn apply(&mut self, update: SiteUpdate) {
        let generation = self.generation;
        let mut changed = |key: &str, changed_at: &mut HashMap<String, u64>| {
            if key.starts_with("static/") {
                self.all_changed_at = generation;
            }
            changed_at.insert(key.to_string(), generation);
        };
        if update.full {
            let old = std::mem::take(&mut self.files);
            for (key, bytes) in update.files {
                if old.get(&key).is_none_or(|b| b != &bytes) {
                    changed(&key, &mut self.changed_at);
                }
                self.files.insert(key, bytes);
            }
            for key in old.keys().filter(|k| !self.files.contains_key(*k)) {
                changed(key, &mut self.changed_at);
            }
            return;
        }
        for key in update.removed {
            if self.files.remove(&key).is_some() {
                changed(&key, &mut self.changed_at);
            }
        }
        for (key, bytes) in update.files {
            if self.files.get(&key).is_none_or(|b| b != &bytes) {
                changed(&key, &mut self.changed_at);
                self.files.insert(key, bytes);
            }
        }
    }
}

impl SiteState {
    pub fn new(first: RebuildOutcome) -> SiteState {
        let state = SiteState {
            current: RwLock::new(Site {
                generation: 0,
                files: SiteFiles::new(),
                error: None,
                changed_at: HashMap::new(),
                all_changed_at: 0,
            }),
            generation: Mutex::new(0),
            changed: tokio::sync::watch::Sender::new(0),
        };
        state.publish(first);
        state
    }

    /// Look at the served site (hold it briefly: a rebuild waits for readers).
    pub fn read<R>(&self, f: impl FnOnce(&Site) -> R) -> R {
        f(&self.current.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Make a rebuild's outcome the served state and wake every waiting page.
    pub fn publish(&self, outcome: RebuildOutcome) {
        let mut generation = self.generation.lock().unwrap_or_else(|p| p.into_inner());
        *generation += 1;
        {
            let mut cur = self.current.write().unwrap_or_else(|p| p.into_inner());
            cur.generation = *generation;
            match outcome {
                RebuildOutcome::Built { update, .. } => {
                    if cur.error.take().is_some() {
                        cur.all_changed_at = *generation;
                    }
                    cur.apply(update);
                }
                RebuildOutcome::Failed {
                    failure, statics, ..
                } => {
                    if cur.error.as_ref() != Some(&failure) {
                        cur.all_changed_at = *generation;
                    }
                    cur.error = Some(failure);
                    // The error page's style sheet, before any build worked: an edit to
                    // it reloads the page too.
                    for (key, bytes) in statics {
                        if cur.files.get(&key) != Some(&bytes) {
                            cur.all_changed_at = *generation;
                            cur.files.insert(key, bytes);
                        }
                    }
                }
            }
        }
        self.changed.send_replace(*generation);
    }

    /// Wait until the site changed after generation `since` (with `page`, until that
    /// page changed) or the wait times out. Returns the generation then if it changed,
    /// else `since`.
    pub async fn wait_for_change(&self, since: u64, page: Option<&str>) -> u64 {
        let changed = || {
            self.read(|site| {
                let yes = match page {
                    None => site.generation != since,
                    Some(key) => site.page_changed(key, since),
                };
                yes.then_some(site.generation)
            })
        };
        // Subscribed before looking, so a publish after the look wakes this poll.
        let mut published = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + POLL_WAIT;
        loop {
            if let Some(generation) = changed() {
                return generation;
            }
            match tokio::time::timeout_at(deadline, published.changed()).await {
                Ok(Ok(())) => {}
                // Timed out (or the state is going away): nothing new.
                Ok(Err(_)) | Err(_) => return since,
            }
        }
    }
}

/// The live-reload script, served as a file ([`SCRIPT_ENDPOINT`]): the pages' Content-
/// Security-Policy runs no inline script (`render::csp`), so the tag [`script`] adds names
/// this file and carries the page's generation and key as data attributes.
pub const SCRIPT_ENDPOINT: &str = "/__livereload.js";

/// What [`SCRIPT_ENDPOINT`] serves.
pub const SCRIPT_JS: &str = r#"(function () {
  var me = document.currentScript;
  var served = parseInt(me.getAttribute('data-served'), 10);
  var page = me.getAttribute('data-page') || '';
  function poll() {
    fetch('/__livereload?since=' + served + '&page=' + encodeURIComponent(page), { cache: 'no-store' })
      .then(function (r) { return r.text(); })
      .then(function (t) {
        if (parseInt(t, 10) !== served) window.location.reload();
        else poll();
      })
      .catch(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
"#;

/// The tag added to the served HTML page `key` (`terms/x/index.html`) at `generation`.
pub fn script(generation: u64, key: &str) -> String {
    format!(
        "<script src=\"{SCRIPT_ENDPOINT}\" data-served=\"{generation}\" data-page=\"{}\"></script>\n",
        crate::render::escape::escape(key)
    )
}

/// `html` (served as `key`) with the live-reload script before its last `</body>` (or at
/// the end).
pub fn inject(html: &[u8], generation: u64, key: &str) -> Vec<u8> {
    let script = script(generation, key);
    let at = script_at(html);
    let mut out = Vec::with_capacity(html.len() + script.len());
    out.extend_from_slice(&html[..at]);
    out.extend_from_slice(script.as_bytes());
    out.extend_from_slice(&html[at..]);
    out
}

/// Where [`inject`] puts the script: before the last `</body>`, else at the end.
pub fn script_at(html: &[u8]) -> usize {
    let needle = b"</body>";
    html.windows(needle.len())
        .rposition(|w| w.eq_ignore_ascii_case(needle))
        .unwrap_or(html.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn script_goes_before_the_closing_body_tag() {
        let out = String::from_utf8(inject(
            b"<html><body><p>x</p></body></html>",
            7,
            "a/index.html",
        ))
        .unwrap();
        let script_at = out.find("data-served=\"7\"").unwrap();
        assert!(script_at < out.find("</body>").unwrap());
        assert!(out.ends_with("</body></html>"));
    }

    #[test]
    fn waiting_returns_at_once_when_already_changed() {
        let state = SiteState::new(failed("x"));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        assert_eq!(runtime.block_on(state.wait_for_change(0, None)), 1);
        assert_eq!(
            runtime.block_on(state.wait_for_change(0, Some("index.html"))),
            1
        );
    }

    #[test]
    fn a_waiting_poll_wakes_when_a_build_is_published() {
        let state = Arc::new(SiteState::new(built(true, &[("a/index.html", "a")], &[])));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let publisher = state.clone();
        let publish = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            publisher.publish(built(false, &[("a/index.html", "a2")], &[]));
        });
        let started = std::time::Instant::now();
        let got = runtime.block_on(state.wait_for_change(1, Some("a/index.html")));
        publish.join().unwrap();
        assert_eq!(got, 2);
        assert!(started.elapsed() < POLL_WAIT, "woken, not timed out");
    }

    fn failed(what: &str) -> RebuildOutcome {
        RebuildOutcome::Failed {
            failure: BuildFailure {
                when: super::super::error_page::When::Start,
                problems: vec![super::super::error_page::Problem {
                    file: None,
                    line: None,
                    column: None,
                    what: what.into(),
                }],
            },
            statics: Vec::new(),
            took: Duration::ZERO,
        }
    }

    fn built(full: bool, files: &[(&str, &str)], removed: &[&str]) -> RebuildOutcome {
        RebuildOutcome::Built {
            update: SiteUpdate {
                full,
                files: files
                    .iter()
                    .map(|(k, v)| (k.to_string(), Arc::new(v.as_bytes().to_vec())))
                    .collect(),
                removed: removed.iter().map(|k| k.to_string()).collect(),
            },
            summary: String::new(),
            took: Duration::ZERO,
        }
    }

    #[test]
    fn a_page_is_told_to_reload_only_when_it_changed() {
        let state = SiteState::new(built(
            true,
            &[
                ("a/index.html", "a"),
                ("b/index.html", "b"),
                ("404.html", "nf"),
            ],
            &[],
        ));
        let changed = |key: &str, since| state.read(|s| s.page_changed(key, since));
        // Generation 2 rewrites b with the same bytes and changes a.
        state.publish(built(
            false,
            &[("a/index.html", "a2"), ("b/index.html", "b")],
            &[],
        ));
        assert!(changed("a/index.html", 1));
        assert!(!changed("b/index.html", 1));
        assert!(
            !changed("c/index.html", 1),
            "a missing page shows the 404 page"
        );
        // A removed page changed; a page that appears does too.
        state.publish(built(false, &[("c/index.html", "c")], &["b/index.html"]));
        assert!(changed("b/index.html", 2));
        assert!(changed("c/index.html", 2));
        assert!(!changed("a/index.html", 2));
        // A style sheet changes every page; so does an error, and its going.
        state.publish(built(false, &[("static/style.css", "x")], &[]));
        assert!(changed("a/index.html", 3));
        state.publish(failed("broken"));
        assert!(changed("a/index.html", 4));
        state.publish(built(false, &[], &[]));
        assert!(changed("a/index.html", 5));
        assert!(!changed("a/index.html", 6));
    }
}
