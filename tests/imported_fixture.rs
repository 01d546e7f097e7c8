//! The imported glossary (`tests/fixtures/sites/imported`): a site as a team moving from
//! another generator would bring it, signed here by role-named fixture people with
//! throwaway keys. It must build with no error, every old URL must redirect to its entry,
//! and what the import relies on (section intro pages, captions on light/dark figures, PTX
//! and SASS, HTML comments) must show as the source meant. The browser layout tests cover
//! its pages at 1280 and 390 px (`write_imported_fixture` in tests/browser_fixture.rs).

mod support;
use std::path::Path;

use support::signed::{imported_site, repo};
use support::{read, run, text};

fn entry_files(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for kind in ["terms", "guides", "sections"] {
        for f in std::fs::read_dir(root.join("content").join(kind)).expect("content folder") {
            let path = f.expect("entry").path();
            if path.extension().is_some_and(|x| x == "md") {
                let slug = path.file_stem().unwrap().to_string_lossy().into_owned();
                out.push((
                    format!("{kind}/{slug}"),
                    std::fs::read_to_string(&path).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// The `redirect_from` paths of an entry's text.
fn old_paths(text: &str) -> Vec<String> {
    let front = text.split("\n---\n").next().unwrap_or_default();
    let mut paths = Vec::new();
    let mut inside = false;
    for line in front.lines() {
        if line.starts_with("redirect_from:") {
            inside = true;
        } else if inside && line.starts_with("  - ") {
            paths.push(line[4..].trim().to_string());
        } else {
            inside = false;
        }
    }
    paths
}

/// A page's text without its tags (entities left as they are).
fn visible_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn the_fixture_is_the_import_the_issue_describes() {
    let root = repo().join("tests/fixtures/sites/imported");
    let entries = entry_files(&root);
    assert!(entries.len() >= 40, "{} entries", entries.len());
    let sections = entries
        .iter()
        .filter(|(id, _)| id.starts_with("sections/"))
        .count();
    assert_eq!(sections, 4, "four sections, each with its intro page");
    let all: String = entries.iter().map(|(_, t)| t.as_str()).collect();
    assert!(all.contains("```ptx") && all.contains("```sass"));
    assert!(
        all.contains("[B------:R-:W2:-:S04]"),
        "SASS with control codes"
    );
    assert!(
        all.matches("<!--").count() >= 4,
        "HTML comments, inline and block"
    );
    assert!(all.contains("<kbd>") && all.contains("<sub>") && all.contains("<small>"));
    let captioned = all.matches(".svg \"").count();
    assert!(captioned >= 4, "{captioned} captioned figures");
    for (id, text) in &entries {
        assert!(!old_paths(text).is_empty(), "{id} lists its old URL");
    }
}

#[test]
fn the_import_builds_with_no_error_and_every_old_url_redirects() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    imported_site(root);
    let out = run(root, &["build"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        !said.contains("error") && !said.contains("warning"),
        "{said}"
    );

    let mut redirects = 0;
    for (id, source) in entry_files(root) {
        let page = root.join("site").join(&id).join("index.html");
        assert!(page.is_file(), "{id} is published");
        for old in old_paths(&source) {
            let file = glossary::content::redirect_file(&old).expect("valid old path");
            let html = read(root, &format!("site/{file}"));
            let target = html
                .split("content=\"0; url=")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or_else(|| panic!("{old}: no refresh in {html}"));
            let landed = root.join("site").join(&file).parent().unwrap().join(target);
            assert_eq!(
                landed.canonicalize().expect("the redirect lands on a file"),
                page.canonicalize().unwrap(),
                "{old} -> {target}"
            );
            assert!(html.contains(&format!("href=\"https://imported.example.org/{id}/\"")));
            assert!(html.contains("noindex"), "{html}");
            redirects += 1;
        }
    }
    assert!(redirects >= 42, "{redirects} redirects");

    // Section intro pages head their groups; the home page links each.
    let home = read(root, "site/index.html");
    for s in [
        "device-hardware",
        "device-software",
        "host-software",
        "performance",
    ] {
        assert!(
            home.contains(&format!("<h3><a href=\"sections/{s}/index.html\">")),
            "{s}"
        );
    }
    // A caption with a link, on a figure with a dark variant.
    let sm = read(root, "site/terms/streaming-multiprocessor/index.html");
    assert!(
        sm.contains("<figure><picture><source srcset=\"../../media/figures/sm-layout.dark.svg\""),
        "{sm}"
    );
    assert!(
        sm.contains("<figcaption>One SM as four sub-partitions, each with a <a href=\"../warp-scheduler/index.html\">warp scheduler</a>"),
        "{sm}"
    );
    // HTML comments are gone; the safe inline HTML stays.
    let block = read(root, "site/terms/thread-block/index.html");
    assert!(block.contains("<kbd>Ctrl</kbd>"), "{block}");
    let smem = read(root, "site/terms/shared-memory/index.html");
    assert!(!smem.contains("interactive widget"), "{smem}");
    // Code passes through: SASS control codes are on the page as written.
    let sass = visible_text(&read(root, "site/terms/sass/index.html"));
    assert!(
        sass.contains("[B------:R-:W2:-:S04]  LDG.E R4, [R2.64] ;"),
        "{sass}"
    );
}
