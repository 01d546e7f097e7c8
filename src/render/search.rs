//! The static search index. Built at build time from published entries only and searched
//! in the reader's browser by `static/search.js`: no server, no third-party service.
//!
//! Two files with the same data: `search-index.json` for tools, and `search-index.js`,
//! which the page loads with a `<script>` tag so search also works on a site opened
//! straight from disk (browsers refuse `fetch` on `file://`).

use std::path::PathBuf;

use serde::Serialize;

use crate::build::OutputFile;

use super::site_wide::PublishedPage;

/// One searchable page. Field names are the JSON the script reads.
#[derive(Debug, Serialize)]
pub struct SearchDoc {
    pub title: String,
    pub name: String,
    pub kind: &'static str,
    pub summary: String,
    /// Root-relative, e.g. `terms/occupancy/index.html`.
    pub url: String,
    /// Body text with whitespace collapsed.
    pub text: String,
}

/// The global the script tag defines; `search.js` reads it.
pub const SCRIPT_GLOBAL: &str = "glossarySearchIndex";

pub fn documents(pages: &[PublishedPage<'_>]) -> Vec<SearchDoc> {
    pages
        .iter()
        .map(|p| SearchDoc {
            title: p.entry.meta.title.clone(),
            name: p.entry.name().to_string(),
            kind: p.entry.id.kind.singular(),
            summary: p.entry.meta.summary.clone(),
            url: p.file_url(),
            text: collapse_whitespace(p.text),
        })
        .collect()
}

pub fn index_files(pages: &[PublishedPage<'_>]) -> Vec<OutputFile> {
    let docs = documents(pages);
    // Serializing plain strings and numbers cannot fail; an empty index is the safe fallback.
    let json = serde_json::to_string(&docs).unwrap_or_else(|_| "[]".into());
    // `</` inside a string would still be harmless in a .js file, but escaping it keeps the
    // same text safe if someone inlines it into a page.
    let script = format!("window.{SCRIPT_GLOBAL} = {};\n", json.replace("</", "<\\/"));
    vec![
        OutputFile {
            path: PathBuf::from("search-index.json"),
            bytes: json.into_bytes(),
        },
        OutputFile {
            path: PathBuf::from("search-index.js"),
            bytes: script.into_bytes(),
        },
    ]
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
