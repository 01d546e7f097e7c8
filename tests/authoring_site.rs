//! Front matter for real glossaries, as a reader sees it in the built pages: aliases,
//! sections and reading order (sidebar, previous/next, A-Z index with jump links), the
//! per-page contents list, credit and licence, the footer from glossary.toml, inline
//! Markdown in summaries, and links that work when the site is opened from disk. And the
//! errors a mistake in any of them gives, at the file's line.

mod support;
use support::signed as common;

use std::path::Path;

use common::{build, read, sign_entries};
use support::stderr;

const CONFIG: &str = r#"title = "Test Glossary"
base_url = "https://example.org"
description = "A site for the authoring test."
footer = "Written for a test. See [the guide](guides/reading/) or [the project](https://example.org/about)."

[[sections]]
slug = "hardware"
title = "Device hardware"

[[sections]]
slug = "software"
title = "Programming model"
"#;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A small glossary using every new field; templates are the repository's.
fn site(root: &Path) {
    write(root, "glossary.toml", CONFIG);
    support::copy_dir(&support::repo().join("templates"), &root.join("templates"));
    write(
        root,
        "content/terms/sm.md",
        "---\ntitle: What is a Streaming Multiprocessor?\nname: Streaming Multiprocessor\naliases: [SM, multiprocessor]\nsummary: Holds [warps](../warp/) and their `registers`.\nsection: hardware\norder: 1\nrelated: [warp]\n---\nAn SM runs [warps](../warp/#lanes) and [blocks](../block/).\n",
    );
    write(
        root,
        "content/terms/warp.md",
        "---\ntitle: What is a warp?\nname: warp\nsummary: Thirty-two threads scheduled together.\nsection: hardware\norder: 2\n---\n## Lanes\n\nEach thread is a lane.\n",
    );
    write(
        root,
        "content/terms/block.md",
        "---\ntitle: What is a thread block?\nname: thread block\naliases: [CTA]\nsummary: Threads that share an SM.\nsection: software\n---\nBlocks run on one SM.\n",
    );
    write(
        root,
        "content/terms/syncthreads.md",
        "---\ntitle: What does __syncthreads do?\nname: __syncthreads\nsummary: A barrier for one block.\n---\nEvery thread waits.\n",
    );
    write(
        root,
        "content/guides/reading.md",
        "---\ntitle: Reading a profile\nsummary: What to look at first.\nsection: software\norder: 1\ncredit: \"Adapted from *Profile notes* by the test authors\"\nlicense: \"[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/)\"\nterms: [sm]\n---\n## First\n\nText.\n\n## Second\n\nText.\n\n### Detail\n\nText.\n",
    );
}

fn built(drafts: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    site(dir.path());
    let out = if drafts {
        build(dir.path(), &["--drafts"])
    } else {
        support::keys::write_people(dir.path());
        sign_entries(dir.path(), &[]);
        build(dir.path(), &[])
    };
    assert!(out.status.success(), "{}", stderr(&out));
    // A drafts preview is written to its own folder, never over the deployable site.
    let site = dir.path().join(if drafts { "site-drafts" } else { "site" });
    (dir, site)
}

#[test]
fn aliases_show_with_the_title_and_in_the_index() {
    let (_dir, site) = built(false);
    let sm = read(&site.join("terms/sm/index.html"));
    assert!(
        sm.contains("Also called <b>SM</b>, <b>multiprocessor</b>"),
        "{sm}"
    );
    let index = read(&site.join("index.html"));
    // The alias is its own A-Z row, under its own letter, pointing at the entry.
    let m_row = index
        .find("<dt class=\"alias\">multiprocessor</dt><dd class=\"see\">see <a href=\"terms/sm/index.html\">Streaming Multiprocessor</a></dd>")
        .expect("alias row for multiprocessor");
    let letter_m = index.find("id=\"letter-m\"").expect("letter M");
    let letter_s = index.find("id=\"letter-s\"").expect("letter S");
    assert!(letter_m < m_row && m_row < letter_s, "{index}");
    assert!(index.contains("<dt class=\"alias\">CTA</dt>"), "{index}");
    // __syncthreads sorts under S, not under a symbol.
    let az = index.find("id=\"terms-az\"").expect("A-Z section");
    let sync = az
        + index[az..]
            .find(">__syncthreads</a>")
            .expect("syncthreads row");
    assert!(sync > letter_s, "{index}");
    // The feed carries the summary as plain text.
    let feed = read(&site.join("feed.xml"));
    assert!(
        feed.contains("<summary>Holds warps and their registers.</summary>"),
        "{feed}"
    );
}

