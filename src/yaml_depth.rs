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
}
