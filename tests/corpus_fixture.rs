//! The realistic corpus (`tests/fixtures/sites/corpus`): a glossary written for this test
//! the way a GPU team writes one (sections, aliases, figures with dark variants, code in
//! CUDA, C++, PTX, SASS, Python and shell with brace initialisers and PTX register lists,
//! tables, footnotes) builds with no error, and what it holds reaches the pages. The
//! browser layout test (tests/browser/tests/layout.test.mjs) opens every page it makes.

mod support;
use support::signed as common;

use std::path::{Path, PathBuf};

use common::{build, read};
use support::{copy_dir, repo, stderr};

fn corpus() -> PathBuf {
    repo().join("tests/fixtures/sites/corpus")
}

fn entries(kind: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join("content").join(kind))
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "md"));
    files.sort();
    files
}

fn all_text() -> String {
    ["terms", "lessons", "guides"]
        .iter()
        .flat_map(|k| entries(k))
        .map(|p| read(&p))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_corpus_is_as_realistic_as_the_issue_asks() {
    let count: usize = ["terms", "lessons", "guides"]
        .iter()
        .map(|k| entries(k).len())
        .sum();
    assert!(count >= 60, "{count} entries");
    let text = all_text();
    for fence in [
        "```cuda",
        "```cpp",
        "```ptx",
        "```sass",
        "```python",
        "```sh",
    ] {
        assert!(text.contains(fence), "no {fence} block");
    }
    assert!(
        text.contains("= {{1, 2}, {3, 4}};"),
        "a nested brace initialiser"
    );
    assert!(text.contains("{%f0, %f1, %f2, %f3}"), "a PTX register list");
    assert!(text.contains("\n|---|"), "a Markdown table");
    assert!(text.contains("[^"), "a footnote");
    assert!(text.matches("\naliases: [").count() >= 30, "aliases");
    assert!(text.matches("\nsection: ").count() >= 50, "sections");
}

fn built() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(&corpus(), dir.path());
    copy_dir(&repo().join("templates"), &dir.path().join("templates"));
    let out = build(dir.path(), &["--drafts"]);
    assert!(
        out.status.success(),
        "the corpus must build without error:\n{}",
        stderr(&out)
    );
    let site = dir.path().join("site-drafts");
    (dir, site)
}

fn page(site: &Path, rel: &str) -> String {
    read(&site.join(rel))
}

#[test]
fn the_corpus_builds_and_its_pages_carry_what_it_wrote() {
    let (_dir, site) = built();
    for kind in ["terms", "lessons", "guides"] {
        for file in entries(kind) {
            let slug = file.file_stem().and_then(|s| s.to_str()).expect("slug");
            assert!(
                site.join(kind).join(slug).join("index.html").is_file(),
                "{kind}/{slug} has no page"
            );
        }
    }
    // Code survives as code: braces and register lists are literal text.
    let kernel = page(&site, "terms/kernel/index.html");
    assert!(kernel.contains("{{") || kernel.contains("{<"), "{kernel}");
    let tc = page(&site, "terms/tensor-core/index.html");
    assert!(tc.contains("%f0"), "{tc}");
    // Aliases, sections, reading order.
    assert!(tc.contains("Also called <b>TC</b>"), "{tc}");
    let index = page(&site, "index.html");
    assert!(index.contains("<dt class=\"alias\">SM</dt>"), "{index}");
    for section in [
        "Lessons",
        "Device hardware",
        "Execution model",
        "Memory",
        "Compilation and tools",
        "Guides",
    ] {
        assert!(index.contains(&format!("<h3>{section}</h3>")), "{section}");
    }
    let lesson = page(&site, "lessons/day-1-first-kernel/index.html");
    assert!(
        lesson.contains("<nav class=\"toc\""),
        "a lesson lists its headings"
    );
    assert!(lesson.contains("class=\"footnote-definition\""), "{lesson}");
    assert!(lesson.contains("rel=\"next\" href=\"../../lessons/day-2-memory-patterns/index.html\""));
    let guide = page(&site, "guides/porting-from-cpu/index.html");
    assert!(guide.contains("<strong>Credit:</strong>"), "{guide}");
}