#[test]
fn index_has_a_jump_bar_with_every_letter_and_links_only_where_names_start() {
    let (_dir, site) = built(true);
    let index = read(&site.join("index.html"));
    let bar = index
        .split("<nav class=\"jump\" aria-label=\"Jump to letter\">")
        .nth(1)
        .and_then(|s| s.split("</nav>").next())
        .expect("jump bar");
    for used in ["c", "m", "s", "t", "w"] {
        assert!(bar.contains(&format!("href=\"#letter-{used}\"")), "{bar}");
        assert!(index.contains(&format!("id=\"letter-{used}\"")), "{index}");
    }
    assert!(bar.contains("<span class=\"unused\">Q</span>"), "{bar}");
    assert!(!bar.contains("#letter-q"), "{bar}");
}

/// Names with accents file under their base letter and sort with it; a Greek name gets
/// its own group after Z, linked from the jump bar after the A-Z letters.
#[test]
fn accented_names_file_under_their_base_letter_and_greek_after_z() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    site(root);
    for (slug, name) in [
        ("eclair", "Éclair"),
        ("arger", "Ärger"),
        ("eager", "eager"),
        ("zeta", "zeta"),
        ("alpha", "αλφα"),
    ] {
        write(
            root,
            &format!("content/terms/{slug}.md"),
            &format!("---\ntitle: What is {slug}?\nname: {name}\nsummary: S.\n---\nBody.\n"),
        );
    }
    let out = build(root, &["--drafts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let index = read(&root.join("site-drafts/index.html"));
    let headings: Vec<&str> = index
        .split("<h3 class=\"letter\" id=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap_or(""))
        .collect();
    assert_eq!(
        headings,
        [
            "letter-a",
            "letter-c",
            "letter-e",
            "letter-m",
            "letter-s",
            "letter-t",
            "letter-w",
            "letter-z",
            "letter-α"
        ],
        "{index}"
    );
    // Positions in the A-Z list (the contents above it list the entries too).
    let az = &index[index.find("id=\"terms-az\"").expect("A-Z section")..];
    let at = |needle: &str| az.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at(">Ärger</a>") < at("id=\"letter-c\""), "{index}");
    assert!(at(">eager</a>") < at(">Éclair</a>"), "{index}");
    assert!(at("id=\"letter-e\"") < at(">eager</a>"), "{index}");
    assert!(at(">Éclair</a>") < at("id=\"letter-m\""), "{index}");
    assert!(at("id=\"letter-α\"") < at(">αλφα</a>"), "{index}");
    let bar = index
        .split("<nav class=\"jump\" aria-label=\"Jump to letter\">")
        .nth(1)
        .and_then(|s| s.split("</nav>").next())
        .expect("jump bar");
    assert!(
        bar.ends_with(
            "<li><a href=\"#letter-z\">Z</a></li><li><a href=\"#letter-α\">Α</a></li></ul>\n  "
        ),
        "{bar}"
    );
}

#[test]
fn sidebar_groups_by_section_in_declared_order_and_marks_the_page() {
    let (_dir, site) = built(true);
    let warp = read(&site.join("terms/warp/index.html"));
    let sidebar = warp
        .split("<nav class=\"sidebar\"")
        .nth(1)
        .and_then(|s| s.split("</nav>").next())
        .expect("sidebar");
    let at = |needle: &str| {
        sidebar
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} in {sidebar}"))
    };
    // Sections in glossary.toml's order, entries by `order`, unsectioned terms last.
    assert!(at("Device hardware") < at(">Streaming Multiprocessor<"));
    assert!(at(">Streaming Multiprocessor<") < at(">warp<"));
    assert!(at(">warp<") < at("Programming model"));
    assert!(at("Programming model") < at(">Reading a profile<"));
    assert!(at(">Reading a profile<") < at(">thread block<"));
    assert!(at(">thread block<") < at(">Terms<"));
    assert!(at(">Terms<") < at(">__syncthreads<"));
    assert!(
        sidebar.contains("<a href=\"../../terms/warp/index.html\" aria-current=\"page\">warp</a>"),
        "{sidebar}"
    );
    assert_eq!(sidebar.matches("aria-current").count(), 1, "{sidebar}");
    // The index lists the contents by section too.
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("<h2 id=\"contents\">Contents</h2>"),
        "{index}"
    );
}

