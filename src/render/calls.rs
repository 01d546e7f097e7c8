//! Finding the project's own function calls in an entry body.
//!
//! A body is Markdown, not a template. The only thing evaluated in it is a call of one of
//! the functions in [`FUNCTIONS`], written `{{ name(key="text", key=123) }}`, and only
//! outside code spans, code blocks and HTML. Everything else is literal text: `{{`, `{%` and
//! `{#` in code, a C++ brace initialiser `int a[2][2] = {{1, 2}, {3, 4}};`, a PTX register
//! list `{%f2, %f3}`. There are no filters, tags or expressions, so nothing in a body can
//! rewrite a recorded number.
//!
//! `{{` followed by a name and `(` is a call: if it is malformed, names an unknown function
//! or argument, or misses one, that is an error at the call's own line:column in the file.
//! Its arguments may wrap over lines (a call with many arguments does not fit on one), but
//! not over a blank line, which ends a paragraph.
//! What a call evaluates to is `values`' business.

use std::collections::BTreeMap;
use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// An argument's value: a quoted string or an unsigned integer.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Text(String),
    Number(u64),
}

impl std::fmt::Display for Arg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Arg::Text(s) => write!(f, "\"{s}\""),
            Arg::Number(n) => write!(f, "{n}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArgKind {
    Text,
    Number,
}

/// One parameter of a body function.
pub struct Param {
    pub name: &'static str,
    pub kind: ArgKind,
    pub required: bool,
    /// The largest number it takes, where there is one.
    pub max: Option<u64>,
}

/// A function a body may call.
pub struct Function {
    pub name: &'static str,
    pub params: &'static [Param],
}

const fn text(name: &'static str, required: bool) -> Param {
    Param {
        name,
        kind: ArgKind::Text,
        required,
        max: None,
    }
}

const fn number(name: &'static str, required: bool) -> Param {
    Param {
        name,
        kind: ArgKind::Number,
        required,
        max: None,
    }
}

const fn number_up_to(name: &'static str, required: bool, max: u64) -> Param {
    Param {
        max: Some(max),
        ..number(name, required)
    }
}

/// The most decimals `ratio()` prints: an f64 holds about 15 significant digits, and
/// Rust's formatter panics on a precision over 65535.
pub const MAX_DECIMALS: u64 = 12;

/// Every function a body may call: the one registry. Adding one here (and its evaluation
/// in `values`) is all it takes; the parser checks names and arguments against this list.
pub const FUNCTIONS: &[Function] = &[
    Function {
        name: "value",
        params: &[
            text("row", true),
            text("column", true),
            text("experiment", false),
            text("node", false),
        ],
    },
    Function {
        name: "ratio",
        params: &[
            text("column", true),
            text("of", true),
            text("to", true),
            number_up_to("decimals", false, MAX_DECIMALS),
            text("experiment", false),
            text("node", false),
            text("of_node", false),
            text("to_node", false),
        ],
    },
    Function {
        name: "occupancy",
        params: &[
            text("arch", true),
            number("block", true),
            number("regs", true),
            number("smem", false),
            number("static_smem", false),
            text("show", true),
        ],
    },
    Function {
        name: "near_best",
        params: &[
            text("column", true),
            text("best", true),
            number("within", true),
            text("show", true),
            text("experiment", false),
            text("node", false),
        ],
    },
    Function {
        name: "ncu",
        params: &[
            text("export", true),
            text("launch", true),
            text("show", true),
        ],
    },
];

/// A call found in a body: where it is (byte range of `{{ ... }}` in the body) and what
/// it asks.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub span: Range<usize>,
    pub function: &'static str,
    pub args: BTreeMap<String, Arg>,
}

impl Call {
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.args.get(name) {
            Some(Arg::Text(s)) => Some(s),
            _ => None,
        }
    }

    pub fn number(&self, name: &str) -> Option<u64> {
        match self.args.get(name) {
            Some(Arg::Number(n)) => Some(*n),
            _ => None,
        }
    }

    /// The call as written, normalised: `value(row="a", column="b")`.
    pub fn describe(&self) -> String {
        let args: Vec<String> = self.args.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}({})", self.function, args.join(", "))
    }
}

/// A malformed call: the byte offset in the body where the problem is, and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct CallError {
    pub offset: usize,
    pub message: String,
}

