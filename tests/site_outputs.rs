//! What a reader and a search engine get from a build: search index, sitemap, feed, 404,
//! highlighted code and charts, with drafts kept out of everything site-wide.

mod support;
use support::signed as common;

use common::*;

fn built(drafts: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    small_site(dir.path());
    let out = build(dir.path(), if drafts { &["--drafts"] } else { &[] });
    assert!(out.status.success(), "build failed: {}", stderr(&out));
    let site = dir.path().join(if drafts { "site-drafts" } else { "site" });
    (dir, site)
}

#[test]
fn search_index_holds_published_entries_only() {
    // The shard layout and lookups are tested in tests/search_shards.rs.
    let (_dir, site) = built(false);
    let mut all = String::new();
    for file in std::fs::read_dir(site.join("search")).expect("search/") {
        all.push_str(&read(&file.expect("entry").path()));
    }
    assert!(all.contains("\"terms/occupancy/index.html\""));
    assert!(all.contains("\"lessons/day-1-fixture/index.html\""));
    assert!(all.contains("\"What is occupancy in CUDA?\"") || all.contains("\"occupancy\""));
    assert!(
        !all.contains("unsigned-draft"),
        "drafts stay out of the site's search"
    );
    assert!(!all.contains("draftonlyword"));
    assert!(!site.join("search-index.js").exists());
}

#[test]
fn a_drafts_preview_searches_what_it_shows_in_its_own_index() {
    let (_dir, site) = built(true);
    let mut all = String::new();
    for file in std::fs::read_dir(site.join("search")).expect("search/") {
        all.push_str(&read(&file.expect("entry").path()));
    }
    assert!(all.contains("\"terms/occupancy/index.html\""));
    assert!(
        all.contains("unsigned-draft"),
        "the preview's draft is searchable there"
    );
}

#[test]
fn sitemap_and_feed_list_published_entries_at_canonical_urls() {
    let (_dir, site) = built(true);
    let sitemap = read(&site.join("sitemap.xml"));
    assert!(sitemap.contains("<loc>https://fixture.example.org/gpu/terms/occupancy/</loc>"));
    assert!(sitemap.contains("<loc>https://fixture.example.org/gpu/</loc>"));
    assert!(sitemap.contains("<lastmod>2026-11-02</lastmod>"));
    assert!(!sitemap.contains("unsigned-draft"));
    let feed = read(&site.join("feed.xml"));
    assert!(feed.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
    assert!(feed.contains("<id>https://fixture.example.org/gpu/guides/fixture-guide/</id>"));
    assert!(feed.contains("<updated>2026-11-02T00:00:00Z</updated>"));
    assert!(feed.contains("<name>author-a</name>"));
    assert!(!feed.contains("unsigned-draft"));
    let page = read(&site.join("terms/occupancy/index.html"));
    assert!(page.contains(
        r#"<link rel="canonical" href="https://fixture.example.org/gpu/terms/occupancy/">"#
    ));
}

#[test]
fn not_found_page_links_from_the_base_path() {
    let (_dir, site) = built(false);
    let page = read(&site.join("404.html"));
    assert!(page.contains("Page not found"));
    assert!(page.contains(r#"href="/gpu/static/style.css""#), "{page}");
}

#[test]
fn cuda_code_is_highlighted_at_build_time() {
    let (_dir, site) = built(false);
    let page = read(&site.join("terms/occupancy/index.html"));
    assert!(page.contains(r#"<code class="language-cuda">"#));
    assert!(page.contains(r#"<span class="hl-cuda">__global__</span>"#));
    assert!(page.contains(r#"<span class="hl-cuda">__shared__</span>"#));
    assert!(page.contains(r#"<span class="hl-builtin">__syncthreads</span>"#));
    assert!(page.contains(r#"<span class="hl-comment">// launch: scale&lt;&lt;&lt;(n + 255) / 256, 256&gt;&gt;&gt;(2.0f, d_y, n);</span>"#));
}

#[test]
fn measured_table_is_also_an_accessible_bar_chart_of_gbps() {
    let (_dir, site) = built(false);
    let page = read(&site.join("terms/occupancy/index.html"));
    assert!(
        page.contains(r#"<svg class="bar-chart" role="img""#),
        "{page}"
    );
    assert!(page.contains(
        "<title>Bar chart of bandwidth (GB/s) by label: full 400.0, half 300.0, quarter 200.0.</title>"
    ));
}

#[test]
fn drafts_are_kept_out_without_the_flag() {
    let (_dir, site) = built(false);
    assert!(!site.join("terms/unsigned-draft/index.html").exists());
    let page = read(&site.join("terms/occupancy/index.html"));
    // occupancy relates to it, but an unpublished entry's name and summary were never
    // signed: they are left out, not shown as text.
    assert!(
        !page.contains("unsigned draft"),
        "an unpublished related term is named"
    );
    assert!(!page.contains("unsigned-draft/index.html"));
    assert!(page.contains("warp-scheduler/index.html"), "{page}");
}
