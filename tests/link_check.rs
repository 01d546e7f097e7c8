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

/// A link to an old address that an entry now redirects from names the entry that lives
/// there now; and a missing path is shown as written, without a slash added.
#[test]
fn link_to_an_old_path_names_the_entry_that_moved_from_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let moved = dir.path().join("content/terms/warp-scheduler.md");
    let text = read(&moved).replacen(
        "---\n",
        "---\nredirect_from: [/gpu-glossary/device-software/warp-scheduler]\n",
        1,
    );
    std::fs::write(&moved, text).expect("edit");
    let linking = dir.path().join("content/guides/fixture-guide.md");
    let mut text = read(&linking);
    text.push_str("\nOld: [it](/gpu-glossary/device-software/warp-scheduler).\n");
    let old_line = text.lines().count();
    text.push_str("\nGone: [it](/gpu-glossary/device-software/nothing).\n");
    let gone_line = text.lines().count();
    std::fs::write(&linking, text).expect("edit");
    let out = build(dir.path(), &["--drafts"]);
    assert!(!out.status.success(), "build should fail");
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "guides/fixture-guide.md:{old_line}:1: link to `/gpu-glossary/device-software/warp-scheduler`, an old path of `terms/warp-scheduler` (its `redirect_from`): link to the entry itself, `/terms/warp-scheduler/`"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "guides/fixture-guide.md:{gone_line}:1: link to missing page `/gpu-glossary/device-software/nothing`"
        )),
        "{err}"
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
    // Every entry page has the link: one error, at the first page (in path order), saying
    // how many more have it.
    let broken = "link `../../nowhere/index.html` to missing file `nowhere/index.html`";
    assert_eq!(err.matches(broken).count(), 1, "{err}");
    let line = err.lines().find(|l| l.contains(broken)).unwrap_or_default();
    let page = read_generated_line(line);
    assert!(line.contains("generated page guides/"), "{err}");
    assert!(page > 1, "a real line number: {err}");
    let more: usize = line
        .rsplit("; the same on ")
        .next()
        .and_then(|rest| rest.strip_suffix(" more generated pages"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    // The fixture's published guide, lessons and terms: every one but the first.
    assert!(more >= 2, "{err}");
}

fn read_generated_line(line: &str) -> usize {
    line.split(".html:")
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

/// A project of the repository's templates and the given terms (slug, body), each citing
/// a source (so its page has the template's "Sources" section), built as drafts: (whether
/// it built, what it printed, the project). A body starts on file line 9.
fn build_terms(terms: &[(&str, &str)]) -> (bool, String, tempfile::TempDir) {
    let site = support::empty_site();
    let sources = "sources:\n  - title: Doc\n    url: https://docs.nvidia.com/cuda/\n    checked: 2026-12-01\n";
    for (slug, body) in terms {
        let text = support::term(&format!("What is {slug}?"), "S.", sources, body);
        support::write(site.path(), &format!("content/terms/{slug}.md"), &text);
    }
    let out = support::run(site.path(), &["build", "--drafts"]);
    (out.status.success(), support::text(&out), site)
}

/// Every `id="…"` value of a generated page, in order.
fn ids_of(html: &str) -> Vec<&str> {
    html.split(" id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

#[test]
fn body_ids_never_repeat_a_template_id_or_each_other() {
    let body = "## Sources\n\n## Measured\n\n## Related terms\n\n## On this page\n\n## Main\n\n\
                Note[^sources] and[^1] and[^a b].\n\n## 1\n\n[^sources]: s\n[^1]: one\n[^a b]: ab\n";
    let (ok, printed, site) = build_terms(&[("a", body)]);
    assert!(ok, "{printed}");
    let html = support::read(site.path(), "site-drafts/terms/a/index.html");
    let ids = ids_of(&html);
    let mut seen = std::collections::HashSet::new();
    for id in &ids {
        assert!(seen.insert(id), "id `{id}` twice in {ids:?}");
        assert!(!id.contains(' '), "id `{id}` holds a space");
    }
    for id in [
        "sources-1",
        "measured-1",
        "main-1",
        "related-terms",
        "1-1",
        "a-b",
    ] {
        assert!(ids.contains(&id), "{id} not in {ids:?}");
    }
    // The skip link still reaches the main element, and a footnote its definition.
    assert!(html.contains("<main id=\"main\""), "{html}");
    assert!(html.contains("href=\"#a-b\""), "{html}");
}

#[test]
fn explicit_heading_id_that_repeats_one_is_an_error_at_its_line() {
    let (ok, printed, _site) =
        build_terms(&[("a", "## A {#x}\n\n## B {#x}\n\n## Sources {#sources}\n")]);
    assert!(!ok, "{printed}");
    assert!(
        printed
            .contains("terms/a.md:11:1: heading id `{#x}` is already used on this page (line 9)"),
        "{printed}"
    );
    assert!(
        printed.contains(
            "terms/a.md:13:1: heading id `{#sources}` is already used by the page template"
        ),
        "{printed}"
    );
}

#[test]
fn links_to_the_templates_own_sections_pass() {
    let (ok, printed, site) = build_terms(&[
        ("a", "[see the sources](#sources) and [top](#)"),
        ("b", "[a's sources](../a/#sources)"),
    ]);
    assert!(ok, "{printed}");
    let html = support::read(site.path(), "site-drafts/terms/a/index.html");
    assert!(
        html.contains("<a href=\"#sources\">see the sources</a>"),
        "{html}"
    );
    assert!(html.contains("<a href=\"#\">top</a>"), "{html}");
}

#[test]
fn root_absolute_and_query_links_are_checked_and_written_relative() {
    let (ok, printed, site) = build_terms(&[
        (
            "a",
            "[b](/terms/b/) [q](../b/?x=1#c) [home](/)\n\n[mail](mailto:a@example.org)",
        ),
        ("b", "## C\n"),
    ]);
    assert!(ok, "{printed}");
    let html = support::read(site.path(), "site-drafts/terms/a/index.html");
    for link in [
        "<a href=\"../../terms/b/index.html\">b</a>",
        "<a href=\"../b/index.html?x=1#c\">q</a>",
        "<a href=\"../../index.html\">home</a>",
        "<a href=\"mailto:a@example.org\">mail</a>",
    ] {
        assert!(html.contains(link), "{link} not in {html}");
    }
    // Schemes other than http, https and mailto are not links (`link_scheme`).
    let (ok, printed, _site) =
        build_terms(&[("a", "[tel](tel:+15551234) [news](news:comp.lang.c)")]);
    assert!(!ok);
    assert!(
        printed.contains("terms/a.md:9:1: link `tel:+15551234` has the scheme `tel:`")
            && printed.contains("terms/a.md:9:1: link `news:comp.lang.c` has the scheme `news:`"),
        "{printed}"
    );
    // A root-absolute link to a missing page is refused like a relative one.
    let (ok, printed, _site) = build_terms(&[("a", "[x](/terms/nope/)")]);
    assert!(!ok);
    assert!(
        printed.contains("terms/a.md:9:1: link to missing page `terms/nope`"),
        "{printed}"
    );
}

#[test]
fn percent_encoded_links_and_images_are_decoded_to_check_and_encoded_to_write() {
    let site = support::empty_site();
    let body = "![x](my%20pic.png) ![y](<my pic.png>) [h](#%D0%BF)\n\n## п\n";
    let text = support::term("What is a?", "S.", "", body);
    support::write(site.path(), "content/terms/a.md", &text);
    std::fs::write(
        site.path().join("content/terms/my pic.png"),
        b"\x89PNG\r\n\x1a\n",
    )
    .expect("image");
    let out = support::run(site.path(), &["build", "--drafts"]);
    assert!(out.status.success(), "{}", support::text(&out));
    let html = support::read(site.path(), "site-drafts/terms/a/index.html");
    assert!(!html.contains("my pic.png"), "a raw space in a URL: {html}");
    assert!(
        html.contains("src=\"../../media/terms/my%20pic.png\" alt=\"y\""),
        "{html}"
    );
    assert!(html.contains("href=\"#%D0%BF\""), "{html}");
}