/// Every call in `body`, in order, and every malformed one.
pub fn find_calls(body: &str) -> (Vec<Call>, Vec<CallError>) {
    let mut calls = Vec::new();
    let mut errors = Vec::new();
    // Most bodies have no call at all; only those pay for a Markdown parse.
    if !body.contains("{{") {
        return (calls, errors);
    }
    let literal = literal_ranges(body);
    let mut from = 0;
    while let Some(i) = body[from..].find("{{") {
        let start = from + i;
        from = start + 2;
        // Ranges are sorted and disjoint: the last one starting at or before `start`.
        let k = literal.partition_point(|r| r.start <= start);
        if k > 0 && literal[k - 1].contains(&start) {
            from = from.max(literal[k - 1].end);
            continue;
        }
        match parse_call(body, start) {
            Parsed::NotACall => {}
            Parsed::Call(call) => {
                from = call.span.end;
                calls.push(call);
            }
            Parsed::Bad(e) => {
                from = body[start..]
                    .find("}}")
                    .map_or(body.len(), |end| start + end + 2);
                errors.push(e);
            }
        }
    }
    (calls, errors)
}

/// The calls starting at `starts`, offsets [`find_calls`] gave for this same body
/// ([`Call::span`]'s start): a build finds an entry's calls when it assesses it and, after
/// letting the text go, finds them again for its page without parsing the Markdown.
pub fn calls_at(body: &str, starts: &[u32]) -> (Vec<Call>, Vec<CallError>) {
    let mut calls = Vec::with_capacity(starts.len());
    let mut errors = Vec::new();
    for &start in starts {
        match parse_call(body, start as usize) {
            Parsed::Call(call) => calls.push(call),
            Parsed::Bad(e) => errors.push(e),
            Parsed::NotACall => {}
        }
    }
    (calls, errors)
}

/// Byte ranges of the body that are never evaluated: code spans, code blocks, HTML.
fn literal_ranges(body: &str) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut block_start = None;
    for (event, range) in Parser::new_ext(body, super::markdown::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => block_start = Some(range.start),
            Event::End(TagEnd::CodeBlock) => {
                if let Some(s) = block_start.take() {
                    ranges.push(s..range.end);
                }
            }
            Event::Code(_) | Event::Html(_) | Event::InlineHtml(_) if block_start.is_none() => {
                ranges.push(range)
            }
            _ => {}
        }
    }
    ranges.sort_by_key(|r| r.start);
    ranges
}

enum Parsed {
    NotACall,
    Call(Call),
    Bad(CallError),
}

/// Parse the call starting at `body[start..]` (which begins with `{{`).
fn parse_call(body: &str, start: usize) -> Parsed {
    let mut p = Cursor {
        s: body,
        at: start + 2,
    };
    p.blanks();
    let name_at = p.at;
    let name = p.ident();
    p.blanks();
    if name.is_empty() || !p.eat('(') {
        // `{{1, 2}, ...}`, `{{ page.title }}`, `{{-`: not a call, literal text.
        return Parsed::NotACall;
    }
    let bad = |offset: usize, message: String| Parsed::Bad(CallError { offset, message });
    let Some(function) = FUNCTIONS.iter().find(|f| f.name == name) else {
        let known: Vec<&str> = FUNCTIONS.iter().map(|f| f.name).collect();
        return bad(
            name_at,
            format!(
                "unknown function `{name}` (a body can call {})",
                known.join(", ")
            ),
        );
    };
    // Past `(`, a line break is a blank too, up to a blank line: a problem at a blank
    // line says the call is cut there rather than what it expected.
    let bad = |offset: usize, message: String| match body[offset..].starts_with(['\n', '\r']) {
        true => bad(
            offset,
            format!(
                "{name}(): `}}}}` must close the call before a blank line or the end of the \
                 text (its arguments may wrap over lines, not over paragraphs)"
            ),
        ),
        false => bad(offset, message),
    };
    let mut args = BTreeMap::new();
    p.gaps();
    if !p.eat(')') {
        loop {
            p.gaps();
            let key_at = p.at;
            let key = p.ident();
            if key.is_empty() {
                return bad(
                    key_at,
                    format!(
                        "{name}(): expected an argument name like {} ({})",
                        example_argument(function),
                        takes(function)
                    ),
                );
            }
            let Some(param) = function.params.iter().find(|q| q.name == key) else {
                return bad(
                    key_at,
                    format!("{name}() has no argument `{key}` ({})", takes(function)),
                );
            };
            p.gaps();
            if !p.eat('=') {
                return bad(p.at, format!("{name}(): expected `=` after `{key}`"));
            }
            p.gaps();
            let value_at = p.at;
            let value = match p.peek() {
                Some(q @ ('"' | '\'')) => {
                    p.at += 1;
                    let rest = &body[p.at..];
                    match rest.find([q, '\n']) {
                        Some(end) if rest[end..].starts_with(q) => {
                            p.at += end + 1;
                            Arg::Text(rest[..end].to_string())
                        }
                        _ => return bad(value_at, format!("{name}(): unterminated string")),
                    }
                }
                Some(c) if c.is_ascii_digit() => {
                    let digits = p.take_while(|c| c.is_ascii_digit());
                    match digits.parse() {
                        Ok(n) => Arg::Number(n),
                        Err(_) => return bad(value_at, format!("{name}(): number too large")),
                    }
                }
                _ => {
                    return bad(
                        value_at,
                        format!(
                        "{name}(): `{key}` takes a quoted string or a whole number, nothing else"
                    ),
                    )
                }
            };
            let kind_ok = matches!(
                (&value, param.kind),
                (Arg::Text(_), ArgKind::Text) | (Arg::Number(_), ArgKind::Number)
            );
            if !kind_ok {
                let want = match param.kind {
                    ArgKind::Text => "a quoted string",
                    ArgKind::Number => "a whole number",
                };
                return bad(value_at, format!("{name}(): `{key}` must be {want}"));
            }
            if let (Arg::Number(n), Some(max)) = (&value, param.max) {
                if *n > max {
                    return bad(
                        value_at,
                        format!(
                            "{name}(): `{key}` must be a whole number from 0 to {max}, not {n}"
                        ),
                    );
                }
            }
            if args.insert(key.to_string(), value).is_some() {
                return bad(key_at, format!("{name}(): `{key}` is given twice"));
            }
            p.gaps();
            if p.eat(')') {
                break;
            }
            if !p.eat(',') {
                return bad(p.at, format!("{name}(): expected `,` or `)`"));
            }
        }
    }
    p.gaps();
    if p.peek() == Some('|') {
        return bad(
            p.at,
            "filters are not allowed in a body (a recorded number is shown as the record has it)"
                .into(),
        );
    }
    if !p.eat('}') || !p.eat('}') {
        return bad(p.at, format!("{name}(): expected `}}}}` to close the call"));
    }
    if let Some(missing) = function
        .params
        .iter()
        .find(|q| q.required && !args.contains_key(q.name))
    {
        return bad(
            name_at,
            format!("{name}() needs the argument `{}`", missing.name),
        );
    }
    Parsed::Call(Call {
        span: start..p.at,
        function: function.name,
        args,
    })
}

