//! syntaxmate: a TextMate engine with its own (Rust) regex engine, reporting each token's
//! scope names; mapped to classes by the table, each scope name's answer cached as
//! glossary caches syntect's per scope.

use std::collections::HashMap;

use syntaxmate::{GrammarRegistry, ScopeStackId, Tokenizer, TokenizerOptions};

use crate::classes::{class_of, Builder, Runs};
use crate::Block;

const GRAMMARS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/grammars");

/// syntaxmate as it comes: its tokenizer keeps a line cache (32,768 lines by default), so
/// a line it has tokenized in the same state before is not tokenized again.
pub fn highlighter() -> impl FnMut(&Block) -> Option<Runs> {
    run(TokenizerOptions::default())
}

/// The engine alone: its line cache off (`line_cache_entries: 0`).
pub fn highlighter_without_line_cache() -> impl FnMut(&Block) -> Option<Runs> {
    run(TokenizerOptions {
        line_cache_entries: 0,
        ..TokenizerOptions::default()
    })
}

fn run(options: TokenizerOptions) -> impl FnMut(&Block) -> Option<Runs> {
    let mut tokenizers: HashMap<&'static str, Tokenizer> = HashMap::new();
    for name in ["cuda", "ptx", "sass"] {
        let mut registry = GrammarRegistry::new();
        let json = std::fs::read_to_string(format!("{GRAMMARS}/{name}.tmLanguage.json"))
            .expect("grammar");
        let root = registry.add_json(&json).expect("grammar loads");
        let tokenizer =
            Tokenizer::new(&registry, root, options.clone()).expect("tokenizer");
        tokenizers.insert(name, tokenizer);
    }
    // (language, scope stack) → class: the tokenizer interns its scope stacks, so this is
    // the per-scope cache glossary keeps for syntect.
    let mut known: HashMap<(&'static str, ScopeStackId), &'static str> = HashMap::new();
    move |b: &Block| {
        let tokenizer = tokenizers.get_mut(b.lang)?;
        let mut state = tokenizer.initial_state();
        let mut out = Builder::default();
        let mut tokens = Vec::new();
        for (n, line) in b.code.lines().enumerate() {
            if n > 0 {
                out.newline();
            }
            tokenizer
                .tokenize_line_into(line, &mut state, &mut tokens)
                .ok()?;
            let mut at = 0;
            for t in &tokens {
                let r = t.range();
                if r.start > at {
                    out.push("", &line[at..r.start]);
                }
                let class = match t.scope_stack() {
                    Some(id) => *known
                        .entry((b.lang, id))
                        .or_insert_with(|| class_of(t.scopes().collect::<Vec<_>>().into_iter())),
                    None => class_of(t.scopes().collect::<Vec<_>>().into_iter()),
                };
                out.push(class, &line[r.clone()]);
                at = r.end;
            }
            if at < line.len() {
                out.push("", &line[at..]);
            }
        }
        Some(out.finish())
    }
}
