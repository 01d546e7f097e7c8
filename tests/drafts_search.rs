//! A `--drafts` preview's search indexes what the preview shows, in its own index; the
//! site's own index, sitemap and feed hold published entries only.

mod support;
use support::*;

/// Every file of the search index under `site`, as one text.
fn search_index(site: &std::path::Path) -> String {
    let mut all = String::new();
    for item in walkdir::WalkDir::new(site.join("search")) {
        let item = item.expect("walk");
        if item.file_type().is_file() {
            all.push_str(&String::from_utf8_lossy(
                &std::fs::read(item.path()).expect("read"),
            ));
        }
    }
    all
}

#[test]
fn the_drafts_preview_searches_its_drafts_and_the_site_does_not() {
    let dir = valid_site();
    let root = dir.path();
    // The guide stays unsigned: a draft. Its name and a body word are searched for.
    write(
        root,
        "content/guides/reading-alpha.md",
        "---\ntitle: Reading alpha\nsummary: How to read alpha.\nterms: [alpha]\n---\nRead [alpha](../../terms/alpha/#details) with zyzzyva care.\n",
    );
    sign_terms_and_lesson(root);

    let out = run(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let preview = search_index(&root.join("site-drafts"));
    assert!(
        preview.contains("Reading alpha"),
        "the draft is searchable in the preview"
    );
    assert!(preview.contains("zyzzyva"), "its body words too");
    assert!(preview.contains("beta"), "and the published entries");
    // The preview's sitemap and feed still list published entries only.
    assert!(!read(root, "site-drafts/sitemap.xml").contains("reading-alpha"));
    assert!(!read(root, "site-drafts/feed.xml").contains("reading-alpha"));

    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let site = search_index(&root.join("site"));
    assert!(site.contains("beta"));
    assert!(
        !site.contains("Reading alpha") && !site.contains("zyzzyva"),
        "no draft in the site's index"
    );
}
