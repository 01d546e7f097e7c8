//! Issue 37, the back doors: ways around the publish gate a second security review found
//! after both people signed. Each test is one attack, run through the binary as an
//! attacker who can edit files would run it, and must be refused, naming what and why.
//! (The attacks the unit tests cover, at the rule itself: look-alike names in
//! `trust::people`, symlinked or oversized trust files in `trust::file` and
//! `trust::node`, remote resources under `allow_html` in `render::body_tests`, `//host`
//! links in `render::links` and `link_scheme`.)

mod support;
use support::site as common;

use common::Site;
use glossary::content::{EntryId, Kind};
use glossary::review::Role;

/// A whole 1×1 PNG: an inert file must decode (issue 53).
const PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0b\x49\x44\x41\x54\x78\x9c\x63\x60\x00\x02\x00\x00\x05\x00\x01\x7a\x5e\xab\x3f\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";
const EVIL: &str = "<!doctype html><script>alert(document.cookie)</script>\n";

fn key(person: &str) -> String {
    common::keys::key(person).private.display().to_string()
}

/// `review sign NAME --as ROLE` with `person`'s key, through the binary.
fn sign(site: &Site, name: &str, role: &str, person: &str) -> String {
    site.ok(&["review", "sign", name, "--as", role, "--key", &key(person)])
        .stdout
}

fn term(slug: &str, body: &str) -> String {
    format!("---\ntitle: What is {slug}?\nname: {slug}\nsummary: A term.\n---\n{body}\n")
}

/// A site with one term signed by both, and `static/` holding an inert CNAME and PNG.
fn site() -> Site {
    let site = Site::new("");
    site.write(
        "content/terms/warp.md",
        &term("warp", "The first paragraph."),
    );
    site.write("static/CNAME", "glossary.test\n");
    std::fs::write(site.path("static/logo.png"), PNG).unwrap();
    site
}

#[test]
fn an_unsigned_page_in_static_is_refused_and_published_once_both_sign() {
    let site = site();
    site.write("static/evil.html", EVIL);
    site.write("static/old/terms/x/index.html", "<p>a refused draft</p>");
    let b = site.ok(&["build"]);
    assert!(
        b.stdout.contains("refused static/evil.html: not inert: .html is not an inert type (PNG, JPEG, GIF, WebP, ICO and BMP images, TrueType and OpenType fonts, PDF, CNAME and .txt): a browser may run it or render it as a page; published only when signed like an entry: no named author has signed it; no named reviewer has signed it"),
        "{b:?}"
    );
    assert!(
        b.stdout.contains("refused static/old/terms/x/index.html"),
        "{b:?}"
    );
    assert!(!site.path("site/evil.html").exists());
    assert!(!site.path("site/old/terms/x/index.html").exists());
    // Inert files are copied as they are.
    assert_eq!(site.read("site/CNAME"), "glossary.test\n");
    assert_eq!(std::fs::read(site.path("site/logo.png")).unwrap(), PNG);

    // `review status` lists it like an entry.
    let s = site.ok(&["review", "status"]).stdout;
    assert!(
        s.lines()
            .any(|l| l.starts_with("static/evil.html") && l.contains("waiting for author")),
        "{s}"
    );
    // One person cannot sign it alone.
    sign(&site, "static/evil.html", "author", "author-a");
    let refused = site.run(&[
        "review",
        "sign",
        "static/evil.html",
        "--as",
        "reviewer",
        "--key",
        &key("author-a"),
    ]);
    assert!(!refused.ok, "{refused:?}");
    assert!(!site.path("site/evil.html").exists());
    let out = sign(&site, "static/evil.html", "reviewer", "reviewer-b");
    assert!(out.contains("signed static/evil.html as reviewer"), "{out}");
    site.ok(&["build"]);
    // Published as signed, with the signed pages' policy put first in its head (issue 53).
    let published = site.read("site/evil.html");
    assert_eq!(
        published.replacen(
            &published[published.find("<meta").unwrap()..=published.find("\">\n").unwrap() + 2],
            "",
            1
        ),
        "<!doctype html>\n<script>alert(document.cookie)</script>\n"
    );
    assert!(published.starts_with("<!doctype html>\n<meta http-equiv=\"Content-Security-Policy\""));

    // Changed after signing: withdrawn, and `review diff` shows the change.
    site.write("static/evil.html", "<script>steal()</script>\n");
    let b = site.ok(&["build"]);
    assert!(
        b.stdout.contains("refused static/evil.html")
            && b.stdout.contains("changed since reviewed by reviewer-b on"),
        "{b:?}"
    );
    assert!(!site.path("site/evil.html").exists());
    let d = site.ok(&["review", "diff", "static/evil.html"]).stdout;
    assert!(
        d.contains("-<!doctype html><script>alert(document.cookie)</script>"),
        "{d}"
    );
    assert!(d.contains("+<script>steal()</script>"), "{d}");
}

