//! `glossary build` on a valid site: what is published, what is refused, what the pages show.

mod support;

use glossary::content::Kind;
use support::*;

fn build(root: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["build"];
    args.extend_from_slice(extra);
    let o = run(root, &args);
    assert!(
        o.status.success(),
        "build failed:\n{}{}",
        stdout(&o),
        stderr(&o)
    );
    o
}

/// alpha: properly signed; beta: one person twice; gamma: no reviewer; delta: no author.
fn signed_site() -> tempfile::TempDir {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    sign(root, Kind::Term, "beta", Some("author-a"), Some("author-a"));
    sign(root, Kind::Term, "gamma", Some("author-a"), None);
    sign(root, Kind::Term, "delta", None, Some("reviewer-b"));
    sign_by_two(root, Kind::Lesson, "day-1-basics");
    sign_by_two(root, Kind::Guide, "reading-alpha");
    site
}

#[test]
fn signed_entry_is_published_with_every_section() {
    let site = signed_site();
    let root = site.path();
    let out = build(root, &[]);
    let summary = stdout(&out);
    assert!(summary.contains("published 3, refused 3"), "{summary}");

    let page = read(root, "site/terms/alpha/index.html");
    let sections = [
        "<h1>What is alpha?</h1>",
        "class=\"definition\"",
        "id=\"measured\"",
        "id=\"diagram\"",
        // No "related": beta and gamma, which it relates to, are refused.
        "id=\"meet\"",
        "id=\"sources\"",
        "id=\"byline\"",
    ];
    let mut last = 0;
    for s in sections {
        let at = page[last..].find(s).map(|i| i + last);
        let at = at.unwrap_or_else(|| panic!("{s} missing or out of order in:\n{page}"));
        last = at;
    }
    // Numbers in prose and table come from the record.
    assert!(
        page.contains("Alpha runs at 1200.0 GB/s, 0.67 of which"),
        "{page}"
    );
    assert!(page.contains("<td class=\"num\">1200.0</td>"), "{page}");
    assert!(
        page.contains("Test GPU (compute capability 9.0, 4 SMs), driver 580.0"),
        "{page}"
    );
    // Byline from the signatures; last checked = newest of record capture and sources.
    assert!(
        page.contains("<dt>Written by</dt><dd>author-a</dd>"),
        "{page}"
    );
    assert!(
        page.contains("<dt>Reviewed by</dt><dd>reviewer-b</dd>"),
        "{page}"
    );
    assert!(
        page.contains("<dt>Last checked on</dt><dd>2026-11-02</dd>"),
        "{page}"
    );
    assert!(page.contains("(checked 2026-11-01)"));
    // Where you meet this: derived from the lesson that lists alpha.
    assert!(
        page.contains("Basics</a> — where alpha is introduced"),
        "{page}"
    );
    assert!(!page.contains("draft-banner"));
    assert!(!page.contains("noindex"));
}

#[test]
fn refused_entries_appear_nowhere() {
    let site = signed_site();
    let root = site.path();
    let out = build(root, &[]);
    let summary = stdout(&out);
    assert!(
        summary.contains("refused terms/beta: author and reviewer are the same person (author-a)"),
        "{summary}"
    );
    assert!(
        summary.contains("refused terms/gamma: no named reviewer has signed it"),
        "{summary}"
    );
    assert!(
        summary.contains("refused terms/delta: no named author has signed it"),
        "{summary}"
    );

    for slug in ["beta", "gamma", "delta"] {
        assert!(
            !root.join(format!("site/terms/{slug}")).exists(),
            "{slug} has a page"
        );
    }
    // No index row, no link and no text of theirs anywhere in the site: alpha relates to
    // beta and gamma, but its page lists neither name nor summary.
    for (path, bytes) in snapshot(&root.join("site")) {
        let html = String::from_utf8_lossy(&bytes);
        for slug in ["beta", "gamma", "delta"] {
            assert!(
                !html.contains(&format!("terms/{slug}/")),
                "{} links to {slug}",
                path.display()
            );
            assert!(
                !html.contains(&format!("{slug} is a test term")),
                "{} shows {slug}'s summary",
                path.display()
            );
        }
    }
    let alpha = read(root, "site/terms/alpha/index.html");
    assert!(!alpha.contains("id=\"related\""), "{alpha}");
    let index = read(root, "site/index.html");
    assert!(index.contains("terms/alpha/index.html"));
    assert!(
        !index.contains("What is beta") && !index.contains(">beta<"),
        "{index}"
    );
    // The lesson mentions beta as plain text, not a dead link.
    let lesson = read(root, "site/lessons/day-1-basics/index.html");
    assert!(lesson.contains("and beta."), "{lesson}");
}

/// The summary, as `review status` reads it for one entry.
fn state_of(root: &std::path::Path, entry: &str) -> String {
    let o = run(root, &["review", "status", "--json"]);
    let all: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("status --json");
    let found = all["entries"].as_array().expect("entries").iter();
    let e = found.clone().find(|e| e["entry"] == entry).expect("entry");
    e["state"].as_str().expect("state").to_string()
}

