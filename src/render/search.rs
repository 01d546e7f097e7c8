//! The static search index. Built at build time from published entries only and searched
//! in the reader's browser by `static/search.js`: no server, no third-party service.
//!
//! One file, `search-index.js`, which the page loads with a `<script>` tag so search also
//! works on a site opened straight from disk (browsers refuse `fetch` on `file://`). It
//! holds each entry's distinct body words rather than its text: the search matches terms,
//! and at 10,000 entries the full text would make a reader download tens of megabytes
//! (and every rebuild that touches a published entry rewrite them).

use std::collections::HashSet;
use std::path::PathBuf;

use serde::Serialize;

use crate::content::EntryId;

use super::input::OutputFile;

use super::inline::{render_inline, InlineContext};

use super::site_wide::PublishedPage;

/// One searchable page. Field names are the JSON the script reads.
#[derive(Debug, Serialize)]
pub struct SearchDoc<'a> {
    pub title: &'a str,
    pub name: &'a str,
    /// Other names (abbreviations): matched like the name, shown beside it.
    pub aliases: &'a [String],
    pub kind: &'static str,
    /// The summary's text, for matching.
    pub summary: String,
    /// The summary as HTML, links relative to the site root (the script prefixes them).
    pub summary_html: String,
    /// Root-relative, e.g. `terms/occupancy/index.html`.
    pub url: String,
    /// The body's distinct words, lowercased, in the order they first appear.
    pub text: &'a str,
}

/// The global the script tag defines; `search.js` reads it.
pub const SCRIPT_GLOBAL: &str = "glossarySearchIndex";

pub fn documents<'a>(pages: &'a [PublishedPage<'a>]) -> Vec<SearchDoc<'a>> {
    // Summaries link only to published pages: the index is the published site's.
    let published: HashSet<EntryId> = pages.iter().map(|p| p.entry.id.clone()).collect();
    pages
        .iter()
        .map(|p| {
            let written_at = p.entry.id.url_path();
            let summary = render_inline(
                &p.entry.meta.summary,
                &InlineContext {
                    written_at: &written_at,
                    root: "",
                    linkable: &published,
                },
            );
            SearchDoc {
                title: &p.entry.meta.title,
                name: p.entry.name(),
                aliases: &p.entry.meta.aliases,
                kind: p.entry.id.kind.singular(),
                summary: summary.text,
                summary_html: summary.html,
                url: p.file_url(),
                text: p.text,
            }
        })
        .collect()
}

pub fn index_files(pages: &[PublishedPage<'_>]) -> Vec<OutputFile> {
    let docs = documents(pages);
    let mut bytes = format!("window.{SCRIPT_GLOBAL} = ").into_bytes();
    // Serializing plain strings and numbers cannot fail; an empty index is the safe fallback.
    if serde_json::to_writer(&mut bytes, &docs).is_err() {
        bytes.truncate(SCRIPT_GLOBAL.len() + 10);
        bytes.extend_from_slice(b"[]");
    }
    bytes.extend_from_slice(b";\n");
    // `</` inside a string is harmless in a .js file, but escaping it keeps the same text
    // safe if someone inlines it into a page. Rare, so only copy when it occurs.
    if bytes.windows(2).any(|w| w == b"</") {
        let text = String::from_utf8_lossy(&bytes).replace("</", "<\\/");
        bytes = text.into_bytes();
    }
    vec![OutputFile {
        path: PathBuf::from("search-index.js"),
        bytes,
    }]
}

/// Words are kept whole (with their inner punctuation, so `__global__` and `sm_90` stay
/// searchable); only punctuation at their ends is dropped.
pub fn distinct_words(s: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut out = String::with_capacity(s.len() / 2);
    for word in s.split_whitespace() {
        let word = word
            .trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'))
            .to_lowercase();
        if !word.is_empty() && seen.insert(word.clone()) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_each_word_once_in_first_seen_order() {
        assert_eq!(
            distinct_words("Warp slots, warp SLOTS; __global__ (sm_90)."),
            "warp slots __global__ sm_90"
        );
    }
}
