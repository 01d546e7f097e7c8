//! `redirect_from:`: redirect pages at an entry's old paths, and the paths refused.

mod support;
use support::*;

fn add_front_matter(root: &std::path::Path, rel: &str, yaml: &str) {
    let text = read(root, rel).replacen("---\n", &format!("---\n{yaml}"), 1);
    write(root, rel, &text);
}

#[test]
fn each_old_path_gets_a_redirect_page_to_the_entry() {
    let dir = valid_site();
    let root = dir.path();
    add_front_matter(
        root,
        "content/terms/alpha.md",
        "redirect_from:\n  - /gpu-glossary/basics/alpha\n  - /old/alpha.html\n  - terms/first-letter/\n",
    );
    sign_valid_site(root);
    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    for (file, target) in [
        (
            "site/gpu-glossary/basics/alpha/index.html",
            "../../../terms/alpha/index.html",
        ),
        ("site/old/alpha.html", "../terms/alpha/index.html"),
        (
            "site/terms/first-letter/index.html",
            "../../terms/alpha/index.html",
        ),
    ] {
        let html = read(root, file);
        assert!(
            html.contains(&format!(
                "<meta http-equiv=\"refresh\" content=\"0; url={target}\">"
            )),
            "{file}: {html}"
        );
        assert!(
            html.contains("<link rel=\"canonical\" href=\"https://glossary.test/terms/alpha/\">")
        );
        assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
        assert!(
            html.contains(&format!("<a href=\"{target}\">alpha</a>")),
            "{html}"
        );
        // The target is a page the build wrote.
        let dir = root.join(file);
        let landed = dir.parent().unwrap().join(target);
        assert!(landed.is_file(), "{}", landed.display());
    }
    // Not in the sitemap: the old paths are not pages.
    assert!(!read(root, "site/sitemap.xml").contains("gpu-glossary"));
}

/// A preview of a migration tries its old URLs before anything is signed: `build --drafts`
/// writes the redirect pages of the drafts it shows; a plain build, which publishes none of
/// them, writes none.
#[test]
fn a_drafts_build_writes_the_redirect_pages_of_its_drafts() {
    let dir = valid_site();
    let root = dir.path();
    add_front_matter(
        root,
        "content/terms/alpha.md",
        "redirect_from: [/gpu-glossary/basics/alpha]\n",
    );
    let out = run(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = read(root, "site-drafts/gpu-glossary/basics/alpha/index.html");
    assert!(
        html.contains("url=../../../terms/alpha/index.html"),
        "{html}"
    );
    assert!(root.join("site-drafts/terms/alpha/index.html").is_file());
    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!root.join("site/gpu-glossary").exists());
}

#[test]
fn clashing_and_unsafe_paths_are_errors_at_their_lines_all_in_one_run() {
    let dir = valid_site();
    let root = dir.path();
    add_front_matter(
        root,
        "content/terms/alpha.md",
        "redirect_from:\n  - /gpu-glossary/alpha\n  - /terms/beta/\n  - ../../etc/passwd\n  - https://evil.example/x\n  - /search/index.html\n  - /nodes\n",
    );
    add_front_matter(
        root,
        "content/terms/beta.md",
        "redirect_from: [gpu-glossary/alpha/]\n",
    );
    sign_valid_site(root);
    let before = run(root, &["build"]);
    assert!(!before.status.success());
    let t = text(&before);
    for (at, what) in [
        ("content/terms/alpha.md:4:", "is the page of `terms/beta`"),
        ("content/terms/alpha.md:5:", "has a `..` segment"),
        ("content/terms/alpha.md:6:", "scheme"),
        ("content/terms/alpha.md:7:", "which the build writes itself"),
        // The verification nodes page: a list of its own once let this one through.
        (
            "content/terms/alpha.md:8:",
            "is under `nodes`, which the build writes itself",
        ),
        (
            "content/terms/beta.md:2:",
            "is also claimed by `terms/alpha`",
        ),
    ] {
        assert!(
            t.lines().any(|l| l.contains(at) && l.contains(what)),
            "{at} {what}:\n{t}"
        );
    }
    assert!(!root.join("site").exists(), "a failed build writes no site");
}

/// `review sign static/REL` by both fixture people, through the binary.
fn sign_static(root: &std::path::Path, rel: &str) {
    for (role, person) in [("author", "author-a"), ("reviewer", "reviewer-b")] {
        let key = support::keys::key(person).private.display().to_string();
        let out = run(
            root,
            &[
                "review",
                "sign",
                &format!("static/{rel}"),
                "--as",
                role,
                "--key",
                &key,
            ],
        );
        assert!(out.status.success(), "{}", text(&out));
    }
}

/// Issue 53: a redirect may not take the place of a published `static/` file (a signed
/// page, or an inert file) nor need a folder where one is: an error naming the entry's
/// file and the static file, not a silent replacement nor "File exists (os error 17)".
#[test]
fn a_redirect_onto_a_static_file_is_an_error_naming_both() {
    let dir = valid_site();
    let root = dir.path();
    write(
        root,
        "static/old/page.html",
        "<!doctype html><p>signed page</p>\n",
    );
    write(root, "static/notes.txt", "plain notes\n");
    sign_valid_site(root);
    sign_static(root, "old/page.html");
    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(read(root, "site/old/page.html").ends_with("<p>signed page</p>\n"));
    for (redirect, site_file, static_file, why) in [
        (
            "/old/page.html",
            "old/page.html",
            "static/old/page.html",
            "would replace the published static file",
        ),
        (
            "/notes.txt/",
            "notes.txt/index.html",
            "static/notes.txt",
            "needs a folder where there is the static file",
        ),
    ] {
        let dir = valid_site();
        let root = dir.path();
        write(
            root,
            "static/old/page.html",
            "<!doctype html><p>signed page</p>\n",
        );
        write(root, "static/notes.txt", "plain notes\n");
        add_front_matter(
            root,
            "content/terms/alpha.md",
            &format!("redirect_from:\n  - {redirect}\n"),
        );
        sign_valid_site(root);
        sign_static(root, "old/page.html");
        let out = run(root, &["build"]);
        let all = text(&out);
        assert!(!out.status.success(), "{redirect}: {all}");
        assert!(
            all.contains("content/terms/alpha.md")
                && all.contains(&format!(
                    "redirect_from `{redirect}` of `terms/alpha` (site file {site_file}) {why}"
                ))
                && all.contains(static_file),
            "{redirect}: {all}"
        );
        assert!(!all.contains("os error 17"), "{all}");
    }
}
