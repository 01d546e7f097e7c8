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

/// The digest of what highlighting depends on in this file: the three grammars and the
/// scope-to-class table (syntect's bundled grammars come with the binary).
pub(super) fn generation() -> [u8; 32] {
    let classes: Vec<u8> = CLASSES
        .iter()
        .flat_map(|(scope, class)| [scope.as_bytes(), b"=", class.as_bytes(), b"\n"].concat())
        .collect();
    crate::build_cache::digest_of(&[CUDA.as_bytes(), PTX.as_bytes(), SASS.as_bytes(), &classes])
}

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
    highlight_lines(grammar, code, true)
}

/// [`highlight`], taking lines from the thread's [`LineMemo`] where `memo` says so.
pub(super) fn highlight_lines(grammar: Grammar, code: &str, memo: bool) -> Option<String> {
    let Grammar { set, syntax } = grammar;
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = String::with_capacity(code.len() * 2);
    // The class of the span now open in `out`, if any.
    let mut open: &'static str = "";
    let memo_on = memo;
    let rest = LINES.with(|memo| {
        let mut memo = memo.borrow_mut();
        let memo = &mut *memo;
        let grammar_id = std::ptr::from_ref(syntax) as usize;
        let base = memo.base_of(grammar).cloned();
        let base = base.as_ref();
        for (n, line) in LinesWithEndings::from(code).enumerate() {
            // A line that starts from the grammar's rest state, with no span open, comes
            // out the same wherever it is: taken from the memo, or kept there.
            let at_rest = memo_on
                && n > 0
                && open.is_empty()
                && base.is_some_and(|b| b.0 == state && b.1 == stack);
            if at_rest {
                if let Some(html) = memo.lines.get(&grammar_id).and_then(|m| m.get(line)) {
                    out.push_str(html);
                    continue;
                }
            }
            let from_len = out.len();
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
            let back_at_rest =
                open.is_empty() && base.is_some_and(|b| b.0 == state && b.1 == stack);
            if at_rest && back_at_rest {
                memo.keep(grammar_id, line, &out[from_len..]);
            }
        }
        Some(())
    });
    rest?;
    if !open.is_empty() {
        out.push_str("</span>");
    }
    Some(out)
}

thread_local! {
    /// Per thread, so the parallel page render never waits on a lock.
    static LINES: RefCell<LineMemo> = RefCell::new(LineMemo::default());
}

/// Lines highlighted from a grammar's rest state (nothing open: no comment, string,
/// launch or preprocessor line carried over from the line before), which ended there
/// again, with their HTML. Highlighting is a function of the state a line starts in and
/// its text, so such a line comes out the same in every block, byte for byte: a kernel's
/// `__syncthreads();`, `}` or `int i = blockIdx.x * blockDim.x + threadIdx.x;` is
/// highlighted once per build and thread, not once per block. A line that starts or
/// ends anywhere else (inside a block comment, say) is always highlighted afresh.
#[derive(Default)]
struct LineMemo {
    /// Grammar (its address) → its rest state: the parser's and the scope stack after a
    /// line with nothing on it.
    rest: HashMap<usize, Option<(ParseState, ScopeStack)>>,
    /// Grammar → line → its HTML, from the rest state with no span open.
    lines: HashMap<usize, HashMap<Box<str>, Box<str>, foldhash::fast::RandomState>>,
    bytes: usize,
}

/// At most this many bytes of lines and HTML per thread; past it the memo starts again.
/// The lines worth keeping are the few that recur (a kernel's braces and idioms), which
/// come back within a few blocks of a restart; most lines are seen once. 4 MB a thread
/// was about 17 MB more peak memory at 100,000 entries.
const LINE_MEMO_BYTES: usize = 1 << 20;

impl LineMemo {
    fn base_of(&mut self, grammar: Grammar) -> Option<&(ParseState, ScopeStack)> {
        let id = std::ptr::from_ref(grammar.syntax) as usize;
        self.rest
            .entry(id)
            .or_insert_with(|| {
                let mut state = ParseState::new(grammar.syntax);
                let mut stack = ScopeStack::new();
                for (_, op) in state.parse_line("\n", grammar.set).ok()? {
                    stack.apply(&op).ok()?;
                }
                Some((state, stack))
            })
            .as_ref()
    }

    fn keep(&mut self, grammar: usize, line: &str, html: &str) {
        if self.bytes + line.len() + html.len() > LINE_MEMO_BYTES {
            self.lines.clear();
            self.bytes = 0;
        }
        self.bytes += line.len() + html.len();
        self.lines
            .entry(grammar)
            .or_default()
            .insert(line.into(), html.into());
    }
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