#[test]
fn previous_and_next_follow_the_reading_order() {
    let (_dir, site) = built(true);
    let warp = read(&site.join("terms/warp/index.html"));
    assert!(
        warp.contains("<a class=\"pager-prev\" rel=\"prev\" href=\"../../terms/sm/index.html\"><span class=\"pager-dir\">Previous</span> Streaming Multiprocessor</a>"),
        "{warp}"
    );
    // The next section's first entry follows the last of this one.
    assert!(
        warp.contains("rel=\"next\" href=\"../../guides/reading/index.html\""),
        "{warp}"
    );
    let first = read(&site.join("terms/sm/index.html"));
    assert!(
        !first.contains("rel=\"prev\""),
        "the first page has no previous"
    );
    let last = read(&site.join("terms/syncthreads/index.html"));
    assert!(!last.contains("rel=\"next\""), "the last page has no next");
}

#[test]
fn long_guides_list_their_headings_and_show_credit_and_license() {
    let (_dir, site) = built(true);
    let guide = read(&site.join("guides/reading/index.html"));
    let toc = guide
        .split("<nav class=\"toc\"")
        .nth(1)
        .and_then(|s| s.split("</nav>").next())
        .expect("contents of the page");
    assert!(toc.contains("<a href=\"#first\">First</a>"), "{toc}");
    assert!(
        toc.contains("<li class=\"toc-3\"><a href=\"#detail\">Detail</a>"),
        "{toc}"
    );
    assert!(
        guide.contains(
            "<strong>Credit:</strong> Adapted from <em>Profile notes</em> by the test authors"
        ),
        "{guide}"
    );
    assert!(
        guide.contains("<a href=\"https://creativecommons.org/licenses/by/4.0/\">CC BY 4.0</a>"),
        "{guide}"
    );
    // A short term has no contents list.
    let warp = read(&site.join("terms/warp/index.html"));
    assert!(!warp.contains("class=\"toc\""), "{warp}");
}

#[test]
fn summaries_render_inline_markdown_wherever_they_appear() {
    let (_dir, site) = built(true);
    let sm = read(&site.join("terms/sm/index.html"));
    assert!(
        sm.contains("<p class=\"definition\">Holds <a href=\"../../terms/warp/index.html\">warps</a> and their <code>registers</code>.</p>"),
        "{sm}"
    );
    assert!(
        sm.contains("<meta name=\"description\" content=\"Holds warps and their registers.\">"),
        "{sm}"
    );
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("<dd>Holds <a href=\"terms/warp/index.html\">warps</a> and their <code>registers</code>.</dd>"),
        "{index}"
    );
    // Under "Terms used" on the guide, at the guide's depth.
    let guide = read(&site.join("guides/reading/index.html"));
    assert!(
        guide.contains(
            "<span class=\"summary\">Holds <a href=\"../../terms/warp/index.html\">warps</a>"
        ),
        "{guide}"
    );
}

