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
