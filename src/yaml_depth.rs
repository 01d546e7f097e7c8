//! How deep a YAML file may nest, checked before serde_norway reads it.
//!
//! serde_norway stops at 128 levels, but only after libyaml has scanned the whole file, and
//! libyaml's scanner walks its stack of possible keys (one per open `[` or `{`) at every
//! token: 100,000 nested `[` (200 KB) took 40 s, and `{a: ` repeated 100,000 times 95 s.
//! So every YAML text the tool reads (front matter, experiment files, sign-off files,
//! diagram presets) passes [`check`] first, which stops at the first level past
//! [`MAX_DEPTH`] after reading only that far: microseconds for the same files.
//!
//! The check reads the file with yaml-rust2's event parser (pulled event by event, so it
//! stops where the nesting does; it has a recursion limit of its own, also reported as too
//! deep). Where yaml-rust2 cannot read the file at all (libyaml accepts a few things it
//! refuses, such as a flow list continued at column 0), the file's depth is bounded by a
//! count that can only over-estimate it: every `[` and `{` opens a level and every `]`
//! and `}` closes one, and each `- ` or `? ` starting a line opens one, quoted or not.
//! Only a file that nests deeper than [`MAX_DEPTH`] by that count is refused; serde_norway
//! reads the rest and gives its own error.
//!
//! Before any of that, [`depth_bound`] looks at the bytes once: a bound on the nesting that
//! no YAML text can exceed, from its brackets and how far in its lines' entries start.
//! Every file the tool ships or a site holds is far under the limit by it, so the parse is
//! left for the files that might be deep (it was 4% of a 10,000-entry build's time).

use std::fmt;

use yaml_rust2::parser::{Event, Parser};

/// The deepest nesting of lists and mappings any file of the tool needs is under ten (an
/// experiment's `launches[0].args[1]`); 64 leaves room and keeps libyaml fast.
pub const MAX_DEPTH: usize = 64;

/// Where a YAML text first nests deeper than [`MAX_DEPTH`] (1-based line and column of the
/// text given to [`check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for TooDeep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lists and mappings nest deeper than {MAX_DEPTH} levels here; no file of the \
             tool needs more than a few"
        )
    }
}

impl std::error::Error for TooDeep {}

/// Whether `text` nests no deeper than [`MAX_DEPTH`]; where it first does, if not.
pub fn check(text: &str) -> Result<(), TooDeep> {
    if depth_bound(text, MAX_DEPTH) <= MAX_DEPTH {
        return Ok(());
    }
    let mut parser = Parser::new_from_str(text);
    let mut depth = 0usize;
    loop {
        match parser.next_token() {
            Ok((Event::StreamEnd, _)) => return Ok(()),
            Ok((Event::SequenceStart(..) | Event::MappingStart(..), mark)) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(TooDeep {
                        line: mark.line(),
                        column: mark.col() + 1,
                    });
                }
            }
            Ok((Event::SequenceEnd | Event::MappingEnd, _)) => depth = depth.saturating_sub(1),
            Ok(_) => {}
            Err(e) if e.info().contains("recursion limit") => {
                return Err(TooDeep {
                    line: e.marker().line(),
                    column: e.marker().col() + 1,
                })
            }
            Err(_) => return by_count(text),
        }
    }
}

/// A number no YAML text's nesting (lists and mappings open at once, as the parser's start
/// and end events count it) can exceed, from the bytes alone; `limit + 1` once past
/// `limit`. Of the collections open at any point, the outer ones are block
/// collections and the inner ones flow collections:
///
/// - each flow collection is opened by a `[` or `{`, or is the one-pair mapping a
///   `key: value` inside `[...]` makes: at most two per `[` and one per `{`;
/// - a block collection inside another starts at a column no smaller than its parent's,
///   and at the same column only as a list under a mapping's key, so the column grows at
///   least every second level. Its entries start where a line's content starts, after
///   its indentation and any compact `- `, `? ` or `: ` indicators (`- - x`, `- a: b`), so
///   with `L` the largest such column, at most `2 (L + 1)` block levels.
///
/// Quoted or commented brackets and indented text in scalars only make it larger.
fn depth_bound(text: &str, limit: usize) -> usize {
    let bytes = text.as_bytes();
    let flow =
        2 * memchr::memchr_iter(b'[', bytes).count() + memchr::memchr_iter(b'{', bytes).count();
    if flow > limit {
        return limit + 1;
    }
    // YAML also breaks lines at NEL, LS and PS; a text with those is left to the parse.
    if ["\u{85}", "\u{2028}", "\u{2029}"]
        .iter()
        .any(|nl| text.contains(nl))
    {
        return limit + 1;
    }
    let mut widest = 0;
    for line in bytes.split(|&b| b == b'\n' || b == b'\r') {
        let blank = |at: usize| matches!(line.get(at), Some(b' ' | b'\t'));
        let mut at = 0;
        while blank(at) {
            at += 1;
        }
        while matches!(line.get(at), Some(b'-' | b'?' | b':')) && blank(at + 1) {
            at += 1;
            while blank(at) {
                at += 1;
            }
        }
        if at < line.len() {
            widest = widest.max(at);
        }
        if flow + 2 * (widest + 1) > limit {
            return limit + 1;
        }
    }
    flow + 2 * (widest + 1)
}

