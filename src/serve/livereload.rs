//! Live reload. Every rebuild bumps a generation number; each served HTML page carries a
//! small script that long-polls `/__livereload?since=N` and reloads when the answer differs
//! from the generation it was served at. Long polling needs nothing but plain HTTP
//! responses, so it works through any proxy and with the simple server we use.

use std::sync::{Condvar, Mutex, RwLock};
use std::time::Duration;

use super::rebuild::{RebuildOutcome, SiteFiles};

pub const ENDPOINT: &str = "/__livereload";

/// How long a poll waits before answering "nothing new"; the script polls again.
const POLL_WAIT: Duration = Duration::from_secs(20);

/// The site being served and the state of the last build.
pub struct SiteState {
    current: RwLock<Snapshot>,
    generation: Mutex<u64>,
    changed: Condvar,
}

#[derive(Clone)]
pub struct Snapshot {
    pub generation: u64,
    /// The last site that built; kept while a broken edit is being fixed.
    pub files: std::sync::Arc<SiteFiles>,
    /// The last build's error, if it failed.
    pub error: Option<String>,
}

impl SiteState {
    pub fn new(first: RebuildOutcome) -> SiteState {
        let state = SiteState {
            current: RwLock::new(Snapshot {
                generation: 0,
                files: Default::default(),
                error: None,
            }),
            generation: Mutex::new(0),
            changed: Condvar::new(),
        };
        state.publish(first);
        state
    }

    pub fn snapshot(&self) -> Snapshot {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Make a rebuild's outcome the served state and wake every waiting page.
    pub fn publish(&self, outcome: RebuildOutcome) {
        let mut generation = self.generation.lock().unwrap_or_else(|p| p.into_inner());
        *generation += 1;
        {
            let mut cur = self.current.write().unwrap_or_else(|p| p.into_inner());
            cur.generation = *generation;
            match outcome {
                RebuildOutcome::Built { files, .. } => {
                    cur.files = std::sync::Arc::new(files);
                    cur.error = None;
                }
                RebuildOutcome::Failed { message, .. } => cur.error = Some(message),
            }
        }
        self.changed.notify_all();
    }

    /// Block until the generation differs from `since` or the wait times out; return the
    /// generation then.
    pub fn wait_for_change(&self, since: u64) -> u64 {
        let generation = self.generation.lock().unwrap_or_else(|p| p.into_inner());
        let (generation, _) = self
            .changed
            .wait_timeout_while(generation, POLL_WAIT, |g| *g == since)
            .unwrap_or_else(|p| p.into_inner());
        *generation
    }
}

/// The script added to a served HTML page built at `generation`.
pub fn script(generation: u64) -> String {
    format!(
        r#"<script>
(function () {{
  var served = {generation};
  function poll() {{
    fetch('{ENDPOINT}?since=' + served, {{ cache: 'no-store' }})
      .then(function (r) {{ return r.text(); }})
      .then(function (t) {{
        if (parseInt(t, 10) !== served) window.location.reload();
        else poll();
      }})
      .catch(function () {{ setTimeout(poll, 1000); }});
  }}
  poll();
}})();
</script>
"#
    )
}

/// `html` with the live-reload script before its last `</body>` (or at the end).
pub fn inject(html: &[u8], generation: u64) -> Vec<u8> {
    let script = script(generation);
    let needle = b"</body>";
    let at = html
        .windows(needle.len())
        .rposition(|w| w.eq_ignore_ascii_case(needle))
        .unwrap_or(html.len());
    let mut out = Vec::with_capacity(html.len() + script.len());
    out.extend_from_slice(&html[..at]);
    out.extend_from_slice(script.as_bytes());
    out.extend_from_slice(&html[at..]);
    out
}

/// The page shown instead of any HTML page while the build is broken.
pub fn error_page(message: &str, generation: u64) -> Vec<u8> {
    let body = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Build failed</title>\n<link rel=\"stylesheet\" href=\"/static/style.css\">\n</head>\n<body>\n<main id=\"main\">\n<h1>Build failed</h1>\n<p>The last save broke the build. Fix the problem below and save again; this page reloads by itself.</p>\n<pre class=\"serve-error\" id=\"serve-error\">{}</pre>\n</main>\n</body>\n</html>\n",
        crate::render::escape::escape(message)
    );
    inject(body.as_bytes(), generation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_goes_before_the_closing_body_tag() {
        let out = String::from_utf8(inject(b"<html><body><p>x</p></body></html>", 7)).unwrap();
        let script_at = out.find("var served = 7").unwrap();
        assert!(script_at < out.find("</body>").unwrap());
        assert!(out.ends_with("</body></html>"));
    }

    #[test]
    fn error_page_escapes_the_message() {
        let page = String::from_utf8(error_page("bad <tag> & more", 3)).unwrap();
        assert!(page.contains("bad &lt;tag&gt; &amp; more"));
    }

    #[test]
    fn waiting_returns_at_once_when_already_changed() {
        let state = SiteState::new(RebuildOutcome::Failed {
            message: "x".into(),
            took: Duration::ZERO,
        });
        assert_eq!(state.wait_for_change(0), 1);
    }
}
