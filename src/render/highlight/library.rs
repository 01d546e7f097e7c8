//! Highlighting through syntect: its bundled grammars (C, C++, Python, Bash and the rest of
//! Sublime Text's default set) plus three written for this site and embedded at compile
//! time, CUDA, PTX and SASS, which no bundled grammar knows.
//!
//! Output is class-based: each token's innermost scope is mapped onto one of the site's
//! few `hl-*` classes (colours for light and dark live in the stylesheet), so a page
//! carries neither inline styles nor the dozen nested spans per token that syntect's own
//! HTML writer emits.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use syntect::parsing::{
    ParseState, Scope, ScopeStack, SyntaxDefinition, SyntaxReference, SyntaxSet, SyntaxSetBuilder,
};
use syntect::util::LinesWithEndings;

use crate::render::escape::escape_into;

const CUDA: &str = include_str!("syntaxes/cuda.sublime-syntax");
const PTX: &str = include_str!("syntaxes/ptx.sublime-syntax");
const SASS: &str = include_str!("syntaxes/sass.sublime-syntax");

/// Scope prefixes and the class a token in them gets, the most specific first. A token
/// takes the class of its innermost scope that has one; scopes not listed (operators,
/// punctuation, plain identifiers) stay uncoloured.
const CLASSES: &[(&str, &str)] = &[
    ("comment", "hl-comment"),
    ("string", "hl-string"),
    ("constant.character", "hl-string"),
    ("constant.numeric", "hl-number"),
    ("punctuation.section.launch", "hl-launch"),
    ("storage.modifier.cuda", "hl-cuda"),
    ("variable.language.cuda", "hl-builtin"),
    ("support.function.cuda", "hl-builtin"),
    ("variable.other.register", "hl-builtin"),
    ("variable.other.constant.sass", "hl-builtin"),
    ("keyword.control.guard", "hl-cuda"),
    // SASS scheduling bits: a directive to the hardware rather than an opcode.
    ("meta.control-code.sass", "hl-preproc"),
    ("keyword.other.directive", "hl-preproc"),
    ("keyword.control.import", "hl-preproc"),
    ("meta.preprocessor", "hl-preproc"),
    ("keyword.operator.word", "hl-keyword"),
    ("keyword.operator.logical.python", "hl-keyword"),
    ("keyword.operator", ""),
    ("keyword", "hl-keyword"),
    ("storage.type", "hl-type"),
    ("support.type", "hl-type"),
    ("storage.modifier", "hl-keyword"),
    ("constant.language", "hl-keyword"),
    ("variable.language", "hl-builtin"),
    ("support.function", "hl-builtin"),
];

/// A grammar and the set it belongs to (syntect runs a grammar against its own set).
#[derive(Clone, Copy)]
pub(super) struct Grammar {
    set: &'static SyntaxSet,
    syntax: &'static SyntaxReference,
}

/// The site's own grammars (CUDA, PTX, SASS), in a set of their own. They include nothing
/// from the bundled ones, so they need not be linked into syntect's default set: adding
/// three grammars to that set meant `into_builder` (every bundled grammar's contexts
/// decoded) and `build` (every one re-encoded), which callgrind put at two thirds of a
/// 100-entry build's instructions, paid once per build whatever the site's size.
fn ours() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut builder = SyntaxSetBuilder::new();
        for (name, text) in [("cuda", CUDA), ("ptx", PTX), ("sass", SASS)] {
            // Embedded, so a broken grammar is caught by the tests, never by a user.
            let def = SyntaxDefinition::load_from_str(text, true, Some(name))
                .unwrap_or_else(|e| panic!("embedded {name}.sublime-syntax: {e}"));
            builder.add(def);
        }
        builder.build()
    })
}

/// syntect's bundled grammars, loaded (lazily: each grammar's contexts are decoded on its
/// first use) only when a fence names one of them.
fn bundled() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The grammar for a fence's language, if any: ours by name, then syntect's by extension
/// or name (`cpp`, `c++`, `py`, `python`, `rs`...).
pub(super) fn syntax_for(lang: &str) -> Option<Grammar> {
    let lang = lang.to_ascii_lowercase();
    let token = match lang.as_str() {
        "" | "text" | "plain" | "txt" => return None,
        "cuda" | "cu" | "cuh" => "cu",
        "ptx" | "sass" => lang.as_str(),
        "shell" | "console" | "zsh" | "sh" | "bash" => "sh",
        "c++" | "cxx" | "hpp" | "hh" => "cpp",
        other => other,
    };
    let set = if matches!(token, "cu" | "ptx" | "sass") {
        ours()
    } else {
        bundled()
    };
    set.find_syntax_by_token(token)
        .filter(|s| s.name != "Plain Text")
        .map(|syntax| Grammar { set, syntax })
}

/// `code` as escaped HTML with `<span class="hl-…">` around tokens. Returns None if the
/// grammar fails on it (syntect reports, rather than panics on, a grammar it cannot run),
/// and the caller shows the code plain.
pub(super) fn highlight(grammar: Grammar, code: &str) -> Option<String> {
    let Grammar { set, syntax } = grammar;
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = String::with_capacity(code.len() * 2);
    // The class of the span now open in `out`, if any.
    let mut open: &'static str = "";
    for line in LinesWithEndings::from(code) {
        let ops = state.parse_line(line, set).ok()?;
        let mut from = 0;
        for (at, op) in ops {
            if at > from {
                emit(&mut out, &mut open, class_of(&stack), &line[from..at]);
                from = at;
            }
            stack.apply(&op).ok()?;
        }
        if from < line.len() {
            emit(&mut out, &mut open, class_of(&stack), &line[from..]);
        }
    }
    if !open.is_empty() {
        out.push_str("</span>");
    }
    Some(out)
}

/// Append `text` with `class`, merging it into the open span when the class is the same
/// (a string's quotes and body, a comment's marker and text are one span).
fn emit(out: &mut String, open: &mut &'static str, class: &'static str, text: &str) {
    if class != *open {
        if !open.is_empty() {
            out.push_str("</span>");
        }
        if !class.is_empty() {
            out.push_str("<span class=\"");
            out.push_str(class);
            out.push_str("\">");
        }
        *open = class;
    }
    escape_into(out, text);
}

fn class_of(stack: &ScopeStack) -> &'static str {
    thread_local! {
        // Per thread, so the parallel page render never waits on a lock; a few hundred
        // distinct scopes at most.
        static KNOWN: RefCell<HashMap<Scope, &'static str>> = RefCell::new(HashMap::new());
        static RULES: Vec<(Scope, &'static str)> = CLASSES
            .iter()
            .map(|(prefix, class)| (Scope::new(prefix).expect("valid scope prefix"), *class))
            .collect();
    }
    KNOWN.with(|known| {
        let mut known = known.borrow_mut();
        for scope in stack.as_slice().iter().rev() {
            let class = *known.entry(*scope).or_insert_with(|| {
                RULES.with(|rules| {
                    rules
                        .iter()
                        .find(|(prefix, _)| prefix.is_prefix_of(*scope))
                        .map_or(
                            NONE,
                            |(_, class)| if class.is_empty() { UNCOLOURED } else { class },
                        )
                })
            });
            match class {
                NONE => continue,
                UNCOLOURED => return "",
                class => return class,
            }
        }
        ""
    })
}

/// A scope no rule names: look further out.
const NONE: &str = "-";
/// A scope a rule names as uncoloured (operators): stop looking.
const UNCOLOURED: &str = "=";
