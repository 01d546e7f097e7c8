//! syntect as glossary runs it (`src/render/highlight/library.rs`): its three grammars in a
//! set of their own, each token's class from its scope stack (cached per scope, as there).

use std::collections::HashMap;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxDefinition, SyntaxSet, SyntaxSetBuilder};
use syntect::util::LinesWithEndings;

use crate::classes::{Builder, Runs};
use crate::Block;

const SYNTAXES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../src/render/highlight/syntaxes");

pub fn set() -> SyntaxSet {
    let mut builder = SyntaxSetBuilder::new();
    for name in ["cuda", "ptx", "sass"] {
        let text = std::fs::read_to_string(format!("{SYNTAXES}/{name}.sublime-syntax")).expect("grammar");
        builder.add(SyntaxDefinition::load_from_str(&text, true, Some(name)).expect("grammar"));
    }
    builder.build()
}

pub fn highlighter() -> impl FnMut(&Block) -> Option<Runs> {
    run(false)
}

/// With glossary's line memo (`src/render/highlight/library.rs`, `LineMemo`): a line that
/// starts and ends in the grammar's rest state is highlighted once, then taken from the
/// memo. What that saves depends on how often lines repeat across blocks: the corpus's
/// kernels share most of theirs.
pub fn highlighter_with_memo() -> impl FnMut(&Block) -> Option<Runs> {
    run(true)
}

fn run(memo: bool) -> impl FnMut(&Block) -> Option<Runs> {
    let set = set();
    let mut known: HashMap<Scope, &'static str> = HashMap::new();
    let mut rest: HashMap<String, (ParseState, ScopeStack)> = HashMap::new();
    let mut lines: HashMap<(&'static str, String), Vec<(&'static str, String)>> = HashMap::new();
    move |b: &Block| {
        let token = if b.lang == "cuda" { "cu" } else { b.lang };
        let syntax = set.find_syntax_by_token(token)?;
        let mut state = ParseState::new(syntax);
        let mut stack = ScopeStack::new();
        let base = rest
            .entry(b.lang.to_string())
            .or_insert_with(|| {
                let mut state = ParseState::new(syntax);
                let mut stack = ScopeStack::new();
                for (_, op) in state.parse_line("\n", &set).expect("parses") {
                    stack.apply(&op).expect("applies");
                }
                (state, stack)
            })
            .clone();
        let mut out = Builder::default();
        for (n, line) in LinesWithEndings::from(&b.code).enumerate() {
            let at_rest = memo && n > 0 && state == base.0 && stack == base.1;
            if at_rest {
                if let Some(runs) = lines.get(&(b.lang, line.to_string())) {
                    for (c, t) in runs {
                        out.push(c, t);
                    }
                    continue;
                }
            }
            let ops = state.parse_line(line, &set).ok()?;
            let mut from = 0;
            let mut this_line = Vec::new();
            for (at, op) in ops {
                if at > from {
                    this_line.push((class(&stack, &mut known), line[from..at].to_string()));
                    from = at;
                }
                stack.apply(&op).ok()?;
            }
            if from < line.len() {
                this_line.push((class(&stack, &mut known), line[from..].to_string()));
            }
            for (c, t) in &this_line {
                out.push(c, t);
            }
            if at_rest && state == base.0 && stack == base.1 {
                lines.insert((b.lang, line.to_string()), this_line);
            }
        }
        Some(out.finish())
    }
}

/// The class of the innermost scope a rule names (library.rs's `class_of`).
fn class(stack: &ScopeStack, known: &mut HashMap<Scope, &'static str>) -> &'static str {
    for scope in stack.as_slice().iter().rev() {
        let c = *known.entry(*scope).or_insert_with(|| {
            crate::classes::CLASSES
                .iter()
                .find(|(p, _)| Scope::new(p).expect("scope").is_prefix_of(*scope))
                .map_or("-", |(_, c)| if c.is_empty() { "=" } else { c })
        });
        match c {
            "-" => continue,
            "=" => return "",
            c => return c,
        }
    }
    ""
}
