//! What authors write: bodies that are Markdown with the project's own function calls,
//! code in several languages, figures, static files, raw HTML and symlinks.

mod support;

use std::path::Path;

use support::*;

fn build_ok(root: &Path, extra: &[&str]) -> String {
    let mut args = vec!["build"];
    args.extend_from_slice(extra);
    let o = run(root, &args);
    assert!(
        o.status.success(),
        "build failed:\n{}{}",
        stdout(&o),
        stderr(&o)
    );
    stdout(&o)
}

/// A build that must fail: its error output, with site/ checked untouched.
fn build_fails(root: &Path) -> String {
    write(root, "site/.glossary-site", "");
    write(root, "site/index.html", "previous build\n");
    let before = snapshot(&root.join("site"));
    let o = run(root, &["build"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        snapshot(&root.join("site")) == before,
        "a failed build changed site/"
    );
    err
}

/// Text of an HTML fragment with tags removed and entities decoded.
fn text_of(html: &str) -> String {
    let mut plain = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => plain.push(c),
            _ => {}
        }
    }
    plain
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The `<pre><code class="language-LANG">` block of a page.
fn code_block<'a>(page: &'a str, lang: &str) -> &'a str {
    let open = format!("<code class=\"language-{lang}\">");
    let start = page
        .find(&open)
        .unwrap_or_else(|| panic!("no {lang} block"));
    let end = page[start..].find("</code>").unwrap() + start;
    &page[start + open.len()..end]
}

const CODE: &str = "\n\nIn prose, braces {{1, 2}, {3, 4}} and {% raw %} and {# x #} stay text; `{{ value(row=\"full\") }}` in a span too.\n\n```cpp\nint a[2][2] = {{1, 2}, {3, 4}};\n// {{ value(row=\"full\", column=\"gbps\") }}\n```\n\n```ptx\nwmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1];\n```\n\n```python\nprint(f\"{{x}}\")  # {# not a comment tag #}\n```\n\n```sh\nnvcc -ptx k.cu -o - | grep '{%'\n```\n\n```sass\n  @!P0 IMAD.WIDE R2, R0, R3, c[0x0][0x160] ;\n```\n";

#[test]
fn bodies_are_markdown_and_code_is_literal() {
    let site = valid_site();
    let root = site.path();
    let path = root.join("content/terms/alpha.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{}{CODE}", text.trim_end())).unwrap();
    build_ok(root, &["--drafts"]);
    let page = read(root, "site-drafts/terms/alpha/index.html");

    // The call in prose became the recorded number; nothing else was evaluated.
    let prose = text_of(&page);
    assert!(
        !prose.contains("{{ value(row=\"full\", column=\"gbps\") }} GB/s"),
        "call not expanded"
    );
    assert!(prose.contains("Alpha runs at "), "{prose}");
    assert!(prose.contains("braces {{1, 2}, {3, 4}} and {% raw %} and {# x #} stay text"));
    assert!(prose.contains("{{ value(row=\"full\") }} in a span too"));

    assert_eq!(
        text_of(code_block(&page, "cpp")),
        "int a[2][2] = {{1, 2}, {3, 4}};\n// {{ value(row=\"full\", column=\"gbps\") }}\n"
    );
    let ptx = code_block(&page, "ptx");
    assert_eq!(
        text_of(ptx),
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1];\n"
    );
    // Highlighted, with classes: the instruction and the registers.
    assert!(
        ptx.contains("<span class=\"hl-keyword\">wmma.mma.sync"),
        "{ptx}"
    );
    assert!(
        ptx.contains("<span class=\"hl-builtin\">%f2</span>"),
        "{ptx}"
    );
    for lang in ["python", "sh", "sass", "cpp"] {
        let block = code_block(&page, lang);
        assert!(
            block.contains("<span class=\"hl-"),
            "{lang} not highlighted: {block}"
        );
        assert!(
            !block.contains("style="),
            "{lang} has inline styles: {block}"
        );
    }
    // Both themes have colours for the classes.
    let css = read(root, "site-drafts/static/style.css");
    assert!(css.contains(".hl-keyword") && css.contains("prefers-color-scheme: dark"));
}