/// A page shows another entry's name and summary only while that entry is published: its
/// own signers signed that text. alpha relates to beta: unsigned, beta is nowhere on
/// alpha's page; signed, its summary is; edited, beta is withdrawn and alpha's page
/// drops it (an edit no signer saw never reaches a published page through another
/// entry), until beta is signed again.
#[test]
fn a_page_shows_only_signed_text_of_other_entries() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    let alpha = || read(root, "site/terms/alpha/index.html");

    build(root, &[]);
    let page = alpha();
    assert!(!page.contains("beta is a test term"), "{page}");
    assert!(!page.contains("href=\"../beta/"), "{page}");
    assert!(!page.contains("id=\"related\""), "{page}");
    // The lesson that lists alpha is unsigned: no "where you meet this", not its note.
    assert!(!page.contains("where alpha is introduced"), "{page}");
    assert!(!page.contains(">Basics<"), "{page}");

    sign_by_two(root, Kind::Term, "beta");
    build(root, &[]);
    let page = alpha();
    assert!(
        page.contains("<a href=\"../../terms/beta/index.html\">beta</a> — <span class=\"summary\">beta is a test term.</span>"),
        "{page}"
    );

    let beta = read(root, "content/terms/beta.md");
    let edited = beta.replace("beta is a test term.", "beta, edited after signing.");
    assert_ne!(beta, edited);
    write(root, "content/terms/beta.md", &edited);
    assert_eq!(state_of(root, "terms/beta"), "waiting_for_author");
    let out = build(root, &[]);
    assert!(
        stdout(&out).contains("refused terms/beta: changed since reviewed by"),
        "{}",
        stdout(&out)
    );
    let page = alpha();
    assert!(!page.contains("edited after signing"), "{page}");
    assert!(!page.contains("beta is a test term"), "{page}");
    assert!(!page.contains("id=\"related\""), "{page}");
    // alpha itself is unchanged, and still published.
    assert_eq!(state_of(root, "terms/alpha"), "published");

    sign_by_two(root, Kind::Term, "beta");
    assert_eq!(state_of(root, "terms/beta"), "published");
    build(root, &[]);
    let page = alpha();
    assert!(page.contains("beta, edited after signing."), "{page}");
}

#[test]
fn gate_applies_to_lessons_and_guides() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    sign(
        root,
        Kind::Lesson,
        "day-1-basics",
        Some("author-a"),
        Some("author-a"),
    );
    let out = build(root, &[]);
    let summary = stdout(&out);
    assert!(
        summary.contains("refused lessons/day-1-basics: author and reviewer are the same person"),
        "{summary}"
    );
    assert!(summary.contains("refused guides/reading-alpha: no named author has signed it; no named reviewer has signed it"), "{summary}");
    assert!(!root.join("site/lessons/day-1-basics").exists());
    assert!(!root.join("site/guides/reading-alpha").exists());
    let alpha = read(root, "site/terms/alpha/index.html");
    assert!(
        !alpha.contains("lessons/day-1-basics"),
        "where-you-meet links a refused lesson"
    );
    // Nor named: its title and its note on alpha were never signed by two people.
    assert!(
        !alpha.contains("Basics") && !alpha.contains("where alpha is introduced"),
        "the refused lesson is named: {alpha}"
    );
}

