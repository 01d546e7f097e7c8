//! Highlighting through syntaxmate, a TextMate engine: its bundled grammars (VS Code's and
//! Shiki's: C, C++, Python, shell, YAML, TOML and the rest) plus three written for this
//! site and embedded at compile time, CUDA, PTX and SASS (`syntaxes/*.tmLanguage.json`),
//! which take precedence over any bundled grammar of the same name.
//!
//! Output is class-based: each token's innermost scope is mapped onto one of the site's
//! few `hl-*` classes (colours for light and dark live in the stylesheet), so a page
//! carries neither inline styles nor a theme's nested spans.
//!
//! syntaxmate was chosen over syntect and giallo by measurement (`bench/highlighters`, the
//! book's Performance chapter): the same output on the site's grammars, the fastest engine,
//! and a tokenizer line cache that makes a kernel's recurring lines (`__syncthreads();`,
//! `}`) cost a lookup.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use syntaxmate::{
    Catalog, GrammarRegistry, HighlightStatus, PreparedLanguage, ScopeStackId, Token, Tokenizer,
    TokenizerOptions,
};

use crate::render::escape::escape_into;

const CUDA: &str = include_str!("syntaxes/cuda.tmLanguage.json");
const PTX: &str = include_str!("syntaxes/ptx.tmLanguage.json");
const SASS: &str = include_str!("syntaxes/sass.tmLanguage.json");

include!("scope_classes.in");

/// The version of the engine and its bundled grammars, part of what a cached block's HTML
/// depends on (`generation`): a new syntaxmate may colour the same code differently.
const ENGINE: &str = "syntaxmate 0.2.1";

/// Lines a thread's tokenizer keeps tokenized, per language (syntaxmate's default is
/// 32,768). The lines worth keeping are the few that recur (a kernel's braces and idioms);
/// most lines of a large site are seen once, and each kept line holds its text and tokens.
const LINE_CACHE_ENTRIES: usize = 4096;

/// The digest of what highlighting depends on besides the binary: the engine, the three
/// grammars and the scope-to-class table (which the binary holds too; the digest does not
/// rely on that).
pub(super) fn generation() -> [u8; 32] {
    let classes: Vec<u8> = CLASSES
        .iter()
        .flat_map(|(scope, class)| [scope.as_bytes(), b"=", class.as_bytes(), b"\n"].concat())
        .collect();
    crate::build_cache::digest_of(&[
        ENGINE.as_bytes(),
        CUDA.as_bytes(),
        PTX.as_bytes(),
        SASS.as_bytes(),
        &classes,
    ])
}

/// A language's grammar, prepared once per process and shared by every thread's tokenizer.
#[derive(Clone, Copy)]
pub(super) struct Grammar {
    prepared: &'static PreparedLanguage,
}

impl Grammar {
    /// Identifies the grammar within this process (each is prepared once and kept).
    fn id(self) -> usize {
        std::ptr::from_ref(self.prepared) as usize
    }
}

/// The site's own grammars, by the names fences use for them.
fn ours(name: &str) -> Option<&'static PreparedLanguage> {
    static SET: OnceLock<[PreparedLanguage; 3]> = OnceLock::new();
    let set = SET.get_or_init(|| {
        [("cuda", CUDA), ("ptx", PTX), ("sass", SASS)].map(|(name, json)| {
            // Embedded, so a broken grammar is caught by the tests, never by a user.
            let mut registry = GrammarRegistry::new();
            let root = registry
                .add_json(json)
                .unwrap_or_else(|e| panic!("embedded {name}.tmLanguage.json: {e}"));
            PreparedLanguage::new(&registry, root)
                .unwrap_or_else(|e| panic!("embedded {name}.tmLanguage.json: {e}"))
        })
    });
    match name {
        "cuda" => Some(&set[0]),
        "ptx" => Some(&set[1]),
        "sass" => Some(&set[2]),
        _ => None,
    }
}

/// A bundled grammar by its canonical name, prepared on first use (a site uses a handful
/// of the catalog's languages; preparing one decodes only its grammars).
fn bundled(canonical: &str) -> Option<&'static PreparedLanguage> {
    static PREPARED: OnceLock<Mutex<HashMap<String, Option<&'static PreparedLanguage>>>> =
        OnceLock::new();
    let prepared = PREPARED.get_or_init(Default::default);
    let mut prepared = prepared.lock().unwrap_or_else(|p| p.into_inner());
    *prepared.entry(canonical.to_string()).or_insert_with(|| {
        // Kept for the life of the process: at most one per language of the catalog.
        PreparedLanguage::from_catalog(catalog(), canonical)
            .ok()
            .map(|p| &*Box::leak(Box::new(p)))
    })
}

fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(Catalog::bundled)
}

/// The grammar for a fence's language, if any: ours by name, then the catalog's by name,
/// alias or extension (`cpp`, `c++`, `py`, `python`, `rs`, `yml`...).
pub(super) fn syntax_for(lang: &str) -> Option<Grammar> {
    let lang = lang.to_ascii_lowercase();
    let prepared = match lang.as_str() {
        "" | "text" | "plain" | "txt" | "plaintext" => return None,
        "cuda" | "cu" | "cuh" => ours("cuda"),
        "ptx" | "sass" => ours(&lang),
        // Commands as typed, without prompts: the shell's grammar, not a session's.
        "shell" | "console" | "zsh" | "sh" | "bash" => bundled("shellscript"),
        other => {
            let catalog = catalog();
            // A name or alias, else a file extension (`h`, `hpp`, `cc`).
            let canonical = catalog
                .canonical_language(other)
                .or_else(|| catalog.detect_path(format!("fence.{other}")))?;
            bundled(canonical)
        }
    }?;
    Some(Grammar { prepared })
}