#[test]
fn bad_calls_are_reported_at_file_line_and_column() {
    let site = valid_site();
    let root = site.path();
    let path = root.join("content/terms/beta.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines_before = text.trim_end().lines().count();
    std::fs::write(
        &path,
        format!(
            "{}\n\nTypo: {{{{ valeu(row=\"full\", column=\"gbps\") }}}}\n`{{{{ valeu() }}}}` in code is fine.\nFilter: {{{{ occupancy(arch=\"sm_90\", block=128, regs=32, show=\"warps\") | round }}}}\n",
            text.trim_end()
        ),
    )
    .unwrap();
    let err = build_fails(root);
    let typo = lines_before + 2;
    assert!(
        err.contains(&format!(
            "content/terms/beta.md:{typo}:10: unknown function `valeu` (a body can call value, ratio, occupancy, near_best, ncu)"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "content/terms/beta.md:{}:70: filters are not allowed in a body",
            typo + 2
        )),
        "{err}"
    );
    assert_eq!(err.matches("beta.md").count(), 2, "{err}");
}

/// A call with many arguments wraps over lines; it is evaluated as if on one, and what
/// comes after it is still reported at its own line.
#[test]
fn a_call_wrapped_over_lines_is_evaluated_and_later_lines_keep_their_numbers() {
    let site = valid_site();
    let root = site.path();
    let call = "It holds {{ occupancy(arch=\"sm_90\",\n    block=256, regs=40,\n    show=\"warps\") }} warps per SM.";
    append_body(root, "content/terms/beta.md", &format!("\n{call}\n"));
    build_ok(root, &["--drafts"]);
    let page = read(root, "site-drafts/terms/beta/index.html");
    let prose = text_of(&page)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(prose.contains("It holds 48 warps per SM."), "{prose}");

    let link = append_body(
        root,
        "content/terms/beta.md",
        "See [nowhere](../nowhere/).\n",
    );
    let err = build_fails(root);
    assert!(
        err.contains(&format!(
            "content/terms/beta.md:{link}:1: link to missing page `terms/nowhere`"
        )),
        "{err}"
    );
}

#[test]
fn one_run_reports_every_phase_sorted_and_one_mistake_once() {
    let site = empty_site();
    let root = site.path();
    copy_dir(
        &repo().join("tests/fixtures/invalid/every-phase/content"),
        &root.join("content"),
    );
    let out = run(root, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(".md:")).collect();
    // Front matter, a function call, a link: one error each, in file order. The entry with
    // the unknown field still exists, so b's `related` and body link to it are fine.
    let expected = [
        "a-unknown-field.md:4:1: front matter: unknown field `colour`",
        "c-bad-call.md:7:8: value() needs the argument `column`",
        "d-broken-link.md:5:1: link to missing page `terms/nowhere`",
    ];
    assert_eq!(lines.len(), expected.len(), "{err}");
    for (line, want) in lines.iter().zip(expected) {
        assert!(line.contains(want), "expected `{want}` in `{line}`:\n{err}");
    }
    assert!(!err.contains("b-refers"), "{err}");
    build_fails(root);
}

/// Append `text` to the entry's body.
fn append_body(root: &Path, rel: &str, text: &str) -> usize {
    let path = root.join(rel);
    let old = std::fs::read_to_string(&path).unwrap();
    let old = old.trim_end();
    std::fs::write(&path, format!("{old}\n{text}")).unwrap();
    old.lines().count() + 1
}

fn allow(root: &Path, settings: &str) {
    let path = root.join("glossary.toml");
    let old = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{old}\n[content]\n{settings}\n")).unwrap();
}

#[test]
fn figures_are_copied_with_dark_variants_and_static_files_reach_the_root() {
    let site = valid_site();
    let root = site.path();
    write(
        root,
        "content/terms/warp-slots.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    );
    write(
        root,
        "content/terms/warp-slots.dark.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><!--dark--></svg>",
    );
    write(root, "content/figures/shared.png", "not really a png");
    write(root, "static/CNAME", "glossary.test\n");
    write(root, "static/robots.txt", "User-agent: *\n");
    write(
        root,
        "static/.well-known/security.txt",
        "Contact: mailto:x@glossary.test\n",
    );
    append_body(
        root,
        "content/terms/alpha.md",
        "\n![Warp slots of one SM](warp-slots.svg)\n\n![A shared figure](shared.png \"Shared\")\n",
    );
    build_ok(root, &["--drafts"]);
    let page = read(root, "site-drafts/terms/alpha/index.html");
    assert!(
        page.contains(r#"<picture><source srcset="../../media/terms/warp-slots.dark.svg" media="(prefers-color-scheme: dark)"><img src="../../media/terms/warp-slots.svg" alt="Warp slots of one SM" loading="lazy"></picture>"#),
        "{page}"
    );
    // Titled and alone in its paragraph: a figure, the title its caption.
    assert!(page.contains(r#"<figure><img src="../../media/figures/shared.png" alt="A shared figure" loading="lazy"><figcaption>Shared</figcaption></figure>"#), "{page}");
    assert_eq!(
        read(root, "site-drafts/media/terms/warp-slots.dark.svg"),
        read(root, "content/terms/warp-slots.dark.svg")
    );
    assert_eq!(
        read(root, "site-drafts/media/figures/shared.png"),
        "not really a png"
    );
    // static/ reaches the root of the deployable site (a drafts preview writes its own
    // robots.txt that keeps crawlers out).
    build_ok(root, &[]);
    assert_eq!(read(root, "site/CNAME"), "glossary.test\n");
    assert_eq!(read(root, "site/robots.txt"), "User-agent: *\n");
    assert!(root.join("site/.well-known/security.txt").is_file());
    assert_eq!(read(root, "site-drafts/CNAME"), "glossary.test\n");
    // An image nobody references is not copied.
    write(root, "content/figures/unused.svg", "<svg/>");
    build_ok(root, &["--drafts"]);
    assert!(!root.join("site-drafts/media/figures/unused.svg").exists());
}

#[test]
fn every_image_reference_is_checked_at_its_line() {
    let site = valid_site();
    let root = site.path();
    let first = append_body(
        root,
        "content/terms/beta.md",
        "![Missing](missing.svg)\n![Remote](https://example.org/a.png)\n![Absolute](/img/a.png)\n![Data](data:image/png;base64,AAAA)\n![](empty-alt.svg)\n",
    );
    write(
        root,
        "content/terms/empty-alt.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    );
    let err = build_fails(root);
    for (line, what) in [
        (
            first,
            "image `missing.svg` not found beside the entry or in content/figures/",
        ),
        (
            first + 1,
            "image `https://example.org/a.png` is not a file of this project",
        ),
        (first + 2, "image `/img/a.png` is an absolute path"),
        (
            first + 3,
            "image `data:image/png;base64,AAAA` has the scheme `data:`; images must be local files",
        ),
        (first + 4, "image `empty-alt.svg` has no alt text"),
    ] {
        let want = format!("content/terms/beta.md:{line}:1: {what}");
        assert!(err.contains(&want), "expected `{want}` in:\n{err}");
    }
    // glossary.toml can allow remote and absolute references; the rest stay errors.
    allow(
        root,
        "allow_remote_images = true\nallow_absolute_images = true",
    );
    let err = build_fails(root);
    assert!(
        err.contains("missing.svg") && err.contains("no alt text"),
        "{err}"
    );
    assert!(
        !err.contains("example.org") && !err.contains("/img/a.png"),
        "{err}"
    );
}

#[test]
fn raw_html_is_refused_unless_allowed_and_then_sanitized() {
    let site = valid_site();
    let root = site.path();
    let first = append_body(
        root,
        "content/terms/alpha.md",
        "<script>alert(1)</script>\n\nSome <b onclick=\"steal()\">bold</b> text.\n",
    );
    let err = build_fails(root);
    assert!(
        err.contains(&format!("content/terms/alpha.md:{first}:1: raw HTML is not allowed in a body (`<script>alert(1)</script>`)")),
        "{err}"
    );
    assert!(
        err.contains(&format!("content/terms/alpha.md:{}:1: raw HTML", first + 2)),
        "{err}"
    );

    allow(root, "allow_html = true");
    build_ok(root, &["--drafts"]);
    let page = read(root, "site-drafts/terms/alpha/index.html");
    let body = &page[page.find("Some ").expect("text kept")..];
    assert!(body.starts_with("Some <b>bold</b> text."), "{body}");
    assert!(
        !page.contains("alert(1)") && !page.contains("steal()"),
        "{page}"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_followed_inside_the_project_and_refused_outside() {
    let site = valid_site();
    let root = site.path();
    write(
        root,
        "shared-entries/epsilon.md",
        "---\ntitle: What is epsilon?\nsummary: A linked term.\n---\nLinked body.\n",
    );
    std::os::unix::fs::symlink(
        root.join("shared-entries/epsilon.md"),
        root.join("content/terms/epsilon.md"),
    )
    .unwrap();
    build_ok(root, &["--drafts"]);
    assert!(read(root, "site-drafts/terms/epsilon/index.html").contains("Linked body."));

    let elsewhere = tempfile::tempdir().unwrap();
    write(
        elsewhere.path(),
        "zeta.md",
        "---\ntitle: What is zeta?\nsummary: Outside.\n---\nOutside body.\n",
    );
    std::os::unix::fs::symlink(
        elsewhere.path().join("zeta.md"),
        root.join("content/terms/zeta.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join("nowhere.md"), root.join("content/terms/eta.md")).unwrap();
    let err = build_fails(root);
    assert!(
        err.contains("content/terms/zeta.md: is a symlink to"),
        "{err}"
    );
    assert!(err.contains("outside the project"), "{err}");
    assert!(err.contains("content/terms/eta.md"), "{err}");
}

/// Editors and operating systems leave files beside entries: an Emacs lock (a dangling
/// symlink), macOS `._` metadata, backups, autosaves, hidden folders. None of them is an
/// entry, and none stops `build`, `check` or `review status`.
#[test]
fn editor_and_os_side_files_in_content_are_skipped() {
    let site = empty_site();
    let root = site.path();
    write(
        root,
        "content/terms/a.md",
        &term("What is a?", "A.", "", "Body."),
    );
    std::os::unix::fs::symlink("me@host.4242:1700000000", root.join("content/terms/.#a.md"))
        .unwrap();
    for junk in ["._a.md", "a.md~", "#a.md#", ".hidden/b.md"] {
        write(
            root,
            &format!("content/terms/{junk}"),
            "\0\u{1}not an entry",
        );
    }
    write(root, "content/reviews/terms/.#a.yaml", "not a signature");
    for command in [
        &["check"][..],
        &["review", "status"],
        &["build", "--drafts"],
    ] {
        let o = run(root, command);
        assert!(o.status.success(), "{command:?}:\n{}", text(&o));
    }
    assert!(root.join("site-drafts/terms/a/index.html").is_file());
    let pages: Vec<_> = std::fs::read_dir(root.join("site-drafts/terms"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(pages, ["a"], "only the entry got a page");
}