#[test]
fn drafts_render_everything_marked() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    let out = build(root, &["--drafts"]);
    assert!(
        stdout(&out).contains("published 1, refused 5"),
        "{}",
        stdout(&out)
    );
    // A preview goes to its own folder, never to the deployable site/.
    assert!(!root.join("site").exists());
    let beta = read(root, "site-drafts/terms/beta/index.html");
    assert!(beta.contains("class=\"draft-banner"), "{beta}");
    assert!(beta.contains("no named author has signed it"), "{beta}");
    assert!(beta.contains(r#"<meta name="robots" content="noindex">"#));
    let alpha = read(root, "site-drafts/terms/alpha/index.html");
    assert!(!alpha.contains("class=\"draft-banner"));
    assert!(root
        .join("site-drafts/guides/reading-alpha/index.html")
        .exists());
    // Every page of the preview, published entries and site-wide pages included, carries
    // noindex and the preview banner; the XML files say so, and robots.txt disallows all.
    for page in [
        "site-drafts/terms/alpha/index.html",
        "site-drafts/index.html",
        "site-drafts/search/index.html",
        "site-drafts/404.html",
    ] {
        let html = read(root, page);
        assert!(
            html.contains(r#"<meta name="robots" content="noindex, nofollow">"#),
            "{page}"
        );
        assert!(
            html.contains("Drafts preview — not for deployment."),
            "{page}"
        );
    }
    for xml in ["site-drafts/feed.xml", "site-drafts/sitemap.xml"] {
        assert!(read(root, xml).contains("DRAFTS PREVIEW"), "{xml}");
    }
    assert!(read(root, "site-drafts/robots.txt").contains("Disallow: /"));
    assert!(root.join("site-drafts/.glossary-drafts").is_file());

    // A normal build given the drafts folder refuses it, and leaves it as it was.
    let before = snapshot(&root.join("site-drafts"));
    let out = run(
        root,
        &["build", "--out", root.join("site-drafts").to_str().unwrap()],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(
            "it holds a drafts preview (it has .glossary-drafts), which must never be deployed"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&root.join("site-drafts")), before);
    // And a drafts build given the deployable site refuses it.
    build(root, &[]);
    let site_before = snapshot(&root.join("site"));
    let out = run(
        root,
        &[
            "build",
            "--drafts",
            "--out",
            root.join("site").to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("it is the folder the site is published to"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&root.join("site")), site_before);
    let page = read(root, "site/terms/alpha/index.html");
    assert!(!page.contains("noindex") && !page.contains("Drafts preview"));
}

/// A fresh checkout has no site/ (nor its marker): a drafts preview aimed there is refused
/// all the same, under any spelling of the folder, and nothing is written.
#[test]
fn drafts_into_a_fresh_site_folder_are_refused() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    assert!(!root.join("site").exists());
    let spellings = [
        root.join("site"),
        root.join("site/."),
        root.join("content/../site"),
    ];
    for out in &spellings {
        let o = run(root, &["build", "--drafts", "--out", out.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "--out {}:\n{err}", out.display());
        assert!(
            err.contains("refusing to write a drafts preview there: it is the folder the site is published to"),
            "--out {}:\n{err}",
            out.display()
        );
        assert!(!root.join("site").exists(), "site/ was written");
    }
    // Its own folder is fine, and a normal build still goes to site/.
    build(
        root,
        &["--drafts", "--out", root.join("preview").to_str().unwrap()],
    );
    build(root, &[]);
    assert!(root.join("site/index.html").is_file());
}

#[test]
fn edited_entry_is_refused_as_changed_since_review() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    let path = root.join("content/terms/alpha.md");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("More.", "More, edited.");
    std::fs::write(&path, text).unwrap();
    let out = build(root, &[]);
    assert!(
        stdout(&out).contains("refused terms/alpha: changed since reviewed by reviewer-b on 2026-11-04 (text, body as shown changed; `glossary review diff` shows how); changed since signed by its author author-a on 2026-11-03 (text, body as shown changed"),
        "{}",
        stdout(&out)
    );
    // The preview's banner shows the reason's command as code, not with its backticks.
    build(root, &["--drafts"]);
    let page = std::fs::read_to_string(root.join("site-drafts/terms/alpha/index.html")).unwrap();
    let banner = page
        .split("class=\"draft-banner")
        .nth(1)
        .and_then(|b| b.split("</aside>").next())
        .unwrap_or_else(|| panic!("no draft banner:\n{page}"));
    assert!(
        banner
            .contains("(text, body as shown changed; <code>glossary review diff</code> shows how)"),
        "{banner}"
    );
    assert!(!banner.contains('`'), "{banner}");
}

#[test]
fn renamed_entry_is_withdrawn_even_when_its_signatures_move_with_it() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    assert!(stdout(&build(root, &[])).contains("published 1"));
    // Rename the entry, carry its signature file along and point every reference at the
    // new slug, as a hand rename would: the entry's bytes are unchanged, but what was
    // signed names the old slug, so the signatures no longer hold.
    std::fs::rename(
        root.join("content/terms/alpha.md"),
        root.join("content/terms/alpha-renamed.md"),
    )
    .unwrap();
    std::fs::rename(
        root.join("content/reviews/terms/alpha.yaml"),
        root.join("content/reviews/terms/alpha-renamed.yaml"),
    )
    .unwrap();
    for entry in walkdir::WalkDir::new(root.join("content")) {
        let path = entry.unwrap().into_path();
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("alpha-renamed.md") {
            let text = std::fs::read_to_string(&path).unwrap();
            let moved = text
                .replace("[beta, alpha]", "[beta, alpha-renamed]")
                .replace("related: [alpha]", "related: [alpha-renamed]")
                .replace("terms: [alpha]", "terms: [alpha-renamed]")
                .replace("{slug: alpha,", "{slug: alpha-renamed,")
                .replace("../alpha/", "../alpha-renamed/")
                .replace("terms/alpha/", "terms/alpha-renamed/");
            std::fs::write(&path, moved).unwrap();
        }
    }
    let out = build(root, &[]);
    let said = stdout(&out);
    assert!(said.contains("published 0"), "{said}");
    assert!(
        said.contains(
            "refused terms/alpha-renamed: the author's signature by `author-a` does not verify"
        ),
        "{said}"
    );
    assert!(!root.join("site/terms/alpha-renamed").exists());
}

#[test]
fn stale_and_wrong_node_records_refuse_the_entry() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    // Edit the kernel: the record no longer matches the experiment.
    write(
        root,
        &format!("measurements/{EXPERIMENT}/kernel.cu"),
        "// edited\n",
    );
    let out = build(root, &[]);
    assert!(
        stdout(&out).contains("record is stale: the experiment changed since it was measured"),
        "{}",
        stdout(&out)
    );
    assert!(!root.join("site/terms/alpha").exists());

    // A record edited by hand no longer carries the node's signature.
    let path = root.join(format!("measurements/{EXPERIMENT}/records/{NODE}.json"));
    write_record(root, |_| {});
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("\"median_ms\": 1.0", "\"median_ms\": 0.5"),
    )
    .unwrap();
    let out = run(root, &["check"]);
    assert!(
        stdout(&out).contains("record not signed by node testnode: its signature does not verify"),
        "{}",
        stdout(&out)
    );

    // A record from another GPU, signed by the node, is refused even with the right digest.
    write_record(root, |r| r.gpu.name = "Tesla T4".into());
    let out = run(root, &["check"]);
    assert!(stdout(&out).contains("record is from the wrong node: expected testnode (Test GPU, cc 9.0, 4 SMs, sm_90), found testnode (Tesla T4, cc 9.0, 4 SMs, sm_90)"), "{}", stdout(&out));
    // Another SM count (a MIG slice, another SKU) is another node too.
    write_record(root, |r| r.gpu.sm_count = 2);
    let out = run(root, &["check"]);
    assert!(stdout(&out).contains("expected testnode (Test GPU, cc 9.0, 4 SMs, sm_90), found testnode (Test GPU, cc 9.0, 2 SMs, sm_90)"), "{}", stdout(&out));
}

