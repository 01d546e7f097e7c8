//! The page `serve` shows in place of every page while the site does not build: what
//! happened, and each problem under the file it is in, at its line. It is often the
//! first page a writer sees (`glossary new term`, then `serve --drafts`: the scaffold's
//! placeholders are errors until written over), so it reads like the site (its style
//! sheet, served even when no build has worked yet: see `Rebuilder`) and wraps on a
//! phone: no `<pre>`, paths and quoted text in `<code>`, which the style sheet lets break
//! anywhere.

use std::path::Path;

use crate::error::Error;
use crate::render::escape::escape;

/// Why the site does not build, as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildFailure {
    /// What was being built: the first build, or one after these files changed.
    pub when: When,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum When {
    /// Serve's first build: nothing was saved, the project is as it was found.
    Start,
    /// After a change to these files (relative to the project), as the watcher saw them.
    Changed(Vec<String>),
    /// Bringing the pages that list an edited entry up to date.
    CatchingUp,
}

/// One error, by the file it names (relative to the project where it is inside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub what: String,
}

impl Problem {
    /// `e` (one error, not `Error::Many`) with its file and place taken apart; the project
    /// root is left out of paths, in the message too.
    pub fn of(e: &Error, root: &Path) -> Problem {
        // Shown as the terminal shows them: a name's invisible characters spelled out.
        let rel = |p: &Path| {
            let name = p.strip_prefix(root).unwrap_or(p).to_string_lossy();
            crate::visible::escape(&name).into_owned()
        };
        let (file, at, what) = match e {
            Error::Content { path, at, message } => (Some(rel(path)), *at, message.clone()),
            Error::Io { path, source } => (Some(rel(path)), None, source.to_string()),
            Error::Config { path, message } => (Some(rel(path)), None, message.clone()),
            Error::Template { path, message } => {
                (Some(rel(path)), None, format!("template error: {message}"))
            }
            other => (None, None, other.to_string()),
        };
        // Messages name other files by the path they were read at.
        let prefix = format!("{}/", root.display());
        let what = crate::visible::escape(&what.replace(&prefix, "")).to_string();
        Problem {
            file,
            line: at.map(|l| l.line),
            column: at.map(|l| l.column),
            what,
        }
    }
}

impl BuildFailure {
    /// The files named, in the order first named.
    fn files(&self) -> Vec<&str> {
        let mut files: Vec<&str> = Vec::new();
        for p in &self.problems {
            if let Some(f) = p.file.as_deref() {
                if !files.contains(&f) {
                    files.push(f);
                }
            }
        }
        files
    }

    /// The heading: which file does not build (HTML).
    fn headline(&self) -> String {
        match self.files()[..] {
            [one] => format!("<code>{}</code> does not build", escape(one)),
            [] => "The site does not build".to_string(),
            ref many => format!("{} files do not build", many.len()),
        }
    }

    /// What happened, in a sentence (HTML).
    fn what_happened(&self) -> String {
        let n = self.problems.len();
        let problems = match n {
            1 => "a problem".to_string(),
            n => format!("{n} problems"),
        };
        match &self.when {
            When::Start => format!(
                "The project as serve found it does not build: {problems}, listed below. \
                 No page can be shown until {} fixed.",
                if n == 1 { "it is" } else { "each is" }
            ),
            When::Changed(files) => {
                let changed = match &files[..] {
                    [one] => format!("<code>{}</code> changed", escape(&shown_path(one))),
                    many => format!("{} files changed", many.len()),
                };
                format!(
                    "After {changed}, the site no longer builds: {problems}, listed below. \
                     Pages show this until {} fixed; other files are served from the last \
                     build that worked.",
                    if n == 1 { "it is" } else { "each is" }
                )
            }
            When::CatchingUp => format!(
                "Updating the pages that list an edited entry failed: {problems}, listed \
                 below."
            ),
        }
    }
}

