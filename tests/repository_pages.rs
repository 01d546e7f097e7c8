//! The repository's own pages, as a reader sees them: what the browser layout tests check
//! on a page, checked here on the content itself so `cargo test` catches it without a
//! browser.

mod support;

use glossary::pipeline::Project;
use glossary::render::inline::{render_inline, InlineContext};

/// Emphasis whose text holds `_` is an identifier Markdown read as emphasis:
/// `__launch_bounds__` written bare renders as bold "launch_bounds".
fn identifiers_read_as_emphasis(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [("<strong>", "</strong>"), ("<em>", "</em>")] {
        for part in html.split(open).skip(1) {
            let inner = part.split(close).next().unwrap_or_default();
            if inner.contains('_') && !inner.contains("<code") {
                found.push(inner.to_string());
            }
        }
    }
    found
}

#[test]
fn no_summary_of_the_repository_reads_an_identifier_as_emphasis() {
    let project = Project::load(&support::repo()).expect("the repository's content loads");
    let none = glossary::content::IdSet::default();
    let mut problems = Vec::new();
    for e in &project.content.entries {
        let cx = InlineContext {
            written_at: "",
            root: "",
            linkable: &none,
        };
        let html = render_inline(&e.meta.summary, &cx).html;
        for bad in identifiers_read_as_emphasis(&html) {
            problems.push(format!(
                "{}: summary shows `{bad}` as emphasis; put the identifier in backticks",
                e.path.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_catches_a_bare_dunder_identifier() {
    let none = glossary::content::IdSet::default();
    let cx = InlineContext {
        written_at: "",
        root: "",
        linkable: &none,
    };
    let bare = render_inline("what __launch_bounds__ does", &cx).html;
    assert_eq!(identifiers_read_as_emphasis(&bare), vec!["launch_bounds"]);
    let coded = render_inline("what `__launch_bounds__` does, **really**", &cx).html;
    assert!(identifiers_read_as_emphasis(&coded).is_empty(), "{coded}");
}
