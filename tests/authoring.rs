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
            "content/terms/beta.md:{typo}:10: unknown function `valeu` (a body can call value, ratio, occupancy)"
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