#[test]
fn a_page_disguised_as_an_image_or_text_needs_signatures() {
    let site = site();
    site.write("static/photo.png", EVIL);
    site.write("static/robots.txt", EVIL);
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("refused static/photo.png"), "{b:?}");
    assert!(b.stdout.contains("refused static/robots.txt"), "{b:?}");
    assert!(!site.path("site/photo.png").exists());
    assert!(!site.path("site/robots.txt").exists());
}

/// Issue 53: a file that is also a script is not inert, whatever its name: a `.txt` or
/// `CNAME` holding code, a GIF whose first bytes open a comment (a GIF/JavaScript
/// polyglot), a PDF that acts. Each needs signing, and unsigned is left out.
#[test]
fn files_that_are_also_scripts_are_not_inert() {
    let site = site();
    site.write("static/notes.txt", "window.pwned = 1\n");
    site.write("static/CNAME", "alert(document.domain)\n");
    std::fs::write(
        site.path("static/pixel.gif"),
        b"GIF89a/*\x01\x00\x01\x00\x00\x00\x00;*/=alert(1)//",
    )
    .unwrap();
    std::fs::write(
        site.path("static/doc.pdf"),
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
    )
    .unwrap();
    let b = site.ok(&["build"]);
    for (file, why) in [
        (
            "static/notes.txt",
            "it is named as plain text but holds `=`",
        ),
        ("static/CNAME", "CNAME must hold one host name"),
        (
            "static/pixel.gif",
            "it is named .gif, but it does not decode as Gif",
        ),
        ("static/doc.pdf", "it is named .pdf, but it"),
    ] {
        assert!(
            b.stdout
                .contains(&format!("refused {file}: not inert: {why}")),
            "{file}: {b:?}"
        );
        assert!(
            !site.path(&file.replace("static/", "site/")).exists(),
            "{file}"
        );
    }
    assert_eq!(std::fs::read(site.path("site/logo.png")).unwrap(), PNG);
}

#[test]
fn symlinks_and_generated_names_in_static_are_errors_naming_them() {
    let site = site();
    site.write("secret.key", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    std::os::unix::fs::symlink(site.path("secret.key"), site.path("static/key.txt")).unwrap();
    std::os::unix::fs::symlink(
        site.path("content/people.toml"),
        site.path("static/people.txt"),
    )
    .unwrap();
    site.write("static/reproduce/gemm/h200/bundle.json", "{}");
    site.write("static/search/index.json", "{}");
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    for what in [
        "static/key.txt: is a symlink",
        "static/people.txt: is a symlink",
        "static/reproduce: static/reproduce is a name the build writes",
        "static/search: static/search is a name the build writes",
    ] {
        assert!(b.stderr.contains(what), "{what}:\n{b:?}");
    }
    assert!(!site.path("site/key.txt").exists());
}

/// Sign `terms/warp` by both at `at`.
fn sign_entry_both(site: &Site, at: chrono::DateTime<chrono::Utc>) {
    let id = EntryId::new(Kind::Term, "warp");
    common::keys::sign_as(site.root(), &id, Role::Author, "author-a", at);
    common::keys::sign_as(site.root(), &id, Role::Reviewer, "reviewer-b", at);
}

fn at(rfc3339: &str) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .to_utc()
}