/// What `f` takes, for a message: "it takes row, column, experiment, node".
fn takes(f: &Function) -> String {
    let names: Vec<&str> = f.params.iter().map(|q| q.name).collect();
    format!("it takes {}", names.join(", "))
}

/// `f`'s first argument as it would be written: `row="..."`, `block=256`.
fn example_argument(f: &Function) -> String {
    match f.params.first() {
        Some(q) if q.kind == ArgKind::Number => format!("`{}=256`", q.name),
        Some(q) => format!("`{}=\"...\"`", q.name),
        None => "`name=\"...\"`".into(),
    }
}

struct Cursor<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.s[self.at..].chars().next()
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }
    /// Spaces and tabs: the start of a call, `{{ name(`, stays on one line, so that `{{`
    /// at the end of a line of prose is never read as the start of a call.
    fn blanks(&mut self) {
        self.take_while(|c| c == ' ' || c == '\t');
    }
    /// Blanks and line breaks, between the arguments of a call: up to a blank line, which
    /// ends the paragraph the call is in (the cursor stops at its line break).
    fn gaps(&mut self) {
        loop {
            self.blanks();
            let rest = &self.s[self.at..];
            let Some(next) = rest
                .strip_prefix("\r\n")
                .or_else(|| rest.strip_prefix('\n'))
            else {
                return;
            };
            let next_line = next.trim_start_matches([' ', '\t']);
            if next_line.is_empty() || next_line.starts_with(['\n', '\r']) {
                return;
            }
            self.at = self.s.len() - next.len();
        }
    }
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let rest = &self.s[self.at..];
        let len = rest.find(|c| !f(c)).unwrap_or(rest.len());
        self.at += len;
        &rest[..len]
    }
    fn ident(&mut self) -> &'a str {
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        {
            self.take_while(|c| c.is_ascii_alphanumeric() || c == '_')
        } else {
            ""
        }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(body: &str) -> Vec<String> {
        let (calls, errors) = find_calls(body);
        assert!(errors.is_empty(), "{errors:?}");
        calls.iter().map(Call::describe).collect()
    }

    fn error(body: &str) -> (usize, usize, String) {
        let (_, errors) = find_calls(body);
        let e = errors
            .first()
            .unwrap_or_else(|| panic!("no error in {body:?}"));
        let (l, c) = line_column(body, e.offset);
        (l, c, e.message.clone())
    }

    #[test]
    fn calls_at_finds_again_what_find_calls_found() {
        let body = "`{{ value(row=\"x\") }}` is code; {{ value(row=\"b128\", column=\"gbps\") }}\n\n\
                    ```\n{{ ratio(column='a') }}\n```\n{{ page.title }} {{ratio(column='gbps',of=\"x\",to=\"y\")}}\n";
        let (calls, errors) = find_calls(body);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(calls.len(), 2, "{calls:?}");
        let starts: Vec<u32> = calls.iter().map(|c| c.span.start as u32).collect();
        let (again, errors) = calls_at(body, &starts);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(again, calls);
    }

    #[test]
    fn calls_in_prose_are_found() {
        assert_eq!(
            names("a {{ value(row=\"b128\", column=\"gbps\") }} b {{ratio(column='gbps',of=\"x\",to=\"y\",decimals=3)}}\n"),
            [
                "value(column=\"gbps\", row=\"b128\")",
                "ratio(column=\"gbps\", decimals=3, of=\"x\", to=\"y\")"
            ]
        );
    }

    #[test]
    fn code_and_braces_are_literal() {
        let body = "Brace init `{{ value(row=\"a\") }}` in a span.\n\n```cpp\nint a[2][2] = {{1, 2}, {3, 4}};\n{{ value(row=\"x\") }}\n```\n\n```ptx\nwmma.mma.sync {%f2, %f3} {# x #}\n```\n\n    {{ ratio() }} indented\n\nProse {{1, 2}, {3, 4}} and {% raw %} and {# note #} and {{ page.title }}.\n\n<div>{{ value(row=\"h\") }}</div>\n";
        assert_eq!(names(body), Vec::<String>::new());
    }

    #[test]
    fn bad_calls_are_errors_at_their_place() {
        assert_eq!(
            error("x\n\nsee {{ valeu(row=\"a\") }}"),
            (
                3,
                8,
                "unknown function `valeu` (a body can call value, ratio, occupancy, near_best, ncu)".into()
            )
        );
        assert_eq!(
            error("{{ value(row=\"a\") }}").2,
            "value() needs the argument `column`"
        );
        assert_eq!(
            error("é {{ value(row=\"a\", column=\"b\") | round }}"),
            (1, 33, "filters are not allowed in a body (a recorded number is shown as the record has it)".into())
        );
        assert_eq!(
            error("{{ value(row=\"a\", colour=\"b\") }}").2,
            "value() has no argument `colour` (it takes row, column, experiment, node)"
        );
        assert_eq!(
            error("{{ occupancy(arch=\"sm_90\", block=\"256\", regs=32, show=\"warps\") }}").2,
            "occupancy(): `block` must be a whole number"
        );
        assert_eq!(
            error("{{ value(row=\"a, column=\"b\") }}").2,
            "value(): expected `,` or `)`"
        );
        assert!(error("{{ value(row=x) }}").2.contains("quoted string"));
    }

    #[test]
    fn arguments_may_wrap_over_lines() {
        let body = "Holds {{ occupancy(arch=\"sm_90\",\nblock=256, regs=40,\r\n    show=\"warps\"\n) }} warps.\n\nThen {{ valeu() }}\n";
        let (calls, errors) = find_calls(body);
        assert_eq!(calls.len(), 1, "{errors:?}");
        assert_eq!(
            calls[0].describe(),
            "occupancy(arch=\"sm_90\", block=256, regs=40, show=\"warps\")"
        );
        assert_eq!(&body[calls[0].span.end..calls[0].span.end + 7], " warps.");
        // A later error is still at its own line.
        assert_eq!(error(body).0, 6);
    }

    #[test]
    fn a_call_cut_by_a_blank_line_says_so() {
        let (l, c, message) = error("{{ occupancy(arch=\"sm_90\",\n\nblock=256) }}");
        assert_eq!((l, c), (1, 27));
        assert!(
            message.contains("must close the call before a blank line"),
            "{message}"
        );
        // `{{` at the end of a line of prose is not the start of a call.
        assert_eq!(names("braces {{\nvalue(x) }}\n"), Vec::<String>::new());
    }

    #[test]
    fn a_missing_argument_name_is_hinted_with_the_functions_own_arguments() {
        assert_eq!(
            error("{{ occupancy(arch=\"sm_90\", , block=256) }}").2,
            "occupancy(): expected an argument name like `arch=\"...\"` \
             (it takes arch, block, regs, smem, static_smem, show)"
        );
        assert!(
            error("{{ value(\"b128\") }}")
                .2
                .contains("like `row=\"...\"`"),
            "value's first argument is row"
        );
    }

    #[test]
    fn every_bad_call_is_reported() {
        let (calls, errors) =
            find_calls("{{ nope() }}\n{{ value(row=\"a\", column=\"b\") }}\n{{ value() }}\n");
        assert_eq!(calls.len(), 1);
        assert_eq!(errors.len(), 2);
    }
}
