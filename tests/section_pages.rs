//! Section intro pages (`content/sections/<slug>.md`): signed and gated like any entry,
//! shown at the section's URL, heading its group in the sidebar and on the home page.

mod support;
use glossary::content::Kind;
use support::*;

fn site_with_sections() -> tempfile::TempDir {
    let dir = valid_site();
    let root = dir.path();
    // `[[sections]]` is an array of tables: it goes after the top-level keys, before the
    // `[nodes]` tables.
    let config = read(root, "glossary.toml").replacen(
        "\n[nodes.",
        "\n[[sections]]\nslug = \"basics\"\ntitle = \"The basics\"\n\n[nodes.",
        1,
    );
    write(root, "glossary.toml", &config);
    for slug in ["alpha", "beta"] {
        let path = format!("content/terms/{slug}.md");
        let text = read(root, &path).replacen("---\n", "---\nsection: basics\n", 1);
        write(root, &path, &text);
    }
    write(
        root,
        "content/sections/basics.md",
        "---\ntitle: The basics\nsummary: \"Where to start: [alpha](../../terms/alpha/) and its neighbours.\"\n---\nThis section introduces the first two terms.\n",
    );
    dir
}

#[test]
fn a_signed_section_page_is_at_the_section_url_and_heads_its_group() {
    let dir = site_with_sections();
    let root = dir.path();
    sign_valid_site(root);
    sign_by_two(root, Kind::Section, "basics");
    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = read(root, "site/sections/basics/index.html");
    assert!(page.contains("<h1>The basics</h1>"), "{page}");
    assert!(page.contains("This section introduces the first two terms."));
    assert!(
        !page.contains("Interpretation guide"),
        "no guide label: {page}"
    );
    // The head of its own sidebar group, marked as the current page, and not listed again.
    assert!(
        page.contains("<a href=\"../../sections/basics/index.html\" aria-current=\"page\">The basics</a></h3>"),
        "{page}"
    );
    assert_eq!(
        page.matches("sections/basics/index.html\"").count(),
        1,
        "{page}"
    );
    let term = read(root, "site/terms/alpha/index.html");
    assert!(
        term.contains("><a href=\"../../sections/basics/index.html\">The basics</a></h3>"),
        "{term}"
    );
    let home = read(root, "site/index.html");
    assert!(
        home.contains("<h3><a href=\"sections/basics/index.html\">The basics</a></h3>"),
        "{home}"
    );
    // Not a guide: the home page's guide list does not hold it.
    let guides = home.split("id=\"guides\"").nth(1).unwrap_or_default();
    assert!(!guides.contains("sections/basics"), "{guides}");
}

/// A section page lists the section's pages below its body: name and summary, in the
/// section's order (`order:` first), and only pages the build publishes, as the sidebar
/// does.
#[test]
fn a_section_page_lists_its_published_terms_in_order_below_its_body() {
    let dir = site_with_sections();
    let root = dir.path();
    for (slug, order, summary) in [
        ("alpha", 2, "Alpha is the first test term."),
        ("beta", 1, "beta is a test term."),
        ("gamma", 3, "gamma is a test term."),
    ] {
        let path = format!("content/terms/{slug}.md");
        let mut text = read(root, &path).replacen("---\n", &format!("---\norder: {order}\n"), 1);
        if slug == "gamma" {
            text = text.replacen("---\n", "---\nsection: basics\n", 1);
        }
        assert!(text.contains(summary));
        write(root, &path, &text);
    }
    // gamma is in the section but unsigned: not published, not listed.
    for slug in ["alpha", "beta", "delta"] {
        sign_by_two(root, Kind::Term, slug);
    }
    sign_by_two(root, Kind::Section, "basics");
    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = read(root, "site/sections/basics/index.html");
    let body = page.find("This section introduces").expect("the body");
    let list = page
        .find("<h2 id=\"in-this-section\">In this section</h2>")
        .expect("the list");
    assert!(body < list, "the list comes below the body");
    let list = &page[list..page[list..].find("</section>").unwrap() + list];
    assert_eq!(
        list.matches("<li>").count(),
        2,
        "alpha and beta, not the unpublished gamma: {list}"
    );
    let beta = list.find("<a href=\"../../terms/beta/index.html\">beta</a> — <span class=\"summary\">beta is a test term.</span>");
    let alpha = list.find("<a href=\"../../terms/alpha/index.html\">alpha</a> — <span class=\"summary\">Alpha is the first test term.</span>");
    assert!(beta.is_some() && alpha.is_some(), "{list}");
    assert!(beta < alpha, "in the section's order: {list}");
    assert!(!list.contains("gamma"), "{list}");
    // A drafts preview lists what it shows: gamma too, marked.
    let out = run(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = read(root, "site-drafts/sections/basics/index.html");
    let list = &page[page.find("id=\"in-this-section\"").expect("the list")..];
    assert!(
        list.contains("terms/gamma/index.html\">gamma</a> <span class=\"draft-tag\">draft</span>"),
        "{list}"
    );
}

#[test]
fn an_unsigned_section_page_is_gated_and_the_group_title_stays_text() {
    let dir = site_with_sections();
    let root = dir.path();
    sign_valid_site(root);
    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!root.join("site/sections/basics/index.html").exists());
    let home = read(root, "site/index.html");
    assert!(home.contains("<h3>The basics</h3>"), "{home}");
    let check = run(root, &["check"]);
    assert!(
        text(&check).contains("sections/basics"),
        "the gate names the unsigned section page: {}",
        text(&check)
    );
}

#[test]
fn a_section_page_for_no_declared_section_is_an_error() {
    let dir = site_with_sections();
    let root = dir.path();
    write(
        root,
        "content/sections/advanced.md",
        "---\ntitle: Advanced\nsummary: Later.\n---\nBody.\n",
    );
    write(
        root,
        "content/sections/basics.md",
        "---\ntitle: The basics\nsummary: s\nsection: advanced\n---\nBody.\n",
    );
    let out = run(root, &["check"]);
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(
        t.contains("content/sections/advanced.md") && t.contains("`advanced` is no section"),
        "{t}"
    );
    assert!(
        t.contains("content/sections/basics.md:4") && t.contains("remove `section: advanced`"),
        "{t}"
    );
}
