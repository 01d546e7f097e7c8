//! syntect as glossary runs it (`src/render/highlight/library.rs`), each token's class from
//! its scope stack (cached per scope, as there): glossary's three grammars (CUDA, PTX,
//! SASS) in a set of their own, and, for every other fence, syntect's bundled grammars
//! (`SyntaxSet::load_defaults_newlines`, Sublime Text's default set) under the build's
//! name mapping (`syntax_for`).

use std::collections::HashMap;

use syntect::parsing::{
    ParseState, Scope, ScopeStack, SyntaxDefinition, SyntaxReference, SyntaxSet, SyntaxSetBuilder,
};
use syntect::util::LinesWithEndings;

use crate::classes::{Builder, Runs, Table, CLASSES};
use crate::Block;

const SYNTAXES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/grammars");

pub fn set() -> SyntaxSet {
    let mut builder = SyntaxSetBuilder::new();
    for name in ["cuda", "ptx", "sass"] {
        let text =
            std::fs::read_to_string(format!("{SYNTAXES}/{name}.sublime-syntax")).expect("grammar");
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
    let mut memos = Memos::new(memo, CLASSES);
    move |b: &Block| {
        let token = if b.lang == "cuda" { "cu" } else { b.lang };
        let syntax = set.find_syntax_by_token(token)?;
        memos.highlight(&set, syntax, &b.code)
    }
}

/// The build's name for a fence's language in syntect's bundled set (`syntax_for`), or
/// None for a plain one.
pub fn bundled_token(lang: &str) -> Option<&str> {
    match lang {
        "" | "text" | "plain" | "txt" => None,
        "shell" | "console" | "zsh" | "sh" | "bash" => Some("sh"),
        "c++" | "cxx" | "hpp" | "hh" => Some("cpp"),
        other => Some(other),
    }
}

/// Fences of any language but CUDA, PTX and SASS, as the build highlights them: syntect's
/// bundled grammars, looked up by token, plain (None) where none is found. `lang` is the
/// fence's language, lower case. `memo`: the build's line memo; `table`: the scope →
/// class table.
pub fn bundled(memo: bool, table: Table) -> impl FnMut(&str, &str) -> Option<Runs> {
    let set = SyntaxSet::load_defaults_newlines();
    let mut memos = Memos::new(memo, table);
    move |lang: &str, code: &str| {
        let syntax = set
            .find_syntax_by_token(bundled_token(lang)?)
            .filter(|s| s.name != "Plain Text")?;
        memos.highlight(&set, syntax, code)
    }
}

/// The name of the bundled grammar a fence's language gets, if any.
pub fn bundled_name(set: &SyntaxSet, lang: &str) -> Option<String> {
    set.find_syntax_by_token(bundled_token(lang)?)
        .filter(|s| s.name != "Plain Text")
        .map(|s| s.name.clone())
}

/// What a highlighter keeps across blocks: each grammar's rest state and, with the memo
/// on, the lines highlighted from it; each scope's class.
struct Memos {
    memo: bool,
    table: Table,
    known: HashMap<Scope, &'static str>,
    rest: HashMap<usize, (ParseState, ScopeStack)>,
    lines: HashMap<(usize, String), Vec<(&'static str, String)>>,
}

impl Memos {
    fn new(memo: bool, table: Table) -> Self {
        Memos {
            memo,
            table,
            known: HashMap::new(),
            rest: HashMap::new(),
            lines: HashMap::new(),
        }
    }

    fn highlight(&mut self, set: &SyntaxSet, syntax: &SyntaxReference, code: &str) -> Option<Runs> {
        let memo = self.memo;
        let id = std::ptr::from_ref(syntax) as usize;
        let mut state = ParseState::new(syntax);
        let mut stack = ScopeStack::new();
        let base = self
            .rest
            .entry(id)
            .or_insert_with(|| {
                let mut state = ParseState::new(syntax);
                let mut stack = ScopeStack::new();
                for (_, op) in state.parse_line("\n", set).expect("parses") {
                    stack.apply(&op).expect("applies");
                }
                (state, stack)
            })
            .clone();
        let mut out = Builder::default();
        for (n, line) in LinesWithEndings::from(code).enumerate() {
            let at_rest = memo && n > 0 && state == base.0 && stack == base.1;
            if at_rest {
                if let Some(runs) = self.lines.get(&(id, line.to_string())) {
                    for (c, t) in runs {
                        out.push(c, t);
                    }
                    continue;
                }
            }
            let ops = state.parse_line(line, set).ok()?;
            let mut from = 0;
            let mut this_line = Vec::new();
            for (at, op) in ops {
                if at > from {
                    this_line.push((
                        class(&stack, &mut self.known, self.table),
                        line[from..at].to_string(),
                    ));
                    from = at;
                }
                stack.apply(&op).ok()?;
            }
            if from < line.len() {
                this_line.push((
                    class(&stack, &mut self.known, self.table),
                    line[from..].to_string(),
                ));
            }
            for (c, t) in &this_line {
                out.push(c, t);
            }
            if at_rest && state == base.0 && stack == base.1 {
                self.lines.insert((id, line.to_string()), this_line);
            }
        }
        Some(out.finish())
    }
}

/// The class of the innermost scope a rule names (library.rs's `class_of`).
fn class(
    stack: &ScopeStack,
    known: &mut HashMap<Scope, &'static str>,
    table: Table,
) -> &'static str {
    for scope in stack.as_slice().iter().rev() {
        let c = *known.entry(*scope).or_insert_with(|| {
            table
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

/// Every scope stack syntect's bundled grammar gives the non-whitespace text of `code`,
/// with that text: what the table has to name.
pub fn scopes_of(set: &SyntaxSet, lang: &str, code: &str, out: &mut Vec<(String, String)>) {
    let Some(syntax) = bundled_token(lang)
        .and_then(|t| set.find_syntax_by_token(t))
        .filter(|s| s.name != "Plain Text")
    else {
        return;
    };
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    for line in LinesWithEndings::from(code) {
        let Ok(ops) = state.parse_line(line, set) else {
            return;
        };
        let mut from = 0;
        let mut emit = |stack: &ScopeStack, text: &str| {
            if !text.trim().is_empty() {
                let names: Vec<String> =
                    stack.as_slice().iter().map(|s| s.build_string()).collect();
                out.push((names.join(" "), text.trim().to_string()));
            }
        };
        for (at, op) in ops {
            if at > from {
                emit(&stack, &line[from..at]);
                from = at;
            }
            if stack.apply(&op).is_err() {
                return;
            }
        }
        if from < line.len() {
            emit(&stack, &line[from..]);
        }
    }
}
