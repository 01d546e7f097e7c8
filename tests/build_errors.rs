//! Bad input: one small broken site per failure under tests/fixtures/invalid/. Each must
//! fail with an error naming the file (and line where the file has one) and leave the
//! previous site untouched.

mod support;

use std::path::Path;

use support::*;

/// A fixture is a `content/` folder and an `expect` file: lines that must all appear in
/// the error output.
fn check_fixture(fixture: &Path) -> Result<(), String> {
    let site = empty_site();
    let root = site.path();
    copy_dir(&fixture.join("content"), &root.join("content"));
    // A previous build's output, which the failed build must not touch.
    write(root, "site/.glossary-site", "");
    write(root, "site/index.html", "previous build\n");
    let before = snapshot(&root.join("site"));

    let mut problems = Vec::new();
    for command in [&["build"][..], &["check"][..]] {
        let out = run(root, command);
        let err = stderr(&out);
        if out.status.code() != Some(1) {
            problems.push(format!(
                "{command:?} exited {:?}:\n{err}",
                out.status.code()
            ));
        }
        if err.contains("panicked") {
            problems.push(format!("{command:?} panicked:\n{err}"));
        }
        let expect = std::fs::read_to_string(fixture.join("expect")).unwrap();
        for line in expect.lines().filter(|l| !l.is_empty()) {
            if !err.contains(line) {
                problems.push(format!("{command:?}: expected `{line}` in:\n{err}"));
            }
        }
    }
    if snapshot(&root.join("site")) != before {
        problems.push("site/ changed".into());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn every_broken_fixture_fails_with_its_error_and_leaves_site_untouched() {
    let dir = repo().join("tests/fixtures/invalid");
    let mut fixtures: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 12, "fixtures went missing: {fixtures:?}");
    let failures: Vec<String> = fixtures
        .iter()
        .filter_map(|f| {
            check_fixture(f)
                .err()
                .map(|e| format!("== {}\n{e}", f.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn check_lists_every_error_not_only_the_first() {
    let site = empty_site();
    copy_dir(
        &repo().join("tests/fixtures/invalid/several-errors/content"),
        &site.path().join("content"),
    );
    let out = run(site.path(), &["check"]);
    let err = stderr(&out);
    assert_eq!(err.matches("error: ").count(), 3, "{err}"); // two errors and the count line
    assert!(err.contains("2 error(s)"), "{err}");
}

/// Hostile files: invalid UTF-8, an alias bomb, deep nesting, an absurd date. Each is an
/// error naming its file; nothing panics or hangs. (CRLF line ends are fine.)
#[test]
fn hostile_input_gives_errors_not_panics() {
    let site = empty_site();
    let root = site.path();
    let mut bomb = String::from("---\ntitle: x\nsummary: y\nrelated: &a [\"w\",\"w\",\"w\",\"w\",\"w\",\"w\",\"w\",\"w\",\"w\"]\n");
    let mut prev = 'a';
    for n in 'b'..='j' {
        bomb.push_str(&format!(
            "slug: &{n} [{}]\n",
            vec![format!("*{prev}"); 9].join(",")
        ));
        prev = n;
    }
    bomb.push_str("---\n");
    write(root, "content/terms/bomb.md", &bomb);
    write(
        root,
        "content/terms/deep.md",
        &format!(
            "---\ntitle: x\nsummary: y\nrelated: {}\n---\n",
            "[".repeat(5000)
        ),
    );
    write(root, "content/terms/date.md", "---\ntitle: x\nsummary: y\nsources:\n  - title: t\n    url: u\n    checked: 99999-01-01\n---\n");
    write(
        root,
        "content/terms/crlf.md",
        "---\r\ntitle: What is crlf?\r\nsummary: Windows line ends.\r\n---\r\nBody.\r\n",
    );
    std::fs::write(
        root.join("content/terms/binary.md"),
        [0xff, 0xfe, 0x00, 0x2d, 0x2d, 0x2d, 0x0a, 0xc3],
    )
    .unwrap();

    let out = run(root, &["check"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for file in ["bomb.md:", "deep.md:", "date.md:7:", "binary.md:"] {
        assert!(
            err.contains(&format!("content/terms/{file}")),
            "{file} not named in:\n{err}"
        );
    }
    assert!(
        !err.contains("crlf.md"),
        "CRLF front matter is valid:\n{err}"
    );
}

/// A template set from before the A-Z index was rendered a letter group at a time lacks
/// `index_letter.html`: the build says which file is missing and how to add it, and leaves
/// the previous site as it was.
#[test]
fn a_template_set_without_the_letter_group_template_says_what_to_add() {
    let site = empty_site();
    let root = site.path();
    write(
        root,
        "content/terms/a.md",
        &term("What is a?", "An a.", "", "Body."),
    );
    std::fs::remove_file(root.join("templates/index_letter.html")).unwrap();
    write(root, "site/.glossary-site", "");
    write(root, "site/index.html", "previous build\n");
    let before = snapshot(&root.join("site"));
    let out = run(root, &["build"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("index_letter.html") && err.contains("template is missing"),
        "{err}"
    );
    assert!(
        err.contains("g.html"),
        "says how index.html prints a group: {err}"
    );
    assert!(snapshot(&root.join("site")) == before, "site/ changed");
}

/// Editors and operating systems leave files beside templates too: an Emacs lock (a
/// dangling symlink), macOS `._` metadata (not UTF-8), backups, hidden folders. They are
/// skipped by the rule `content/` uses; a real template that does not parse is still an
/// error, every one of them named.
#[test]
fn side_files_in_templates_are_skipped_and_every_broken_template_is_named() {
    let site = empty_site();
    let root = site.path();
    write(
        root,
        "content/terms/a.md",
        &term("What is a?", "An a.", "", "Body."),
    );
    let templates = root.join("templates");
    std::os::unix::fs::symlink("me@host.4242:1700000000", templates.join(".#base.html")).unwrap();
    std::fs::write(
        templates.join("._base.html"),
        b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \xff\xfe{% if %}",
    )
    .unwrap();
    write(root, "templates/.hidden/base.html", "{% if %}");
    write(root, "templates/base.html~", "{% if %}");
    let out = run(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(root.join("site-drafts/terms/a/index.html").is_file());

    write(root, "templates/broken.html", "{% if %}");
    write(root, "templates/partials/broken.html", "{% for %}");
    let out = run(root, &["build", "--drafts"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("templates/broken.html: template error: Failed to parse"),
        "{err}"
    );
    assert!(
        err.contains("templates/partials/broken.html: template error: Failed to parse 'partials/broken.html'"),
        "{err}"
    );
    assert!(
        !err.contains("._base.html") && !err.contains(".#base.html"),
        "{err}"
    );

    // A template that is a link to nowhere is named, with where it points.
    std::fs::remove_file(templates.join("broken.html")).unwrap();
    std::fs::remove_file(templates.join("partials/broken.html")).unwrap();
    std::os::unix::fs::symlink("../shared/footer.html", templates.join("footer.html")).unwrap();
    let out = run(root, &["build", "--drafts"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("templates/footer.html: template error: a symbolic link to ../shared/footer.html, which does not exist"),
        "{err}"
    );
}

/// A footer link to an entry that does not exist is one error at glossary.toml's
/// `footer`, in `check` and `build`; it used to become plain text on every page, silently.
#[test]
fn a_footer_link_to_no_entry_is_one_error_at_the_footer() {
    let site = empty_site();
    let root = site.path();
    write(
        root,
        "content/terms/a.md",
        &term("What is a?", "A.", "", "Body."),
    );
    let config = std::fs::read_to_string(root.join("glossary.toml")).unwrap();
    let footer = "footer = \"See [guide](terms/zzz/) and [a](terms/a/).\"\n";
    let (settings, rest) = config.split_once("\n[").unwrap();
    write(
        root,
        "glossary.toml",
        &format!("{settings}\n{footer}\n[{rest}"),
    );
    for command in [&["check"][..], &["build", "--drafts"]] {
        let out = run(root, command);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{command:?}: {err}");
        assert_eq!(
            err.matches("glossary.toml: `footer` links to `terms/zzz/`, which is no entry")
                .count(),
            1,
            "{command:?}: {err}"
        );
        assert!(!err.contains("terms/a/"), "{command:?}: {err}");
    }
    assert!(!root.join("site-drafts").exists());
}

/// A template that fails on an entry's page names the entry as well as the template: the
/// same template renders every entry of its kind.
#[test]
fn a_template_error_on_an_entry_page_names_the_entry() {
    let site = empty_site();
    let root = site.path();
    write(
        root,
        "content/terms/a.md",
        &term("What is a?", "A.", "", "Body."),
    );
    let template = std::fs::read_to_string(root.join("templates/term.html")).unwrap();
    write(
        root,
        "templates/term.html",
        &template.replacen(
            "{% block meta %}",
            "{% block meta %}{{ page.no_such_field }}",
            1,
        ),
    );
    for command in [&["check"][..], &["build", "--drafts"]] {
        let out = run(root, command);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{command:?}: {err}");
        let line = err
            .lines()
            .find(|l| l.contains("no_such_field"))
            .unwrap_or_else(|| panic!("{command:?}: {err}"));
        assert!(
            line.contains("content/terms/a.md: rendering ")
                && line.contains("templates/term.html: "),
            "{command:?}: {err}"
        );
    }
}

/// Every way a link is written (body, reference, autolink, image; summary, credit,
/// licence, sources), with every spelling of a scheme a browser would run or leave the
/// site by, is an error at its file and line, and no such href is written.
#[test]
fn links_with_a_scheme_other_than_http_https_mailto_are_errors_at_their_line() {
    // (as written in Markdown, as the error shows it, its scheme)
    let variants = [
        ("javascript:alert(1)", "javascript:alert(1)", "javascript"),
        ("JaVaScRiPt:alert(1)", "JaVaScRiPt:alert(1)", "javascript"),
        (
            "java&#x09;script:alert(1)",
            "java\\tscript:alert(1)",
            "javascript",
        ),
        (
            "java&Tab;script:alert(1)",
            "java\\tscript:alert(1)",
            "javascript",
        ),
        (
            "java&#10;script:alert(1)",
            "java\\nscript:alert(1)",
            "javascript",
        ),
        (
            "%6Aavascript:alert(1)",
            "%6Aavascript:alert(1)",
            "javascript",
        ),
        ("vbscript:msgbox(1)", "vbscript:msgbox(1)", "vbscript"),
        ("data:text/html,x", "data:text/html,x", "data"),
        ("file:///etc/passwd", "file:///etc/passwd", "file"),
    ];
    let site = empty_site();
    let root = site.path();
    for (i, (dest, _, _)) in variants.iter().enumerate() {
        // An autolink is one only with a scheme CommonMark knows to read as one (no
        // entities, no escapes).
        let auto = if dest.contains(['&', '%']) {
            "javascript:alert(2)"
        } else {
            dest
        };
        write(
            root,
            &format!("content/terms/v{i}.md"),
            &format!(
                "---\ntitle: V{i}\nsummary: 'Summary [s]({dest}).'\ncredit: 'Credit [c]({dest}).'\n\
                 license: 'License [l]({dest}).'\nsources:\n  - title: S\n    url: '{dest}'\n    \
                 checked: 2026-01-01\n---\nBody [b]({dest}).\n\nRef [r][r].\n\n[r]: {dest}\n\n\
                 ![pic]({dest})\n\n<{auto}>\n"
            ),
        );
    }
    for command in [&["build"][..], &["check"][..], &["build", "--drafts"][..]] {
        let out = run(root, command);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{command:?}:\n{err}");
        for (i, (dest, shown, scheme)) in variants.iter().enumerate() {
            let at = |line: usize| format!("content/terms/v{i}.md:{line}:1: ");
            let why = format!("has the scheme `{scheme}:`; only http:, https:, mailto:");
            let auto_shown = if dest.contains(['&', '%']) {
                "javascript:alert(2)"
            } else {
                shown
            };
            for (line, what) in [
                (3, format!("`summary`: link `{shown}` {why}")),
                (4, format!("`credit`: link `{shown}` {why}")),
                (5, format!("`license`: link `{shown}` {why}")),
                (11, format!("link `{shown}` {why}")),
                (13, format!("link `{shown}` {why}")),
                (
                    17,
                    format!(
                        "image `{shown}` has the scheme `{scheme}:`; images must be local files \
                         of this project (beside the entry or in content/figures/), or http: or \
                         https: URLs with `allow_remote_images = true` under [content] in \
                         glossary.toml"
                    ),
                ),
                (19, format!("link `{auto_shown}` has the scheme `")),
            ] {
                let want = format!("{}{what}", at(line));
                assert!(
                    err.contains(&want),
                    "{command:?}: expected `{want}` in:\n{err}"
                );
            }
            // YAML decodes no HTML entity: the source's url is the text as written.
            let source = format!("{}source \"S\": url `{dest}` must be an absolute", at(8));
            assert!(
                err.contains(&source),
                "{command:?}: expected `{source}` in:\n{err}"
            );
        }
        assert!(!root.join("site").exists() && !root.join("site-drafts").exists());
    }
}
