//! tree-sitter-highlight with tree-sitter-cuda (CUDA only): its own node kinds and
//! highlight names, mapped onto the nearest `hl-*` classes. Not the same scopes as
//! glossary's grammar (a parser, not a TextMate grammar): timed beside the others, and its
//! output shown, but it cannot match syntect's token for token.

use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

use crate::classes::{Builder, Runs};
use crate::Block;

const NAMES: &[(&str, &str)] = &[
    ("comment", "hl-comment"),
    ("string", "hl-string"),
    ("number", "hl-number"),
    ("keyword", "hl-keyword"),
    ("type", "hl-type"),
    ("function.builtin", "hl-builtin"),
    ("variable.builtin", "hl-builtin"),
    ("constant.builtin", "hl-keyword"),
    ("attribute", "hl-cuda"),
    ("function", ""),
    ("variable", ""),
    ("operator", ""),
    ("punctuation", ""),
    ("property", ""),
    ("constant", ""),
    ("label", ""),
    ("delimiter", ""),
    ("escape", "hl-string"),
];

pub fn highlighter() -> impl FnMut(&Block) -> Option<Runs> {
    let query = format!(
        "{}\n{}",
        tree_sitter_c::HIGHLIGHT_QUERY,
        tree_sitter_cuda::HIGHLIGHTS_QUERY
    );
    let mut config =
        HighlightConfiguration::new(tree_sitter_cuda::language(), "cuda", &query, "", "")
            .expect("query");
    let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
    config.configure(&names);
    let mut highlighter = Highlighter::new();
    move |b: &Block| {
        if b.lang != "cuda" {
            return None;
        }
        let events = highlighter
            .highlight(&config, b.code.as_bytes(), None, |_| None)
            .ok()?;
        let mut out = Builder::default();
        let mut stack: Vec<&'static str> = Vec::new();
        for e in events {
            match e.ok()? {
                HighlightEvent::HighlightStart(h) => stack.push(NAMES[h.0].1),
                HighlightEvent::HighlightEnd => {
                    stack.pop();
                }
                HighlightEvent::Source { start, end } => {
                    out.push(stack.last().copied().unwrap_or(""), &b.code[start..end])
                }
            }
        }
        Some(out.finish())
    }
}