/// `code` as escaped HTML with `<span class="hl-…">` around tokens. Returns None if the
/// engine could not highlight all of it within its limits (a line past its length bound,
/// a pattern past its matching budget), and the caller shows the code plain.
pub(super) fn highlight(grammar: Grammar, code: &str) -> Option<String> {
    TOKENIZERS.with(|tokenizers| {
        let mut tokenizers = tokenizers.borrow_mut();
        let ours = tokenizers
            .entry(grammar.id())
            .or_insert_with(|| ThreadTokenizer::new(grammar.prepared));
        ours.highlight(code)
    })
}

thread_local! {
    /// Per thread, so the parallel page render never waits on a lock: a tokenizer holds
    /// mutable state and its line cache.
    static TOKENIZERS: RefCell<HashMap<usize, ThreadTokenizer>> = RefCell::new(HashMap::new());
}

/// One thread's tokenizer for one grammar, with the class of each scope stack it has met.
struct ThreadTokenizer {
    tokenizer: Tokenizer,
    /// The tokenizer interns its scope stacks, so a stack's class is worked out once.
    classes: HashMap<ScopeStackId, Class, foldhash::fast::RandomState>,
    tokens: Vec<Token>,
}

impl ThreadTokenizer {
    fn new(prepared: &PreparedLanguage) -> Self {
        let options = TokenizerOptions {
            line_cache_entries: LINE_CACHE_ENTRIES,
            ..TokenizerOptions::default()
        };
        Self {
            tokenizer: prepared.tokenizer(options),
            classes: HashMap::default(),
            tokens: Vec::new(),
        }
    }

    fn highlight(&mut self, code: &str) -> Option<String> {
        let mut state = self.tokenizer.initial_state();
        let mut out = String::with_capacity(code.len() * 2);
        // The class of the span now open in `out`, if any.
        let mut open = Class::NONE;
        for (n, line) in code.split('\n').enumerate() {
            if n > 0 {
                // A span never crosses a line: each line of the page stands alone.
                emit(&mut out, &mut open, Class::NONE, "\n");
            }
            let status = self
                .tokenizer
                .tokenize_line_into(line, &mut state, &mut self.tokens)
                .ok()?;
            if status != HighlightStatus::Complete {
                return None;
            }
            let mut at = 0;
            for token in &self.tokens {
                let range = token.range();
                if range.start > at {
                    emit(&mut out, &mut open, Class::NONE, &line[at..range.start]);
                }
                let class = match token.scope_stack() {
                    Some(id) => *self.classes.entry(id).or_insert_with(|| {
                        Class::of(class_of(&token.scopes().collect::<Vec<_>>()))
                    }),
                    None => Class::of(class_of(&token.scopes().collect::<Vec<_>>())),
                };
                emit(&mut out, &mut open, class, &line[range.start..range.end]);
                at = range.end;
            }
            if at < line.len() {
                emit(&mut out, &mut open, Class::NONE, &line[at..]);
            }
        }
        if open != Class::NONE {
            out.push_str("</span>");
        }
        Some(out)
    }
}

/// A class of the table by its place among the table's distinct classes, so a token's class
/// is compared with the open span's as a number, not as text.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Class(u8);

impl Class {
    const NONE: Class = Class(0);

    fn of(name: &str) -> Class {
        Class(Class::names().iter().position(|n| *n == name).unwrap_or(0) as u8)
    }

    fn name(self) -> &'static str {
        Class::names()[usize::from(self.0)]
    }

    /// "" (no class) first, then each class of the table once, in order.
    fn names() -> &'static [&'static str] {
        static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
        NAMES.get_or_init(|| {
            let mut names = vec![""];
            for (_, class) in CLASSES {
                if !names.contains(class) {
                    names.push(class);
                }
            }
            names
        })
    }
}

/// Append `text` with `class`, merging it into the open span when the class is the same
/// (a string's quotes and body, a comment's marker and text are one span).
fn emit(out: &mut String, open: &mut Class, class: Class, text: &str) {
    if class != *open {
        if *open != Class::NONE {
            out.push_str("</span>");
        }
        if class != Class::NONE {
            out.push_str("<span class=\"");
            out.push_str(class.name());
            out.push_str("\">");
        }
        *open = class;
    }
    escape_into(out, text);
}

/// The class of a token whose scopes are `scopes` (outermost first): that of the innermost
/// scope the table names, or none.
fn class_of(scopes: &[&str]) -> &'static str {
    for scope in scopes.iter().rev() {
        if let Some((_, class)) = CLASSES.iter().find(|(prefix, _)| is_prefix(prefix, scope)) {
            return class;
        }
    }
    ""
}

/// Whether `prefix` is a prefix of `scope` atom by atom (`keyword` of `keyword.control`,
/// not of `keywords`).
fn is_prefix(prefix: &str, scope: &str) -> bool {
    scope.starts_with(prefix)
        && (scope.len() == prefix.len() || scope.as_bytes()[prefix.len()] == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_prefix_is_matched_atom_by_atom() {
        assert!(is_prefix("keyword", "keyword.control.cuda"));
        assert!(is_prefix("keyword", "keyword"));
        assert!(!is_prefix("keyword", "keywords.cuda"));
        assert_eq!(class_of(&["source.cuda", "keyword.operator.cuda"]), "");
        assert_eq!(
            class_of(&["source.cuda", "comment.line", "keyword.other"]),
            "hl-keyword"
        );
        assert_eq!(class_of(&["source.cuda", "meta.block"]), "");
    }
}