#[test]
fn an_older_version_put_back_with_its_sign_off_is_refused_as_a_rollback() {
    let site = site();
    sign_entry_both(&site, at("2026-10-01T10:00:00Z"));
    let v1 = site.read("content/terms/warp.md");
    let v1_signoff = site.read("content/reviews/terms/warp.yaml");
    // v2, the correction, signed by both later.
    site.write(
        "content/terms/warp.md",
        &term("warp", "The corrected paragraph."),
    );
    sign_entry_both(&site, at("2026-11-01T10:00:00Z"));
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");

    // The attack: v1 and its sign-off file put back.
    site.write("content/terms/warp.md", &v1);
    site.write("content/reviews/terms/warp.yaml", &v1_signoff);
    let b = site.ok(&["build"]);
    assert!(
        b.stdout
            .contains("refused terms/warp: rolled back: this is version sha256:")
            && b.stdout
                .contains("(signed by both on 2026-10-01), but version sha256:")
            && b.stdout.contains("was signed by both on 2026-11-01"),
        "{b:?}"
    );
    assert!(!site.path("site/terms/warp/index.html").exists());

    // Both sign the old text again: a new version, published.
    sign_entry_both(&site, at("2026-11-02T10:00:00Z"));
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");
    assert!(site
        .read("site/terms/warp/index.html")
        .contains("The first paragraph."));
}

/// v1 signed by both at `first`, v2 (the correction) at `second`; then v1's text and
/// sign-off file put back. Returns v1's log line.
fn put_back_v1(site: &Site, first: &str, second: &str) -> String {
    sign_entry_both(site, at(first));
    let v1 = site.read("content/terms/warp.md");
    let v1_signoff = site.read("content/reviews/terms/warp.yaml");
    let v1_line = site.read("content/reviews/log/terms/warp.jsonl");
    site.write(
        "content/terms/warp.md",
        &term("warp", "The corrected paragraph."),
    );
    sign_entry_both(site, at(second));
    let b = site.ok(&["build"]);
    assert!(b.stdout.contains("published 1, refused 0"), "{b:?}");
    site.write("content/terms/warp.md", &v1);
    site.write("content/reviews/terms/warp.yaml", &v1_signoff);
    v1_line.trim_end().to_string()
}

/// Issue 53: a log line's `signed` time is not believed. v1's own line appended again,
/// announcing a later time (its signatures still verify), does not make v1 the latest.
#[test]
fn an_old_log_line_re_announced_with_a_later_time_is_still_a_rollback() {
    let site = site();
    let line = put_back_v1(&site, "2026-10-01T10:00:00Z", "2026-11-01T10:00:00Z");
    let replayed = line.replace(
        r#""signed":"2026-10-01T10:00:00Z""#,
        r#""signed":"2026-12-01T10:00:00Z""#,
    );
    assert_ne!(replayed, line);
    let log = site.read("content/reviews/log/terms/warp.jsonl");
    site.write(
        "content/reviews/log/terms/warp.jsonl",
        &format!("{log}{replayed}\n"),
    );
    let b = site.ok(&["build"]);
    assert!(
        b.stdout.contains("refused terms/warp: rolled back"),
        "{b:?}"
    );
    assert!(!site.path("site/terms/warp/index.html").exists());
}

/// Issue 53: two versions signed by both within one second: the later in the log is the
/// latest, and the earlier put back is a rollback.
#[test]
fn of_two_versions_signed_in_one_second_the_earlier_put_back_is_a_rollback() {
    let site = site();
    put_back_v1(&site, "2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z");
    let b = site.ok(&["build"]);
    assert!(
        b.stdout.contains("refused terms/warp: rolled back"),
        "{b:?}"
    );
    assert!(!site.path("site/terms/warp/index.html").exists());
}

/// Issue 53: the log's folders and files are trust files. A symlinked `log/terms` (to an
/// empty folder: the log would read as absent) or a folder in place of `warp.jsonl` is
/// an error naming it, not "no log".
#[test]
fn a_symlinked_log_folder_or_a_folder_for_a_log_is_refused_by_name() {
    let site = site();
    put_back_v1(&site, "2026-10-01T10:00:00Z", "2026-11-01T10:00:00Z");
    let terms = site.path("content/reviews/log/terms");
    std::fs::rename(&terms, site.path("kept-log")).unwrap();
    std::fs::create_dir(site.path("empty")).unwrap();
    std::os::unix::fs::symlink(site.path("empty"), &terms).unwrap();
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    assert!(
        b.stderr.contains("content/reviews/log/terms") && b.stderr.contains("is a symlink"),
        "{b:?}"
    );
    // Nothing written: the site still holds v2.
    assert!(!site
        .read("site/terms/warp/index.html")
        .contains("The first paragraph."));

    std::fs::remove_file(&terms).unwrap();
    std::fs::create_dir_all(terms.join("warp.jsonl")).unwrap();
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    assert!(
        b.stderr.contains("content/reviews/log/terms/warp.jsonl")
            && b.stderr
                .contains("is a folder where a sign-off log file belongs"),
        "{b:?}"
    );
    // Nothing written: the site still holds v2.
    assert!(!site
        .read("site/terms/warp/index.html")
        .contains("The first paragraph."));
}