#[test]
fn unsupported_claim_refuses_the_entry_with_numbers() {
    let site = valid_site();
    let root = site.path();
    let path = root.join("content/terms/alpha.md");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "diagram:",
        "claims:\n  - says: full and half take the same time\n    column: median_ms\n    rows: [full, half]\n    within: 0.05\n  - says: half keeps under 70% of the bandwidth\n    column: gbps\n    ratio: [half, full]\n    below: 0.7\n  - says: full moves over 2000 GB/s\n    column: gbps\n    row: full\n    above: 2000\ndiagram:",
    );
    std::fs::write(&path, text).unwrap();
    sign_by_two(root, Kind::Term, "alpha");
    let out = build(root, &[]);
    let s = stdout(&out);
    assert!(s.contains("claim \"full and half take the same time\" is not supported by the record: median_ms: full = 1.0000, half = 1.5000; spread 50.0% against 5.0%: the spread exceeds it on the whole interval: `within: 0.5000` would hold"), "{s}");
    assert!(s.contains("claim \"full moves over 2000 GB/s\" is not supported by the record: gbps: full = 1200.0000, not above 2000: the whole interval is on the other side: a threshold below 1200.0 would hold"), "{s}");
    // 800/1200 = 0.667 is below 0.7: that claim holds and is not listed.
    assert!(!s.contains("half keeps under 70%"), "{s}");
}

