//! Writing the same corpus in Hugo's layout: YAML front matter in content/terms/*.md and
//! a minimal theme whose single page shows what a `glossary` term page shows (definition,
//! body with a highlighted CUDA block, measured table, related terms, sources, byline).

use std::fmt::Write as _;
use std::path::Path;

use glossary::error::Result;

use super::glossary_site::write_file;
use super::model::{self, Corpus, Term};

pub fn write(corpus: &Corpus, root: &Path) -> Result<()> {
    write_file(&root.join("hugo.toml"), CONFIG)?;
    for (name, text) in LAYOUTS {
        write_file(&root.join("layouts").join(name), text)?;
    }
    write_file(
        &root.join("content/terms/_index.md"),
        "---\ntitle: Terms\n---\n",
    )?;
    for term in &corpus.terms {
        write_file(
            &root.join("content/terms").join(format!("{}.md", term.slug)),
            &entry_text(corpus, term),
        )?;
    }
    Ok(())
}

/// Highlighting is on, as in `glossary`: fenced blocks are highlighted with inline styles.
/// Kinds `glossary` does not write (taxonomies, feeds, sitemap) are off so both tools
/// write the same pages.
const CONFIG: &str = r#"baseURL = "https://gpu-glossary.example.org/"
title = "GPU Glossary (synthetic benchmark corpus)"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]

[markup.highlight]
codeFences = true
noClasses = true
guessSyntax = false

[markup.goldmark.renderer]
unsafe = false
"#;

const LAYOUTS: &[(&str, &str)] = &[
    (
        "_default/baseof.html",
        r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ .Title }} — {{ site.Title }}</title>
<meta name="description" content="{{ .Params.summary }}"><link rel="canonical" href="{{ .Permalink }}"></head>
<body><header><a href="{{ "/" | relURL }}">{{ site.Title }}</a></header>
<main>{{ block "main" . }}{{ end }}</main>
<footer><p>Every measured number on this site comes from a recorded run on a named verification node.</p></footer>
</body></html>
"#,
    ),
    (
        "_default/single.html",
        r#"{{ define "main" }}<article class="entry term">
<h1>{{ .Title }}</h1>
<p class="definition">{{ .Params.summary }}</p>
<div class="body">{{ .Content }}</div>
{{ with .Params.related }}<section><h2 id="related">Related terms</h2><ul class="related">
{{ range . }}{{ with site.GetPage (printf "/terms/%s" .) }}<li><a href="{{ .RelPermalink }}">{{ .Params.name }}</a></li>{{ end }}{{ end }}
</ul></section>{{ end }}
{{ with .Params.sources }}<section><h2 id="sources">Sources</h2><ul class="sources">
{{ range . }}<li><a href="{{ .url }}">{{ .title }}</a> <span class="checked">(checked {{ .checked }})</span></li>{{ end }}
</ul></section>{{ end }}
<section class="byline"><h2 id="byline">Byline</h2><dl><dt>Written by</dt><dd>{{ .Params.author }}</dd><dt>Reviewed by</dt><dd>{{ .Params.reviewer }}</dd></dl></section>
</article>{{ end }}
"#,
    ),
    (
        "_default/list.html",
        r#"{{ define "main" }}<h1>{{ .Title }}</h1><dl class="term-index">
{{ range .Pages.ByTitle }}<dt><a href="{{ .RelPermalink }}">{{ .Params.name }}</a></dt><dd>{{ .Params.summary }}</dd>
{{ end }}</dl>{{ end }}
"#,
    ),
    (
        "index.html",
        r#"{{ define "main" }}<h1>{{ site.Title }}</h1><h2 id="terms-az">Terms A–Z</h2><dl class="term-index">
{{ range (where site.RegularPages "Section" "terms").ByTitle }}<dt><a href="{{ .RelPermalink }}">{{ .Params.name }}</a></dt><dd>{{ .Params.summary }}</dd>
{{ end }}</dl>{{ end }}
"#,
    ),
];

/// Hugo cannot read records, so the numbers `glossary` pulls from the record are written
/// into the body (the quoted value) and a Markdown table (the measured table).
fn entry_text(corpus: &Corpus, term: &Term) -> String {
    let cell = |row: &str, column: &str| {
        corpus
            .configs
            .iter()
            .find(|c| c.label == row)
            .and_then(|c| c.column(column))
            .map(|v| v.display())
            .unwrap_or_default()
    };
    let mut s = model::front_matter_head(corpus, term);
    let _ = writeln!(
        s,
        "author: {}\nreviewer: {}",
        model::AUTHOR,
        model::REVIEWER
    );
    s.push_str("---\n");
    // Chroma, Hugo's highlighter, has no CUDA lexer: a ```cuda fence is left plain, which
    // would compare glossary's highlighting with no highlighting at all. C++ is the
    // closest lexer Chroma has, so Hugo's copy fences the same code as ```cpp.
    s.push_str(&hugo_fences(&term.body_head));
    s.push_str(&cell(term.quoted.0, term.quoted.1));
    s.push_str(&hugo_fences(&term.body_tail));
    s.push_str("\n## Measured table\n\n| ");
    s.push_str(&model::COLUMNS.join(" | "));
    s.push_str(" |\n|");
    s.push_str(&"---|".repeat(model::COLUMNS.len()));
    s.push('\n');
    for row in &term.rows {
        let cells: Vec<String> = model::COLUMNS.iter().map(|c| cell(row, c)).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

fn hugo_fences(markdown: &str) -> String {
    markdown.replace("```cuda\n", "```cpp\n")
}