#[test]
fn a_display_name_changed_after_sign_off_does_not_reach_the_byline() {
    let site = site();
    site.write(
        "content/people.toml",
        &common::keys::people_toml(&[("author-a", "Author A"), ("reviewer-b", "Reviewer B")]),
    );
    sign_entry_both(&site, chrono::Utc::now());
    site.ok(&["build"]);
    let page = site.read("site/terms/warp/index.html");
    assert!(page.contains("Author A"), "{page}");

    site.write(
        "content/people.toml",
        &common::keys::people_toml(&[("author-a", "Mallory"), ("reviewer-b", "Reviewer B")]),
    );
    let b = site.ok(&["build"]);
    assert!(
        b.stdout.contains("the author `author-a` signed as \"Author A\", but content/people.toml now names them \"Mallory\""),
        "{b:?}"
    );
    assert!(!site.path("site/terms/warp/index.html").exists());
    // Signed again under the new name: published under it.
    common::keys::sign_as(
        site.root(),
        &EntryId::new(Kind::Term, "warp"),
        Role::Author,
        "author-a",
        chrono::Utc::now(),
    );
    site.ok(&["build"]);
    assert!(site.read("site/terms/warp/index.html").contains("Mallory"));
}

#[test]
fn a_symlinked_registry_or_signature_file_is_refused_by_name() {
    let site = site();
    sign_entry_both(&site, chrono::Utc::now());
    // The sign-off file moved out of the project, a link left in its place.
    let outside = tempfile::tempdir().unwrap();
    let moved = outside.path().join("warp.yaml");
    std::fs::rename(site.path("content/reviews/terms/warp.yaml"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, site.path("content/reviews/terms/warp.yaml")).unwrap();
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    assert!(
        b.stderr
            .contains("content/reviews/terms/warp.yaml: is a symlink"),
        "{b:?}"
    );

    std::fs::remove_file(site.path("content/reviews/terms/warp.yaml")).unwrap();
    std::fs::rename(&moved, site.path("content/reviews/terms/warp.yaml")).unwrap();
    // glossary.toml, which holds the nodes' keys, likewise.
    let config = outside.path().join("glossary.toml");
    std::fs::rename(site.path("glossary.toml"), &config).unwrap();
    std::os::unix::fs::symlink(&config, site.path("glossary.toml")).unwrap();
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    assert!(
        b.stderr.contains("glossary.toml") && b.stderr.contains("is a symlink"),
        "{b:?}"
    );
    std::fs::remove_file(site.path("glossary.toml")).unwrap();
    std::fs::rename(&config, site.path("glossary.toml")).unwrap();

    let people = outside.path().join("people.toml");
    std::fs::rename(site.path("content/people.toml"), &people).unwrap();
    std::os::unix::fs::symlink(&people, site.path("content/people.toml")).unwrap();
    let b = site.run(&["build"]);
    assert!(!b.ok, "{b:?}");
    assert!(
        b.stderr.contains("content/people.toml: is a symlink"),
        "{b:?}"
    );
}

/// Every top-level name a build writes is one `static/` may not use: a static file can
/// neither replace nor hide among generated files (issue 37: `static/reproduce/...` was
/// ignored silently).
#[test]
fn static_may_use_no_name_the_build_writes() {
    let dir = support::valid_site();
    let root = dir.path();
    support::sign_valid_site(root);
    let out = support::run(root, &["build"]);
    assert!(out.status.success(), "{}", support::text(&out));
    assert!(
        root.join("site/reproduce").is_dir(),
        "the fixture writes bundles"
    );
    for item in std::fs::read_dir(root.join("site")).unwrap() {
        let name = item.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            glossary::site::static_files::GENERATED.contains(&name.as_str()),
            "the build writes {name}, which static/ could still use"
        );
    }
}