#[test]
fn failed_build_leaves_previous_site_byte_for_byte() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    build(root, &[]);
    let before = snapshot(&root.join("site"));
    assert!(before.len() > 2);
    write(root, "content/terms/beta.md", "---\ntitle: [broken\n---\n");
    let out = run(root, &["build"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("beta.md:2:"), "{}", stderr(&out));
    assert_eq!(before, snapshot(&root.join("site")));
    // No staging folders are left beside it (the build cache, `.site.cache`, is kept on
    // purpose: the first build made it).
    let leftovers: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".site.") && name != ".site.cache")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn refuses_to_replace_a_folder_it_did_not_write() {
    let site = valid_site();
    let root = site.path();
    write(root, "precious/notes.txt", "keep me");
    let out = run(
        root,
        &["build", "--out", root.join("precious").to_str().unwrap()],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("refusing to replace this folder: glossary did not write it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(root, "precious/notes.txt"), "keep me");
}

/// A site written inside a folder the build reads would be read back by the next build:
/// in templates/static/ it was copied into itself, growing on every build.
#[test]
fn refuses_an_output_folder_inside_one_the_build_reads() {
    let site = valid_site();
    let root = site.path();
    std::fs::create_dir_all(root.join("static")).unwrap();
    for out in [
        "templates/static/site",
        "templates",
        "content/site",
        "measurements/site",
        "static/site",
        "site/../templates/static/x",
        ".",
    ] {
        let o = run(
            root,
            &[
                "build",
                "--drafts",
                "--out",
                root.join(out).to_str().unwrap(),
            ],
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "--out {out}:\n{err}");
        assert!(
            err.contains("refusing to write the site there"),
            "--out {out}:\n{err}"
        );
    }
    for made in [
        "templates/static/site",
        "content/site",
        "measurements/site",
        "static/site",
    ] {
        assert!(!root.join(made).exists(), "{made} was written");
    }
    // Beside the inputs is fine.
    build(
        root,
        &["--drafts", "--out", root.join("preview").to_str().unwrap()],
    );
}

#[test]
fn check_lists_refusals_and_exits_zero_without_errors() {
    let site = valid_site();
    let out = run(site.path(), &["check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("published 0, refused 6"));
}

/// The home page is the list of all terms: its footer's "All terms" would lead to itself
/// (on an empty site, to an empty list), so only the other pages carry it.
#[test]
fn the_home_page_does_not_link_to_itself_as_all_terms() {
    let site = empty_site();
    let root = site.path();
    build(root, &[]);
    let index = read(root, "site/index.html");
    assert!(!index.contains(">All terms</a>"), "{index}");
    assert!(index.contains("href=\"feed.xml\">Atom feed</a>"), "{index}");
    let missing = read(root, "site/404.html");
    assert!(missing.contains(">All terms</a>"), "{missing}");
}

#[test]
fn new_term_creates_a_draft_that_builds() {
    let site = valid_site();
    let root = site.path();
    let o = bin()
        .args(["new", "term", "warp-divergence", "--root"])
        .arg(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(root.join("content/terms/warp-divergence.md").exists());
    let o = bin()
        .args(["new", "term", "Bad/Slug", "--root"])
        .arg(root)
        .output()
        .unwrap();
    assert!(!o.status.success());
    // Its placeholders fail `check`, each at its line and column, saying what to write.
    let path = root.join("content/terms/warp-divergence.md");
    let scaffold = std::fs::read_to_string(&path).unwrap();
    // The title is the author's to write: "What is warp divergence?" reads well, but the
    // same guess makes "What is warp?" of `new term warp`, so none is made.
    let title = scaffold.lines().find(|l| l.starts_with("title:")).unwrap();
    assert_eq!(
        title,
        "title: \"<<replace: the question the page answers, with the article warp divergence takes: What is a warp divergence? or What is warp divergence?>>\""
    );
    let out = run(root, &["check"]);
    let said = stderr(&out);
    assert!(!out.status.success(), "{said}");
    assert_eq!(
        said.matches("placeholder left by `glossary new term`")
            .count(),
        5,
        "{said}"
    );
    let at = |needle: &str| {
        let (i, l) = scaffold
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(needle))
            .unwrap();
        format!(
            "warp-divergence.md:{}:{}:",
            i + 1,
            l.find("<<replace:").unwrap() + 1
        )
    };
    assert!(said.contains(&format!("{} placeholder left by `glossary new term`: write one sentence that defines warp divergence in place of `<<replace: one sentence that defines warp divergence>>`", at("summary:"))), "{said}");
    assert!(said.contains(&at("url:")), "{said}");
    assert!(!said.contains("must be an absolute http"), "{said}");
    // The placeholder address is the entry's error, at its line, not also a broken link
    // in the page the template made of it.
    assert!(!said.contains("made by a template"), "{said}");
    assert_eq!(
        said.matches("error: ").count(),
        6,
        "five and the count: {said}"
    );
    // Written over, the draft checks, refused only for want of sign-offs.
    let written = scaffold
        .replace(title, "title: What is warp divergence?")
        .replace(
            "\"<<replace: one sentence that defines warp divergence>>\"",
            "Lanes of one warp taking different branches.",
        )
        .replace(
            "\"<<replace: the title of a page that documents warp divergence>>\"",
            "CUDA C++ Programming Guide",
        )
        .replace(
            "\"<<replace: that page's https address>>\"",
            "https://docs.nvidia.com/cuda/cuda-c-programming-guide/",
        )
        .replace(
            "<<replace: the body, in Markdown: what warp divergence is and why it matters>>",
            "A warp runs each taken path in turn.",
        );
    assert!(!written.contains("<<replace:"), "{written}");
    std::fs::write(&path, written).unwrap();
    let out = run(root, &["check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("refused terms/warp-divergence"));
}

/// A slug in the right alphabet but too long is refused for its length, with the limit,
/// by `new` and by the build alike.
#[test]
fn a_too_long_slug_is_refused_for_its_length() {
    let site = empty_site();
    let root = site.path();
    let long = "a".repeat(300);
    let o = bin()
        .args(["new", "term", &long, "--root"])
        .arg(root)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("is 300 characters long; the most is 128") && !err.contains("must match"),
        "{err}"
    );
    assert!(
        !root.join("content/terms").exists()
            || std::fs::read_dir(root.join("content/terms"))
                .unwrap()
                .next()
                .is_none()
    );
    write(
        root,
        "content/terms/a.md",
        &term("What is a?", "An a.", &format!("slug: {long}\n"), "Body."),
    );
    let out = run(root, &["check"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("content/terms/a.md:4:1: slug")
            && err.contains(
                "is 300 characters long; the most is 128 (it becomes a folder of the site)"
            ),
        "{err}"
    );
}

#[test]
fn unconverged_timings_are_marked_with_their_spread() {
    let site = valid_site();
    let root = site.path();
    write_record(root, |r| {
        let t = r.configs[1].timing.as_mut().unwrap();
        t.converged = false;
        t.rsd = 0.0123;
    });
    build(root, &["--drafts"]);
    let page = read(root, "site-drafts/terms/alpha/index.html");
    assert!(page.contains("<td class=\"num\">800.0†</td>"), "{page}");
    assert!(page.contains("<td class=\"num\">1200.0</td>"), "{page}");
    assert!(page.contains("spread is at most 1.23%"), "{page}");
    // The chart draws the number, not the marked text.
    assert!(page.contains("half 800.0†"), "{page}");
    assert_eq!(page.matches("class=\"chart-bar\"").count(), 2, "{page}");
}

#[test]
fn throttled_rows_are_marked_with_the_reasons_seen_and_old_records_still_load() {
    let site = valid_site();
    let root = site.path();
    write_record(root, |r| {
        let t = r.configs[1].timing.as_mut().unwrap();
        t.throttled_samples = Some(3);
        r.extra =
            serde_json::json!({ "clock_events": { r.configs[1].label.clone(): ["sw_power_cap"] } });
    });
    build(root, &["--drafts"]);
    let page = read(root, "site-drafts/terms/alpha/index.html");
    assert!(page.contains("<td class=\"num\">800.0‡</td>"), "{page}");
    assert!(page.contains("<td class=\"num\">1200.0</td>"), "{page}");
    assert!(page.contains("clock events: sw_power_cap"), "{page}");
    // A record from before NVML was read (no clock_events): marked by its count alone.
    write_record(root, |r| {
        r.configs[1].timing.as_mut().unwrap().throttled_samples = Some(3);
    });
    build(root, &["--drafts"]);
    let page = read(root, "site-drafts/terms/alpha/index.html");
    assert!(
        page.contains("800.0‡") && page.contains("SM clock under 90%"),
        "{page}"
    );
}

/// A row that stopped at the time cap is the node's to re-measure, not the author's to
/// fix: `check --strict` passes, naming how many such notes there are; `--verbose` lists
/// each, as does `build --verbose`, while a plain build only counts them.
#[test]
fn time_cap_notes_are_counted_listed_with_verbose_and_never_strict_errors() {
    let site = valid_site();
    let root = site.path();
    write_record(root, |r| {
        let t = r.configs[1].timing.as_mut().unwrap();
        t.samples_ms = (0..40).map(|i| 1.45 + 0.1 * f64::from(i) / 39.0).collect();
        t.interval = glossary::measure::run::stats::median_interval(&t.samples_ms);
        t.converged = false;
        t.rsd = 0.02;
    });
    let path = root.join("content/terms/alpha.md");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "diagram:",
        "claims:\n  - says: half takes over 20% longer than full\n    column: median_ms\n    ratio: [half, full]\n    above: 1.2\ndiagram:",
    );
    std::fs::write(&path, text).unwrap();
    let note = "note terms/alpha: claim \"half takes over 20% longer than full\": row `half` stopped at the time cap without converging (rsd 2.00%)";
    let count = "; 1 note on measurements, not an error (`--verbose` lists them)";

    let o = run(root, &["check", "--strict"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(count), "{}", stdout(&o));
    assert!(!stdout(&o).contains(note), "{}", stdout(&o));
    let o = run(root, &["check", "--strict", "--verbose"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(note), "{}", stdout(&o));
    assert!(!stdout(&o).contains(count), "{}", stdout(&o));

    let plain = stdout(&build(root, &[]));
    assert!(plain.contains(count) && !plain.contains(note), "{plain}");
    // One line per refused entry, then one line of counts: nothing else.
    let refused = plain
        .lines()
        .filter(|l| l.starts_with("  refused "))
        .count();
    assert_eq!(plain.lines().count(), refused + 1, "{plain}");
    let last = plain.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("published ") && last.contains(count) && last.contains("; wrote "),
        "{plain}"
    );
    // "wrote N pages" counts the HTML pages, not every file (search shards, feeds).
    let wrote: usize = last
        .split("; wrote ")
        .nth(1)
        .and_then(|w| w.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{last}"));
    let (mut html, mut files) = (0, 0);
    for f in walkdir::WalkDir::new(root.join("site")) {
        let f = f.unwrap();
        if f.file_type().is_file() {
            files += 1;
            html += usize::from(f.path().extension().is_some_and(|e| e == "html"));
        }
    }
    assert_eq!(wrote, html, "{last}");
    assert!(files > html, "the site holds only pages?");
    let verbose = stdout(&build(root, &["--verbose"]));
    assert!(verbose.contains(note), "{verbose}");
}

#[test]
fn a_history_run_without_the_nodes_signature_refuses_the_entrys_claims_naming_it() {
    let site = valid_site();
    let root = site.path();
    let path = root.join("content/terms/alpha.md");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "diagram:",
        "claims:\n  - says: half takes longer than full\n    column: median_ms\n    ratio: [half, full]\n    above: 1.2\ndiagram:",
    );
    std::fs::write(&path, text).unwrap();
    sign_by_two(root, Kind::Term, "alpha");
    let out = build(root, &[]);
    assert!(
        !stdout(&out).contains("half takes longer"),
        "the claim holds on the latest record: {}",
        stdout(&out)
    );
    // A run in the history, its bytes edited (an earlier capture) and no signature.
    let records = root.join(format!("measurements/{EXPERIMENT}/records"));
    let latest = std::fs::read_to_string(records.join(format!("{NODE}.json"))).unwrap();
    let run = records.join(format!("history/{NODE}/20261101T000000.000Z.json"));
    std::fs::create_dir_all(run.parent().unwrap()).unwrap();
    std::fs::write(
        &run,
        latest.replace("\"2026-11-02T12:00:00Z\"", "\"2026-11-01T00:00:00Z\""),
    )
    .unwrap();
    let out = build(root, &[]);
    let s = stdout(&out);
    assert!(
        s.contains(
            "claim \"half takes longer than full\" is not supported by the record: history run"
        ) && s.contains("20261101T000000.000Z.json: not signed by node testnode"),
        "{s}"
    );
}

/// Every page a build writes (entry pages of each kind, the index and its letters, search,
/// 404) carries the Content-Security-Policy, before anything it governs; and no page holds
/// what that policy would block (an inline script, a `style=` or an `on...=` handler), so
/// the site works under it.
#[test]
fn every_page_carries_the_content_security_policy_and_nothing_inline() {
    let site = signed_site();
    let root = site.path();
    build(root, &["--drafts"]);
    // Scripts and styles by the build's own folders' paths, not `'self'` (issue 53).
    let meta =
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#39;self&#39;; \
                script-src *:*/static/ *:*/search/ *:*/__livereload.js file:; \
                style-src *:*/static/ *:*/search/ *:*/__livereload.js file:; \
                img-src &#39;self&#39;; object-src &#39;none&#39;; base-uri &#39;none&#39;; form-action &#39;self&#39;\">";
    let mut pages = Vec::new();
    for entry in walkdir::WalkDir::new(root.join("site-drafts")) {
        let path = entry.unwrap().into_path();
        if path.extension().is_some_and(|e| e == "html") {
            pages.push(path);
        }
    }
    for kind in ["terms/", "lessons/", "guides/", "search/", "404.html"] {
        assert!(
            pages.iter().any(|p| p.to_string_lossy().contains(kind)),
            "no {kind} page among {pages:?}"
        );
    }
    for path in &pages {
        let page = std::fs::read_to_string(path).unwrap();
        let head = page.split("</head>").next().unwrap();
        let at = head
            .find(meta)
            .unwrap_or_else(|| panic!("{}: no CSP meta in\n{head}", path.display()));
        assert!(
            head[..at].matches('<').count() <= 4,
            "{}: the CSP comes after what it governs",
            path.display()
        );
        for (i, _) in page.match_indices("<script") {
            let tag = &page[i..i + page[i..].find('>').unwrap()];
            assert!(tag.contains(" src=\""), "{}: inline {tag}", path.display());
        }
        let lower = page.to_ascii_lowercase();
        assert!(
            !lower.contains(" style=\""),
            "{}: a style attribute",
            path.display()
        );
        for (i, _) in lower.match_indices(" on") {
            let name: String = lower[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            assert!(
                !lower[i + 1 + name.len()..].starts_with('='),
                "{}: an event handler `{name}=`",
                path.display()
            );
        }
    }
}

/// A claim that holds by less than the experiment's reproducibility band (5% unless the
/// experiment sets another) refuses the entry as fragile, naming the margin and the band,
/// and fails `check --strict`; `fragile_ok: <why>` lets it stand.
#[test]
fn a_fragile_claim_refuses_the_entry_unless_it_says_why() {
    let site = valid_site();
    let root = site.path();
    let path = root.join("content/terms/alpha.md");
    let original = std::fs::read_to_string(&path).unwrap();
    // half/full is 1.5 in the fixture: `above: 1.45` clears by about 3.4%, `above: 1.3`
    // by about 15%.
    let claim = |above: &str, ok: &str| {
        original.replace(
            "diagram:",
            &format!("claims:\n  - says: half takes longer than full\n    column: median_ms\n    ratio: [half, full]\n    above: {above}\n{ok}diagram:"),
        )
    };
    std::fs::write(&path, claim("1.45", "")).unwrap();
    sign_by_two(root, Kind::Term, "alpha");
    let s = stdout(&build(root, &[]));
    assert!(
        s.contains("claim \"half takes longer than full\" is fragile: its conservative interval clears the threshold by")
            && s.contains("less than the experiment's 5% reproducibility band"),
        "{s}"
    );
    assert!(!root.join("site/terms/alpha/index.html").exists(), "{s}");
    let strict = run(root, &["check", "--strict"]);
    assert!(!strict.status.success(), "{}", stdout(&strict));

    // A wider margin is not fragile.
    std::fs::write(&path, claim("1.3", "")).unwrap();
    sign_by_two(root, Kind::Term, "alpha");
    let s = stdout(&build(root, &[]));
    assert!(!s.contains("is fragile"), "{s}");
    assert!(root.join("site/terms/alpha/index.html").exists(), "{s}");

    // Said why: published.
    std::fs::write(
        &path,
        claim(
            "1.45",
            "    fragile_ok: the point is the direction, not the size\n",
        ),
    )
    .unwrap();
    sign_by_two(root, Kind::Term, "alpha");
    let s = stdout(&build(root, &[]));
    assert!(!s.contains("refused terms/alpha"), "{s}");
    assert!(root.join("site/terms/alpha/index.html").exists(), "{s}");
    // The reason is a note, listed with --verbose, and not an error under --strict: the
    // entry decided it.
    let s = stdout(&build(root, &["--verbose"]));
    assert!(
        s.contains("note terms/alpha: claim \"half takes longer than full\": is fragile, accepted by the entry (the point is the direction, not the size)"),
        "{s}"
    );
    let o = run(root, &["check", "--strict"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

/// The home page lists the terms under their topics, in the fixed order (Memory,
/// Execution, Tensor cores, Tools), A-Z by name within a topic, the terms without one last
/// under "Other"; the sidebar groups them the same way. A site whose terms name no topic
/// gets no such list.
#[test]
fn the_index_groups_terms_by_topic_in_a_fixed_order_then_other() {
    let site = valid_site();
    let root = site.path();
    build(root, &["--drafts"]);
    let home = read(root, "site-drafts/index.html");
    assert!(!home.contains("terms-by-topic"), "no topic named: {home}");

    // alpha: tools; beta and gamma: memory, gamma named to sort first; delta: none.
    for (slug, extra) in [
        ("alpha", "topic: tools\n"),
        ("beta", "topic: memory\n"),
        ("gamma", "topic: memory\nname: aardvark\n"),
    ] {
        let path = format!("content/terms/{slug}.md");
        let text = read(root, &path).replacen("---\n", &format!("---\n{extra}"), 1);
        let text = match slug {
            "gamma" => text.replacen("name: gamma\n", "", 1),
            _ => text,
        };
        write(root, &path, &text);
    }
    build(root, &["--drafts"]);
    let home = read(root, "site-drafts/index.html");
    let topics = home
        .split("<h2 id=\"terms-by-topic\">Terms by topic</h2>")
        .nth(1)
        .and_then(|rest| rest.split("</section>").next())
        .unwrap_or_else(|| panic!("no topic list: {home}"));
    let headings: Vec<&str> = topics
        .split("<h3 id=\"")
        .skip(1)
        .filter_map(|h| h.split("</h3>").next())
        .collect();
    assert_eq!(
        headings,
        [
            "topic-memory\">Memory",
            "topic-tools\">Tools",
            "topic-other\">Other"
        ],
        "{topics}"
    );
    let names = |heading: &str| -> Vec<String> {
        let list = topics.split(heading).nth(1).unwrap_or_default();
        let list = list.split("</ul>").next().unwrap_or_default();
        list.split("</a>")
            .filter_map(|a| a.rsplit_once('>').map(|(_, name)| name.to_string()))
            .filter(|n| !n.is_empty())
            .collect()
    };
    assert_eq!(names(">Memory</h3>"), ["aardvark", "beta"], "{topics}");
    assert_eq!(names(">Tools</h3>"), ["alpha"], "{topics}");
    assert_eq!(names(">Other</h3>"), ["delta"], "{topics}");
    assert!(
        topics.contains("<li><a href=\"terms/beta/index.html\">beta</a> <span class=\"draft-tag\">draft</span></li>"),
        "{topics}"
    );
    // The A-Z index is still there, below.
    assert!(
        home.contains("<h2 id=\"terms-az\">Terms A–Z</h2>"),
        "{home}"
    );

    // The sidebar: lessons, guides, then a group per topic used, then the other terms.
    let page = read(root, "site-drafts/terms/beta/index.html");
    let sidebar = page
        .split("<nav class=\"sidebar\"")
        .nth(1)
        .unwrap_or_default();
    let groups: Vec<&str> = sidebar
        .split("<h3")
        .skip(1)
        .filter_map(|h| h.split_once('>').and_then(|(_, r)| r.split("</h3>").next()))
        .collect();
    assert_eq!(
        groups,
        ["Lessons", "Guides", "Memory", "Tools", "Other terms"],
        "{sidebar}"
    );
}

/// The reproduce command under a table works for the site as built: with base_url the
/// site's real address, that address; with an example one (the fixture's `.test`, the
/// repository's example.org), `<this site>` and a note, never a host that does not exist.
#[test]
fn the_reproduce_command_names_the_sites_address_or_says_it_has_none() {
    let site = valid_site();
    let root = site.path();
    let page = |root: &std::path::Path| {
        assert!(build(root, &["--drafts"]).status.success());
        std::fs::read_to_string(root.join("site-drafts/terms/alpha/index.html")).unwrap()
    };
    let shown = page(root);
    assert!(
        shown.contains("glossary reproduce &lt;this site&gt;/reproduce/"),
        "{shown}"
    );
    assert!(
        shown.contains("class=\"reproduce-note reproduce-placeholder\">This site was built with an example address (<code>base_url = \"https://glossary.test\"</code> in glossary.toml)"),
        "{shown}"
    );
    assert!(
        !shown.contains("glossary reproduce https://glossary.test"),
        "{shown}"
    );

    let toml = root.join("glossary.toml");
    let settings = std::fs::read_to_string(&toml).unwrap().replace(
        "base_url = \"https://glossary.test\"",
        "base_url = \"https://gpu-notes.dev/\"",
    );
    std::fs::write(&toml, settings).unwrap();
    let shown = page(root);
    assert!(
        shown.contains("glossary reproduce https://gpu-notes.dev/reproduce/"),
        "{shown}"
    );
    assert!(!shown.contains("this site"), "{shown}");
}
