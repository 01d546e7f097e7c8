//! Broken links stop the build with an error naming the file and line: one small broken
//! site per failure, each made from the fixture site by one edit.

mod support;
use support::signed as common;

use std::path::Path;

use common::*;

/// The fixture site with `line` appended to an entry's body; returns the failing build's
/// stderr and the 1-based line the link was written on.
fn build_with_link(entry: &str, line: &str) -> (String, usize, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let path = dir.path().join("content").join(entry);
    let mut text = read(&path);
    text.push_str(&format!("\n{line}\n"));
    let line_no = text.lines().count();
    std::fs::write(&path, text).expect("edit entry");
    let out = build(dir.path(), &["--drafts"]);
    assert!(!out.status.success(), "build should fail");
    (stderr(&out), line_no, dir)
}

#[test]
fn link_to_missing_page_names_file_and_line() {
    let (err, line, dir) = build_with_link(
        "terms/warp-scheduler.md",
        "See [nothing](../no-such-term/).",
    );
    assert!(
        err.contains(&format!(
            "terms/warp-scheduler.md:{line}:1: link to missing page `terms/no-such-term`"
        )),
        "{err}"
    );
    assert!(
        !dir.path().join("site").exists(),
        "a failed build writes nothing"
    );
}

#[test]
fn link_to_missing_heading_names_file_and_line() {
    let (err, line, _dir) = build_with_link(
        "lessons/day-1-fixture.md",
        "See [why](../../terms/warp-scheduler/#no-such-heading).",
    );
    assert!(
        err.contains(&format!(
            "lessons/day-1-fixture.md:{line}:1: link to missing heading `#no-such-heading` on `terms/warp-scheduler`"
        )),
        "{err}"
    );
}

#[test]
fn link_to_missing_static_file_names_file_and_line() {
    let (err, line, _dir) = build_with_link(
        "guides/fixture-guide.md",
        "Slides: [pdf](../../static/missing.pdf).",
    );
    assert!(
        err.contains(&format!(
            "guides/fixture-guide.md:{line}:1: link to missing page `/static/missing.pdf`"
        )),
        "{err}"
    );
}

#[test]
fn link_to_existing_static_file_and_site_files_pass() {
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let path = dir.path().join("content/guides/fixture-guide.md");
    let mut text = read(&path);
    text.push_str("\nStyles: [css](../../static/style.css), [feed](../../feed.xml).\n");
    std::fs::write(&path, text).expect("edit");
    sign_entries(dir.path(), &["terms/unsigned-draft"]);
    let out = build(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn broken_link_made_by_a_template_names_the_generated_page_and_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let template = dir.path().join("templates/entry_macros.html");
    let text = read(&template).replace(
        "<h1>{{ page.title }}</h1>",
        "<h1>{{ page.title }}</h1>\n<a href=\"{{ root }}nowhere/index.html\">x</a>",
    );
    std::fs::write(&template, text).expect("edit template");
    let out = build(dir.path(), &[]);
    let err = stderr(&out);
    assert!(!out.status.success());
    let page = read_generated_line(&err);
    assert!(
        err.contains("generated page terms/occupancy/index.html:"),
        "{err}"
    );
    assert!(
        err.contains("link `../../nowhere/index.html` to missing file `nowhere/index.html`"),
        "{err}"
    );
    assert!(page > 1, "a real line number: {err}");
}

fn read_generated_line(err: &str) -> usize {
    err.split("generated page terms/occupancy/index.html:")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[test]
fn the_repository_templates_make_no_broken_links() {
    // The fixture site builds with the real templates (search page, 404, feed links).
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let out = build(dir.path(), &["--drafts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(Path::new(&dir.path().join("site-drafts/search/index.html")).is_file());
}