/// A site that sets no footer and no description says nothing it cannot back: no line
/// about measured numbers (this site has none), no empty description.
#[test]
fn without_a_footer_or_description_the_pages_claim_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    site(dir.path());
    let config = CONFIG
        .lines()
        .filter(|l| !l.starts_with("footer") && !l.starts_with("description"))
        .collect::<Vec<_>>()
        .join("\n");
    write(dir.path(), "glossary.toml", &config);
    let out = build(dir.path(), &["--drafts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for page in ["index.html", "terms/sm/index.html"] {
        let html = read(&dir.path().join("site-drafts").join(page));
        let footer = &html[html.find("<footer").expect("a footer")..];
        assert!(!footer.contains("measured"), "{page}: {footer}");
        assert!(
            !html.contains("<meta name=\"description\" content=\"\">"),
            "{page}"
        );
        assert!(!html.contains("<p class=\"lede\"></p>"), "{page}");
    }
}

/// `content/index.md` is the home page's own text, above the contents: links relative to
/// the site root, figures checked and copied, ids kept off the page's own; its mistakes
/// are errors at its lines.
#[test]
fn content_index_md_gives_the_home_page_a_body_above_the_contents() {
    let dir = tempfile::tempdir().expect("temp dir");
    site(dir.path());
    write(
        dir.path(),
        "content/figures/box.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><rect width=\"10\" height=\"10\"/></svg>",
    );
    write(
        dir.path(),
        "content/index.md",
        "Start with the [SM](terms/sm/).\n\n## Contents\n\n![A box](figures/box.svg \"The *box*\")\n",
    );
    let out = build(dir.path(), &["--drafts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let site = dir.path().join("site-drafts");
    let index = read(&site.join("index.html"));
    let home = index
        .find("<div class=\"body home\">")
        .expect("the home text");
    let contents = index.find("<h2 id=\"contents\">").expect("the contents");
    assert!(home < contents, "the home text comes above the contents");
    assert!(
        index.contains("Start with the <a href=\"terms/sm/index.html\">SM</a>."),
        "{index}"
    );
    // The author's `## Contents` keeps off the page's own `#contents`.
    assert!(
        index.contains("<h2 id=\"contents-1\">Contents</h2>"),
        "{index}"
    );
    assert!(
        index.contains("<figcaption>The <em>box</em></figcaption>"),
        "{index}"
    );
    assert!(site.join("media/figures/box.svg").is_file());
    // Mistakes in it are errors at its lines, all in one run.
    write(
        dir.path(),
        "content/index.md",
        "See [nothing](terms/nothing/).\n\n<script>alert(1)</script>\n\n![Remote](https://example.org/x.png)\n",
    );
    let out = build(dir.path(), &["--drafts"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    for want in [
        "content/index.md:1:1: link to missing page `terms/nothing`",
        "content/index.md:3:1: raw HTML is not allowed",
        "content/index.md:5:1: image `https://example.org/x.png` is not a file of this project",
    ] {
        assert!(err.contains(want), "expected `{want}` in:\n{err}");
    }
}

#[test]
fn the_footer_comes_from_glossary_toml_with_links_for_each_depth() {
    let (_dir, site) = built(true);
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("Written for a test. See <a href=\"guides/reading/index.html\">the guide</a> or <a href=\"https://example.org/about\">the project</a>."),
        "{index}"
    );
    let sm = read(&site.join("terms/sm/index.html"));
    assert!(
        sm.contains("<a href=\"../../guides/reading/index.html\">the guide</a>"),
        "{sm}"
    );
}

#[test]
fn internal_links_name_files_so_the_site_works_from_disk() {
    let (_dir, site) = built(true);
    let sm = read(&site.join("terms/sm/index.html"));
    assert!(
        sm.contains("<a href=\"../warp/index.html#lanes\">warps</a>"),
        "{sm}"
    );
    assert!(
        sm.contains("<a href=\"../block/index.html\">blocks</a>"),
        "{sm}"
    );
    for page in [
        "index.html",
        "terms/sm/index.html",
        "guides/reading/index.html",
    ] {
        let html = read(&site.join(page));
        for href in html
            .split("href=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
        {
            let internal = !href.contains(':') && !href.starts_with('#');
            let path = href.split(['#', '?']).next().unwrap_or("");
            assert!(
                !internal
                    || path.ends_with(".html")
                    || path.ends_with(".xml")
                    || path.ends_with(".css"),
                "{page}: link `{href}` names a folder"
            );
        }
    }
}

/// Build a copy of the site after `edit`, expecting failure; returns stderr.
fn broken(edit: impl Fn(&Path)) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    site(dir.path());
    edit(dir.path());
    let out = build(dir.path(), &["--drafts"]);
    assert!(!out.status.success(), "the build should fail");
    stderr(&out)
}

#[test]
fn unknown_section_is_an_error_at_its_line_naming_the_declared_ones() {
    let err = broken(|root| {
        write(
            root,
            "content/terms/warp.md",
            "---\ntitle: What is a warp?\nname: warp\nsummary: s\nsection: hardwear\n---\nx\n",
        )
    });
    assert!(
        err.contains("content/terms/warp.md:5:1: unknown section `hardwear` (glossary.toml declares: hardware, software)"),
        "{err}"
    );
}

#[test]
fn unknown_field_is_an_error_at_its_line() {
    let err = broken(|root| {
        write(
            root,
            "content/terms/warp.md",
            "---\ntitle: What is a warp?\nname: warp\nsummary: s\nalias: [W]\n---\nx\n",
        )
    });
    assert!(
        err.contains("content/terms/warp.md:5:") && err.contains("unknown field `alias`"),
        "{err}"
    );
}

#[test]
fn an_alias_that_names_another_entry_is_an_error() {
    let err = broken(|root| {
        write(
            root,
            "content/terms/warp.md",
            "---\ntitle: What is a warp?\nname: warp\naliases: [Warp group, cta]\nsummary: s\n---\nx\n",
        )
    });
    assert!(
        err.contains(
            "content/terms/warp.md:4:1: alias `cta` is already a name or alias of `terms/block`"
        ),
        "{err}"
    );
}

/// A clash is reported in the file that made it, the one changed last: a new term named
/// like an old entry's alias is the new term's error, and so is a new alias that an old
/// entry already had (whichever file sorts first).
#[test]
fn an_alias_clash_is_reported_in_the_file_changed_last() {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let age = |root: &Path, rel: &str| {
        std::fs::File::options()
            .write(true)
            .open(root.join(rel))
            .and_then(|f| f.set_modified(past))
            .expect("set mtime");
    };
    // The old entry sorts last and has the alias; the new one's name is the alias.
    let err = broken(|root| {
        write(
            root,
            "content/terms/zz-old.md",
            "---\ntitle: What is an old term?\nname: old term\naliases: [Newcomer]\nsummary: s\n---\nx\n",
        );
        age(root, "content/terms/zz-old.md");
        write(
            root,
            "content/terms/aa-new.md",
            "---\ntitle: What is a newcomer?\nname: Newcomer\nsummary: s\n---\nx\n",
        );
    });
    assert!(
        err.contains(
            "content/terms/aa-new.md:3:1: name `Newcomer` clashes with the alias `Newcomer` of `terms/zz-old`"
        ),
        "{err}"
    );
    assert!(!err.contains("zz-old.md:"), "{err}");
    // Two aliases: the new file sorts first, so the old one would be reached second.
    let err = broken(|root| {
        write(
            root,
            "content/terms/zz-old.md",
            "---\ntitle: What is an old term?\nname: old term\naliases: [OT]\nsummary: s\n---\nx\n",
        );
        age(root, "content/terms/zz-old.md");
        write(
            root,
            "content/terms/aa-new.md",
            "---\ntitle: What is a new term?\nname: new term\naliases: [OT]\nsummary: s\n---\nx\n",
        );
    });
    assert!(
        err.contains(
            "content/terms/aa-new.md:4:1: alias `OT` clashes with the alias `OT` of `terms/zz-old`"
        ),
        "{err}"
    );
    assert!(!err.contains("zz-old.md:"), "{err}");
}

#[test]
fn an_alias_that_only_looks_like_another_entrys_name_is_an_error_naming_the_odd_letter() {
    // "ЅM" with a Cyrillic Ѕ (U+0405), "S\u{200B}M" with a zero-width space: both read
    // as the name the SM entry answers to.
    for (alias, odd) in [
        ("\u{0405}M", "U+0405 \"\u{0405}\""),
        ("S\u{200B}M", "U+200B (invisible)"),
    ] {
        let err = broken(|root| {
            write(
                root,
                "content/terms/warp.md",
                &format!("---\ntitle: What is a warp?\nname: warp\naliases: [\"{alias}\"]\nsummary: s\n---\nx\n"),
            )
        });
        assert!(
            err.contains(&format!(
                "content/terms/warp.md:4:1: alias `{alias}` looks the same as `SM`, a name or alias of `terms/sm`"
            )) && err.contains(odd),
            "{alias:?}: {err}"
        );
    }
    // Only width differs: the same spelling, the plain message.
    let err = broken(|root| {
        write(
            root,
            "content/terms/warp.md",
            "---\ntitle: What is a warp?\nname: warp\naliases: [\"\u{FF33}\u{FF2D}\"]\nsummary: s\n---\nx\n",
        )
    });
    assert!(
        err.contains("alias `\u{FF33}\u{FF2D}` is already a name or alias of `terms/sm`"),
        "{err}"
    );
}

#[test]
fn a_term_whose_name_only_looks_like_anothers_is_an_error_at_its_name_line() {
    // "wаrp" with a Cyrillic а (U+0430) beside the fixture's "warp".
    let err = broken(|root| {
        write(
            root,
            "content/terms/warp2.md",
            "---\ntitle: What is a second warp?\nname: \"w\u{0430}rp\"\nsummary: s\n---\nx\n",
        )
    });
    assert!(
        err.contains("content/terms/warp2.md:3:1: name `w\u{0430}rp` looks the same as `warp`, the name of `terms/warp`")
            && err.contains("U+0430 \"\u{0430}\""),
        "{err}"
    );
}

#[test]
fn two_terms_may_share_a_name_spelled_alike_and_ascii_names_are_never_look_alikes() {
    let dir = tempfile::tempdir().expect("temp dir");
    site(dir.path());
    write(
        dir.path(),
        "content/terms/warp2.md",
        "---\ntitle: What is a warp in weaving?\nname: Warp\nsummary: s\n---\nx\n",
    );
    // Two ASCII spellings that share a confusable skeleton are two names.
    write(
        dir.path(),
        "content/terms/modern.md",
        "---\ntitle: What is modern?\nname: modern\naliases: [\"\u{0441}ontemporary\"]\nsummary: s\n---\nx\n",
    );
    write(
        dir.path(),
        "content/terms/modem.md",
        "---\ntitle: What is a modem?\nname: modem\nsummary: s\n---\nx\n",
    );
    let out = build(dir.path(), &["--drafts"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_broken_link_in_a_summary_is_an_error_at_the_summary_line() {
    let err = broken(|root| {
        write(
            root,
            "content/terms/warp.md",
            "---\ntitle: What is a warp?\nname: warp\nsummary: Runs on an [SM](../nope/).\n---\nx\n",
        )
    });
    assert!(
        err.contains("content/terms/warp.md:4:1: link to missing page `terms/nope`"),
        "{err}"
    );
}

#[test]
fn a_license_without_a_credit_is_an_error() {
    let err = broken(|root| {
        write(
            root,
            "content/terms/warp.md",
            "---\ntitle: What is a warp?\nname: warp\nsummary: s\nlicense: CC0\n---\nx\n",
        )
    });
    assert!(
        err.contains("content/terms/warp.md:5:1: `license` needs a `credit`"),
        "{err}"
    );
}
