//! syntaxmate: a TextMate engine with its own (Rust) regex engine, reporting each token's
//! scope names; mapped to classes by the table, each scope name's answer cached as
//! glossary caches syntect's per scope.

use std::collections::HashMap;

use syntaxmate::{GrammarRegistry, Tokenizer, TokenizerOptions};

use crate::classes::{Builder, Runs, CLASSES};
use crate::Block;

const GRAMMARS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/grammars");

pub fn highlighter() -> impl FnMut(&Block) -> Option<Runs> {
    let mut tokenizers: HashMap<&'static str, Tokenizer> = HashMap::new();
    for name in ["cuda", "ptx", "sass"] {
        let mut registry = GrammarRegistry::new();
        let json = std::fs::read_to_string(format!("{GRAMMARS}/{name}.tmLanguage.json"))
            .expect("grammar");
        let root = registry.add_json(&json).expect("grammar loads");
        let tokenizer =
            Tokenizer::new(&registry, root, TokenizerOptions::default()).expect("tokenizer");
        tokenizers.insert(name, tokenizer);
    }
    // Scope name → Some(class) where the table names it (Some("") for uncoloured), None
    // where it does not.
    let mut known: HashMap<String, Option<&'static str>> = HashMap::new();
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
                let mut class = "";
                for scope in t.scopes().rev() {
                    let c = match known.get(scope) {
                        Some(c) => *c,
                        None => {
                            let c = CLASSES
                                .iter()
                                .find(|(p, _)| {
                                    scope == *p
                                        || (scope.starts_with(p)
                                            && scope.as_bytes().get(p.len()) == Some(&b'.'))
                                })
                                .map(|(_, c)| *c);
                            known.insert(scope.to_string(), c);
                            c
                        }
                    };
                    if let Some(c) = c {
                        class = c;
                        break;
                    }
                }
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
