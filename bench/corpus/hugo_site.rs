//! Writing the same corpus in Hugo's layout: YAML front matter in content/terms/*.md and
//! a minimal theme whose single page shows what a `glossary` term page shows (definition,
//! body with a highlighted CUDA block, measured table, related terms, sources, byline,
//! previous/next), with the same site-wide files on (sitemap, feed, 404): see [`CONFIG`].

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

/// The same work on both sides, as far as the two tools allow:
/// - pages: a page per term, the home page with the A–Z list of every term and its summary,
///   `sitemap.xml` of every page, one feed of the 50 newest entries (glossary's Atom
///   `feed.xml` has 50: Hugo's RSS `index.xml` is limited to 50 too, and only the home
///   page has one, as glossary has one feed) and `404.html`;
/// - each term page shows what glossary's does: definition, body, the measured table,
///   related terms with their summaries, sources, byline, previous/next links;
/// - code: fenced blocks highlighted with inline styles (Chroma), as glossary highlights
///   every CUDA block (its own lexer, classes and a stylesheet).
///
/// What still differs (none of it can be configured away):
/// - glossary also verifies two SSH signatures per entry, checks every link and source,
///   reads the measured table from a record, draws it again as an SVG bar chart, writes the
///   search page and the sharded search index (a Hugo site would run pagefind as a second
///   step) and the contents sidebar; Hugo does none of that. All of it is work glossary
///   does and Hugo is spared.
/// - Hugo renders the terms section's own list page (`terms/index.html`), which glossary
///   does not write; its A–Z list is on the home page. The kind is off (`section`), so
///   neither writes it.
/// - Summaries are plain text in this corpus: glossary renders them as inline Markdown
///   (with a fast path for text without markup), Hugo's theme prints them as they are.
/// - Taxonomies (tags, categories) do not exist in glossary: off.
const CONFIG: &str = r#"baseURL = "https://gpu-glossary.example.org/"
title = "GPU Glossary (synthetic benchmark corpus)"
disableKinds = ["taxonomy", "term", "section"]

[outputs]
home = ["html", "rss"]
page = ["html"]

[services.rss]
limit = 50

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
<meta name="description" content="{{ .Params.summary }}"><link rel="canonical" href="{{ .Permalink }}">
<link rel="alternate" type="application/rss+xml" href="{{ "index.xml" | relURL }}"></head>
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
{{ range . }}{{ with site.GetPage (printf "/terms/%s" .) }}<li><a href="{{ .RelPermalink }}">{{ .Params.name }}</a> — <span class="summary">{{ .Params.summary }}</span></li>{{ end }}{{ end }}
</ul></section>{{ end }}
{{ with .Params.sources }}<section><h2 id="sources">Sources</h2><ul class="sources">
{{ range . }}<li><a href="{{ .url }}">{{ .title }}</a> <span class="checked">(checked {{ .checked }})</span></li>{{ end }}
</ul></section>{{ end }}
<section class="byline"><h2 id="byline">Byline</h2><dl><dt>Written by</dt><dd>{{ .Params.author }}</dd><dt>Reviewed by</dt><dd>{{ .Params.reviewer }}</dd></dl></section>
<nav class="pager">{{ with .PrevInSection }}<a rel="prev" href="{{ .RelPermalink }}">{{ .Params.name }}</a>{{ end }}
{{ with .NextInSection }}<a rel="next" href="{{ .RelPermalink }}">{{ .Params.name }}</a>{{ end }}</nav>
</article>{{ end }}
"#,
    ),
    (
        "index.html",
        r#"{{ define "main" }}<h1>{{ site.Title }}</h1><h2 id="terms-az">Terms A–Z</h2><dl class="term-index">
{{ range (where site.RegularPages "Section" "terms").ByTitle }}<dt><a href="{{ .RelPermalink }}">{{ .Params.name }}</a></dt><dd>{{ .Params.summary }}</dd>
{{ end }}</dl>{{ end }}
"#,
    ),
    (
        "404.html",
        r#"{{ define "main" }}<h1>Page not found</h1><p>See the <a href="{{ "/" | relURL }}">index of every term</a>.</p>{{ end }}
"#,
    ),
    (
        "_default/rss.xml",
        r#"<rss version="2.0"><channel><title>{{ site.Title }}</title><link>{{ .Permalink }}</link>
{{ range first 50 (where site.RegularPages "Section" "terms") }}<item><title>{{ .Title }}</title><link>{{ .Permalink }}</link><guid>{{ .Permalink }}</guid><description>{{ .Params.summary }}</description><author>{{ .Params.author }}</author></item>
{{ end }}</channel></rss>
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
