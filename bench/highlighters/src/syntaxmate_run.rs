//! syntaxmate: a TextMate engine with its own (Rust) regex engine, reporting each token's
//! scope names; mapped to classes by the table, each scope name's answer cached as
//! glossary caches syntect's per scope. For CUDA, PTX and SASS with glossary's grammars
//! as tmLanguage JSON (`grammars/`); for every other fence with the grammars it bundles
//! (VS Code's and Shiki's, its `bundled-grammars` feature: `Catalog::bundled()`,
//! `PreparedLanguage::from_catalog`).

use std::collections::HashMap;

use syntaxmate::{
    Catalog, GrammarRegistry, PreparedLanguage, ScopeStackId, Token, Tokenizer, TokenizerOptions,
};

use crate::classes::{class_in, Builder, Runs, Table, CLASSES};
use crate::Block;

const GRAMMARS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../src/render/highlight/syntaxes"
);

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
        let json =
            std::fs::read_to_string(format!("{GRAMMARS}/{name}.tmLanguage.json")).expect("grammar");
        let root = registry.add_json(&json).expect("grammar loads");
        let tokenizer = Tokenizer::new(&registry, root, options).expect("tokenizer");
        tokenizers.insert(name, tokenizer);
    }
    // (language, scope stack) → class: the tokenizer interns its scope stacks, so this is
    // the per-scope cache glossary keeps for syntect.
    // Per language, scope stack → class: the tokenizer interns its scope stacks, so this
    // is the per-scope cache glossary keeps.
    let mut known: HashMap<&'static str, HashMap<ScopeStackId, &'static str>> = HashMap::new();
    let mut tokens = Vec::new();
    move |b: &Block| {
        let tokenizer = tokenizers.get_mut(b.lang)?;
        let known = known.entry(b.lang).or_default();
        runs(tokenizer, known, &mut tokens, CLASSES, &b.code)
    }
}

/// `code` as (class, text) runs through `tokenizer`, each scope stack's class from `table`
/// (kept in `known`); None if the engine refuses a line.
fn runs(
    tokenizer: &mut Tokenizer,
    known: &mut HashMap<ScopeStackId, &'static str>,
    tokens: &mut Vec<Token>,
    table: Table,
    code: &str,
) -> Option<Runs> {
    let mut state = tokenizer.initial_state();
    let mut out = Builder::default();
    for (n, line) in code.lines().enumerate() {
        if n > 0 {
            out.newline();
        }
        tokenizer
            .tokenize_line_into(line, &mut state, tokens)
            .ok()?;
        let mut at = 0;
        for t in tokens.iter() {
            let r = t.range();
            if r.start > at {
                out.push("", &line[at..r.start]);
            }
            let scopes = || t.scopes().collect::<Vec<_>>().into_iter();
            let class = match t.scope_stack() {
                Some(id) => *known.entry(id).or_insert_with(|| class_in(table, scopes())),
                None => class_in(table, scopes()),
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

/// The catalog language a fence's language gets (None: plain): shell/console/zsh/sh/bash →
/// the catalog's shell grammar, c++/cxx/hpp/hh → cpp, anything else the name itself
/// through `Catalog::canonical_language` (its ids and aliases).
pub fn bundled_language(catalog: &Catalog, lang: &str) -> Option<String> {
    let name = match lang {
        "" | "text" | "plain" | "txt" => return None,
        "shell" | "console" | "zsh" | "sh" | "bash" => "shellscript",
        "c++" | "cxx" | "hpp" | "hh" => "cpp",
        other => other,
    };
    catalog.canonical_language(name).map(str::to_string)
}

/// Fences of any language but CUDA, PTX and SASS through the bundled catalog, each
/// language prepared on its first fence. `lang` is the fence's language, lower case.
pub fn bundled(options: TokenizerOptions, table: Table) -> impl FnMut(&str, &str) -> Option<Runs> {
    let catalog = Catalog::bundled();
    // Per catalog language: its tokenizer and (scope stack → class), the per-scope cache.
    let mut languages: HashMap<String, (Tokenizer, HashMap<ScopeStackId, &'static str>)> =
        HashMap::new();
    let mut tokens = Vec::new();
    move |lang: &str, code: &str| {
        let id = bundled_language(&catalog, lang)?;
        if !languages.contains_key(&id) {
            let prepared = PreparedLanguage::from_catalog(&catalog, &id).ok()?;
            languages.insert(id.clone(), (prepared.tokenizer(options), HashMap::new()));
        }
        let (tokenizer, known) = languages.get_mut(&id)?;
        runs(tokenizer, known, &mut tokens, table, code)
    }
}

/// Every distinct scope stack syntaxmate gives the non-whitespace text of `code`, with
/// an example of that text: what the table has to name.
pub fn scopes_of(catalog: &Catalog, lang: &str, code: &str, out: &mut Vec<(String, String)>) {
    let Some(id) = bundled_language(catalog, lang) else {
        return;
    };
    let Ok(prepared) = PreparedLanguage::from_catalog(catalog, &id) else {
        return;
    };
    let mut tokenizer = prepared.tokenizer(TokenizerOptions::default());
    let mut state = tokenizer.initial_state();
    let mut tokens = Vec::new();
    for line in code.lines() {
        if tokenizer
            .tokenize_line_into(line, &mut state, &mut tokens)
            .is_err()
        {
            return;
        }
        for t in &tokens {
            let text = line[t.range()].trim();
            if !text.is_empty() {
                out.push((t.scopes().collect::<Vec<_>>().join(" "), text.to_string()));
            }
        }
    }
}