/// The page shown at `key` (`terms/x/index.html`) at `generation`, the live-reload tag in.
pub fn render(failure: &BuildFailure, generation: u64, key: &str) -> Vec<u8> {
    let mut html = String::with_capacity(2048);
    html.push_str(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <meta name=\"robots\" content=\"noindex, nofollow\">\n<title>Build failed: ",
    );
    let headline = failure.headline();
    html.push_str(&headline.replace("<code>", "").replace("</code>", ""));
    html.push_str(
        "</title>\n<link rel=\"stylesheet\" href=\"/static/style.css\">\n</head>\n<body>\n\
         <header class=\"site-header\"><span class=\"site-title\">glossary serve</span></header>\n\
         <div class=\"layout\">\n<main id=\"main\">\n<p class=\"kicker\">Build failed</p>\n<h1>",
    );
    html.push_str(&headline);
    html.push_str("</h1>\n<p class=\"lede\">");
    html.push_str(&failure.what_happened());
    html.push_str("</p>\n<div class=\"serve-error\" id=\"serve-error\" role=\"alert\">\n");
    // Grouped by file, in the order the build named them; problems without a file last.
    let mut groups: Vec<(Option<&str>, Vec<&Problem>)> = Vec::new();
    for p in &failure.problems {
        match groups.iter_mut().find(|(f, _)| *f == p.file.as_deref()) {
            Some((_, list)) => list.push(p),
            None => groups.push((p.file.as_deref(), vec![p])),
        }
    }
    groups.sort_by_key(|(f, _)| f.is_none());
    for (file, problems) in groups {
        html.push_str("<h2>");
        match file {
            Some(f) => {
                html.push_str("<code>");
                html.push_str(&escape(f));
                html.push_str("</code>");
            }
            None => html.push_str("Not in one file"),
        }
        html.push_str("</h2>\n<ol>\n");
        for p in problems {
            html.push_str("<li>");
            if let Some(line) = p.line {
                html.push_str("<strong>Line ");
                html.push_str(&line.to_string());
                if let Some(column) = p.column {
                    html.push_str(", column ");
                    html.push_str(&column.to_string());
                }
                html.push_str(":</strong> ");
            }
            html.push_str(&quoted_as_code(&p.what));
            // The place as an editor or terminal takes it, for copying.
            if let (Some(f), Some(line)) = (file, p.line) {
                html.push_str(" <span class=\"serve-error-at\"><code>");
                html.push_str(&escape(f));
                html.push(':');
                html.push_str(&line.to_string());
                if let Some(column) = p.column {
                    html.push(':');
                    html.push_str(&column.to_string());
                }
                html.push_str("</code></span>");
            }
            html.push_str("</li>\n");
        }
        html.push_str("</ol>\n");
    }
    html.push_str(
        "</div>\n<p>Fix each problem where it says and save: this page reloads by itself \
         when the site builds.</p>\n</main>\n</div>\n</body>\n</html>\n",
    );
    super::livereload::inject(html.as_bytes(), generation, key)
}

/// A path the watcher reported, each name as messages show names: a character outside
/// the file-name allow-list (an invisible one, say) spelled out as `<U+XXXX>`.
fn shown_path(path: &str) -> String {
    path.split('/')
        .map(|name| crate::visible::shown_file_name(std::ffi::OsStr::new(name)))
        .collect::<Vec<_>>()
        .join("/")
}

/// `text` escaped, with each `quoted` part as code (messages quote names and text so).
fn quoted_as_code(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    // An odd backtick out: no pairs to trust, all as text.
    if parts.len().is_multiple_of(2) {
        return escape(text).to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(&escape(part));
            out.push_str("</code>");
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;

    fn failure(when: When, errors: Vec<Error>) -> BuildFailure {
        let root = Path::new("/p");
        BuildFailure {
            when,
            problems: errors.iter().map(|e| Problem::of(e, root)).collect(),
        }
    }

    fn at(line: usize, column: usize) -> Option<Location> {
        Some(Location { line, column })
    }

    #[test]
    fn each_problem_is_named_by_its_file_and_line_and_escaped() {
        let f = failure(
            When::Start,
            vec![
                Error::content(
                    "/p/content/terms/x.md",
                    at(9, 11),
                    "write `<<replace: a>>` & more",
                ),
                Error::content(
                    "/p/content/terms/x.md",
                    at(12, 1),
                    "no record at /p/measurements/e",
                ),
                Error::Other("bad <tag>".into()),
            ],
        );
        let page = String::from_utf8(render(&f, 3, "index.html")).unwrap();
        assert!(
            page.contains("<h1><code>content/terms/x.md</code> does not build</h1>"),
            "{page}"
        );
        assert!(page.contains("<strong>Line 9, column 11:</strong> write <code>&lt;&lt;replace: a&gt;&gt;</code> &amp; more"), "{page}");
        assert!(
            page.contains("<code>content/terms/x.md:12:1</code>"),
            "{page}"
        );
        assert!(page.contains("no record at measurements/e"), "{page}");
        assert!(
            page.contains("<h2>Not in one file</h2>\n<ol>\n<li>bad &lt;tag&gt;</li>"),
            "{page}"
        );
        assert!(
            !page.contains("/p/"),
            "no absolute path of the project: {page}"
        );
        assert!(page.contains("as serve found it"), "{page}");
        assert!(!page.contains("save broke"), "{page}");
        assert!(!page.contains("<pre"), "{page}");
    }

    #[test]
    fn what_happened_says_which_change_or_none() {
        let e = || vec![Error::content("/p/a.md", at(1, 1), "x")];
        let page = |when| String::from_utf8(render(&failure(when, e()), 1, "index.html")).unwrap();
        assert!(page(When::Changed(vec!["content/terms/a.md".into()]))
            .contains("After <code>content/terms/a.md</code> changed, the site no longer builds: a problem"));
        assert!(page(When::Changed(vec!["a".into(), "b".into()])).contains("After 2 files changed"));
        let two = failure(
            When::Start,
            vec![
                Error::content("/p/a.md", None, "x"),
                Error::content("/p/b.md", None, "y"),
            ],
        );
        let page = String::from_utf8(render(&two, 1, "index.html")).unwrap();
        assert!(page.contains("<h1>2 files do not build</h1>"), "{page}");
        assert!(page.contains("2 problems"), "{page}");
    }

    #[test]
    fn an_unpaired_backtick_is_text() {
        assert_eq!(quoted_as_code("a `b` c"), "a <code>b</code> c");
        assert_eq!(quoted_as_code("a `b c"), "a `b c");
    }
}