/// The over-estimate of the module comment, for text yaml-rust2 cannot read.
fn by_count(text: &str) -> Result<(), TooDeep> {
    let mut flow = 0usize;
    for (i, line) in text.split('\n').enumerate() {
        let rest = line.trim_start_matches([' ', '\t']);
        let mut block = 0;
        let mut at = rest;
        while let Some(r) = at
            .strip_prefix("- ")
            .or_else(|| at.strip_prefix("? "))
            .or_else(|| at.strip_prefix("-\t"))
        {
            block += 1;
            at = r.trim_start_matches([' ', '\t']);
        }
        let too_deep = |column| TooDeep {
            line: i + 1,
            column,
        };
        if block > MAX_DEPTH {
            return Err(too_deep(1));
        }
        for (column, c) in line.chars().enumerate() {
            match c {
                '[' | '{' => {
                    flow += 1;
                    if flow + block > MAX_DEPTH {
                        return Err(too_deep(column + 1));
                    }
                }
                ']' | '}' => flow = flow.saturating_sub(1),
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Nested `n` deep in each shape an attacker might choose, each about 1 MB or more.
    fn shapes(n: usize) -> Vec<(&'static str, String)> {
        vec![
            (
                "flow lists",
                format!("a: {}{}\n", "[".repeat(n), "]".repeat(n)),
            ),
            ("unclosed flow lists", format!("a: {}\n", "[".repeat(n))),
            ("flow mappings", format!("a: {}\n", "{a: ".repeat(n))),
            ("compact block lists", format!("a:\n{}x\n", "- ".repeat(n))),
            // libyaml reads this; yaml-rust2 refuses the column-0 continuation lines.
            ("flow lists over lines", format!("a: {}\n", "[\n".repeat(n))),
            (
                "after a syntax error",
                format!("a: b: c\nd: {}\n", "[".repeat(n)),
            ),
        ]
    }

    #[test]
    fn a_megabyte_nested_any_way_is_refused_in_well_under_a_second() {
        for (what, text) in shapes(500_000) {
            let start = Instant::now();
            let err = check(&text).expect_err(what);
            assert!(start.elapsed() < Duration::from_millis(200), "{what}");
            assert!(err.line >= 1 && err.column >= 1, "{what}: {err:?}");
            assert!(err.to_string().contains("deeper than 64"), "{what}");
            // With the check removed, serde_norway would take (for the first shapes) tens of
            // seconds on a fifth of this: its own limit is not the bound.
        }
    }

    #[test]
    fn the_limit_is_exact_for_what_yaml_rust2_reads() {
        let nested = |n: usize| format!("{}1{}\n", "[".repeat(n), "]".repeat(n));
        assert_eq!(check(&nested(MAX_DEPTH)), Ok(()));
        assert_eq!(
            check(&nested(MAX_DEPTH + 1)),
            Err(TooDeep {
                line: 1,
                column: MAX_DEPTH + 1
            })
        );
        let block = |n: usize| format!("{}x\n", "- ".repeat(n));
        assert_eq!(check(&block(MAX_DEPTH)), Ok(()));
        assert_eq!(check(&block(MAX_DEPTH + 1)).unwrap_err().line, 1);
    }

    #[test]
    fn ordinary_files_and_ordinary_errors_pass_to_serde_norway() {
        for text in [
            "title: What is a warp?\naliases: [warps, \"[sic]\"]\nsources:\n  - url: https://x\n",
            "a: b: c\n",
            "a: [1, 2\n",
            "",
            "key: '[[[[ quoted ]]]]'\n",
        ] {
            assert_eq!(check(text), Ok(()), "{text}");
        }
        // The over-estimate refuses only what is deep by its count: brackets in text of a
        // file yaml-rust2 cannot read count too, but it takes 65 of them.
        let quoted = format!("a: b: c\nd: '{}'\n", "[".repeat(MAX_DEPTH));
        assert_eq!(check(&quoted), Ok(()));
    }

    /// A YAML value to write out in the styles an author (or an attacker) might use.
    #[derive(Debug, Clone)]
    enum Node {
        Scalar,
        BlockMap(Vec<Node>),
        BlockSeq(Vec<Node>),
        FlowSeq(Vec<Node>),
        FlowMap(Vec<Node>),
        /// `[k: v, ...]`: each pair a one-pair mapping inside the list.
        FlowPairs(Vec<Node>),
    }

    fn node() -> impl proptest::strategy::Strategy<Value = Node> {
        use proptest::prelude::*;
        let flow = Just(Node::Scalar).prop_recursive(6, 40, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 1..3).prop_map(Node::FlowSeq),
                proptest::collection::vec(inner.clone(), 1..3).prop_map(Node::FlowMap),
                proptest::collection::vec(inner, 1..3).prop_map(Node::FlowPairs),
            ]
        });
        prop_oneof![Just(Node::Scalar), flow].prop_recursive(10, 80, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 1..3).prop_map(Node::BlockMap),
                proptest::collection::vec(inner, 1..3).prop_map(Node::BlockSeq),
            ]
        })
    }

    /// `node` as YAML: `indent` spaces for its entries, which start on a new line unless
    /// `inline` (after a `- ` or `? `); `same` puts a list under a key at the key's column.
    fn write(node: &Node, indent: usize, inline: bool, same: bool, out: &mut String) {
        let pad = |out: &mut String, first: bool| {
            if !(first && inline) {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
            }
        };
        match node {
            Node::Scalar => out.push('x'),
            Node::FlowSeq(items) | Node::FlowMap(items) | Node::FlowPairs(items) => {
                let map = matches!(node, Node::FlowMap(_));
                out.push(if map { '{' } else { '[' });
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    // yaml-rust2 reads a pair in a list only with a scalar value.
                    let pair = matches!(node, Node::FlowPairs(_)) && matches!(item, Node::Scalar);
                    if map || pair {
                        out.push_str(&format!("k{i}: "));
                    }
                    write(item, indent, true, same, out);
                }
                out.push(if map { '}' } else { ']' });
            }
            Node::BlockMap(items) => {
                for (i, item) in items.iter().enumerate() {
                    pad(out, i == 0);
                    out.push_str(&format!("k{i}:"));
                    match item {
                        Node::BlockSeq(_) if same => write(item, indent, false, same, out),
                        Node::BlockMap(_) | Node::BlockSeq(_) => {
                            write(item, indent + 2, false, !same, out)
                        }
                        _ => {
                            out.push(' ');
                            write(item, indent + 2, true, same, out)
                        }
                    }
                }
            }
            Node::BlockSeq(items) => {
                for (i, item) in items.iter().enumerate() {
                    pad(out, i == 0);
                    out.push_str("- ");
                    write(item, indent + 2, true, !same, out);
                }
            }
        }
    }

    /// The most lists and mappings yaml-rust2 has open at once in `text`.
    fn exact_depth(text: &str) -> Option<usize> {
        let mut parser = Parser::new_from_str(text);
        let (mut depth, mut deepest) = (0usize, 0usize);
        loop {
            match parser.next_token().ok()?.0 {
                Event::StreamEnd => return Some(deepest),
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                Event::SequenceEnd | Event::MappingEnd => depth -= 1,
                _ => {}
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The bound the check trusts without parsing is never below the nesting the parser
        /// finds, whatever mix of block, compact and flow styles the text uses.
        #[test]
        fn the_bound_is_never_below_the_depth(node in node(), same: bool) {
            let mut text = String::new();
            write(&node, 0, true, same, &mut text);
            text.push('\n');
            let Some(depth) = exact_depth(&text) else {
                panic!("not YAML:\n{text}");
            };
            let bound = depth_bound(&text, usize::MAX / 4);
            proptest::prop_assert!(bound >= depth, "bound {} < depth {}:\n{}", bound, depth, text);
        }
    }

    #[test]
    fn the_bound_leaves_ordinary_front_matter_to_no_parse() {
        let text = "title: What is a warp?\naliases: [warps]\nsources:\n  - url: https://x\n    checked: 2026-01-01\nmeasured:\n  - experiment: e\n    rows: [a, b]\n";
        assert!(depth_bound(text, MAX_DEPTH) <= MAX_DEPTH);
        // A line break YAML knows and this scan does not is left to the parse.
        assert!(depth_bound("a:\u{2028}  - b\n", MAX_DEPTH) > MAX_DEPTH);
    }
}
