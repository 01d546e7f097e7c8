//! Splitting a content file into YAML front matter and Markdown body, and parsing the
//! front matter with errors that point at the line and column in the *file*.

use std::path::Path;

use crate::error::{Error, Location, Result};

use super::entry::FrontMatter;

/// The two halves of a content file.
pub struct Split<'a> {
    pub yaml: &'a str,
    /// Line (1-based) of the file on which the YAML starts.
    pub yaml_line: usize,
    pub body: &'a str,
    /// Line (1-based) of the file on which the body starts.
    pub body_line: usize,
}

/// Split `---\n<yaml>\n---\n<body>`. The fences must be alone on their lines.
pub fn split_front_matter<'a>(path: &Path, text: &'a str) -> Result<Split<'a>> {
    // A NUL is no text anyone wrote (a damaged file, or a binary one named .md), and it
    // would reach the page as it is: refused here, where every read of an entry passes.
    if let Some(at) = memchr::memchr(0, text.as_bytes()) {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        return Err(Error::content(
            path,
            Some(Location {
                line: 1 + text[..at].matches('\n').count(),
                column: 1 + text[line_start..at].chars().count(),
            }),
            "the file holds a NUL character (U+0000), which no page can show: remove it \
             (it is often a sign of a damaged file)",
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_line_end = text.find('\n').map(|i| i + 1).unwrap_or(text.len());
    if text[..first_line_end].trim_end() != "---" {
        return Err(Error::content(
            path,
            Some(Location { line: 1, column: 1 }),
            "expected front matter: the file must start with a `---` line",
        ));
    }
    let rest = &text[first_line_end..];
    // Each line's end found by one SIMD search over the text (every entry is split twice
    // a build, and `split_inclusive`'s set-up per line was most of this function).
    let ends = memchr::memchr_iter(b'\n', rest.as_bytes())
        .map(|i| i + 1)
        .chain(std::iter::once(rest.len()));
    let mut offset = 0;
    for (line, end) in (2..).zip(ends) {
        if rest[offset..end].trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[end..];
            return Ok(Split {
                yaml,
                yaml_line: 2,
                body,
                body_line: line + 1,
            });
        }
        offset = end;
    }
    Err(Error::content(
        path,
        Some(Location { line: 1, column: 1 }),
        "front matter is not closed: add a `---` line after it",
    ))
}

/// Parse the YAML half into [`FrontMatter`].
pub fn parse_front_matter(path: &Path, split: &Split<'_>) -> Result<FrontMatter> {
    check_depth(path, split)?;
    serde_yaml::from_str::<FrontMatter>(split.yaml).map_err(|e| {
        let message = drop_positions(&e.to_string());
        let mut at = e.location().map(|l| Location {
            line: l.line() + split.yaml_line - 1,
            column: l.column(),
        });
        // A repeated key is located at the start of its mapping, which may be many lines
        // above it: point at the repeat itself, which is what the author has to delete.
        if let (Some(start), Some(key)) = (at, duplicate_key(&message)) {
            if let Some(line) = line_of_repeated_key(split, start.line, key) {
                at = Some(Location { line, column: 1 });
            }
        }
        // A value refused by its own type (an unknown `topic`) is located at the start of
        // the mapping too: point at its key.
        if message.contains("unknown topic `") {
            if let Some(line) = line_of_top_key(split, "topic") {
                at = Some(Location { line, column: 1 });
            }
        }
        Error::content(path, at, format!("front matter: {message}"))
    })
}

/// The file line of the top-level `key:` (not indented), if the front matter has one.
fn line_of_top_key(split: &Split<'_>, key: &str) -> Option<usize> {
    split
        .yaml
        .lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|i| split.yaml_line + i)
}

/// The front matter nests no deeper than [`crate::yaml_depth::MAX_DEPTH`], or an error at
/// the line where it first does: checked before serde_norway reads it (see there why).
pub fn check_depth(path: &Path, split: &Split<'_>) -> Result<()> {
    crate::yaml_depth::check(split.yaml).map_err(|d| {
        let at = Location {
            line: d.line + split.yaml_line - 1,
            column: d.column,
        };
        Error::content(path, Some(at), format!("front matter: {d}"))
    })
}

/// The key a "duplicate field `k`" / "duplicate entry with key \"k\"" message names.
fn duplicate_key(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("duplicate ")?;
    let rest = rest.trim_start_matches(|c: char| c.is_alphabetic() || c == ' ');
    let quote = rest.chars().next().filter(|c| *c == '`' || *c == '"')?;
    let rest = &rest[1..];
    rest.find(quote).map(|end| &rest[..end])
}

/// The file line of the second `key:` of the mapping that starts at or after file line
/// `from`: the first `key:` found fixes the mapping's column, and the mapping ends at a
/// line less indented or at a new list item (`- `) left of that column.
fn line_of_repeated_key(split: &Split<'_>, from: usize, key: &str) -> Option<usize> {
    let skip = from.saturating_sub(split.yaml_line);
    let mut column = None;
    for (i, l) in split.yaml.lines().enumerate().skip(skip) {
        let indent = l.len() - l.trim_start().len();
        let mut rest = l.trim_start();
        let mut at = indent;
        let mut dash = None;
        while let Some(r) = rest.strip_prefix('-').filter(|r| r.starts_with(' ')) {
            dash.get_or_insert(at);
            let r2 = r.trim_start();
            at += rest.len() - r2.len();
            rest = r2;
        }
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        let is_key = rest
            .strip_prefix(key)
            .or_else(|| rest.strip_prefix(&format!("\"{key}\"")))
            .or_else(|| rest.strip_prefix(&format!("'{key}'")))
            .is_some_and(|r| r.trim_start().starts_with(':'));
        match column {
            None if is_key => column = Some(at),
            None => {}
            Some(c) if at < c || dash.is_some_and(|d| d < c) => return None,
            Some(c) if is_key && at == c => return Some(split.yaml_line + i),
            Some(_) => {}
        }
    }
    None
}

/// Drop every " at line N column M" from a YAML message: those count lines inside the
/// front matter, while the error's own location counts lines of the file.
fn drop_positions(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(" at line ") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + " at line ".len()..];
        let skip = tail
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_digit() || c == ' ' || "column".contains(c)))
            .map(|(j, _)| j)
            .unwrap_or(tail.len());
        rest = &tail[skip..];
    }
    out.push_str(rest);
    out
}

/// The file line (1-based) of the first front-matter line that mentions `needle` after
/// `key:`, for pointing reference errors at the place that wrote them.
pub fn line_of_reference(split: &Split<'_>, key: &str, needle: &str) -> Option<usize> {
    line_of_nth_reference(split, key, needle, 0)
}

/// The file line (1-based) of the `field:` key of item `index` (0-based) of the list under
/// `list_key:`, such as the `url:` of the second source. Every item is taken to have that
/// field once (serde refused the file otherwise), so the n-th `field:` of the list is the
/// n-th item's, whether items are written as blocks or as `{...}` on one line.
pub fn line_of_item_field(
    split: &Split<'_>,
    list_key: &str,
    index: usize,
    field: &str,
) -> Option<usize> {
    let mut in_key = false;
    let mut seen = 0;
    for (i, l) in split.yaml.lines().enumerate() {
        let trimmed = l.trim_start();
        if l.len() == trimmed.len() && !trimmed.is_empty() && !trimmed.starts_with('-') {
            in_key = trimmed.starts_with(&format!("{list_key}:"));
            continue;
        }
        if !in_key {
            continue;
        }
        for (at, _) in l.match_indices(&format!("{field}:")) {
            let before = l[..at].chars().next_back();
            if before.is_none_or(|c| c == ' ' || c == '{' || c == ',' || c == '-') {
                if seen == index {
                    return Some(split.yaml_line + i);
                }
                seen += 1;
            }
        }
    }
    None
}

/// The file line of the `n`-th (0-based) front-matter line that mentions `needle` under
/// `key:` (a repeated reference: point at the repeat, not the first).
pub fn line_of_nth_reference(
    split: &Split<'_>,
    key: &str,
    needle: &str,
    n: usize,
) -> Option<usize> {
    let mut in_key = false;
    let mut seen = 0;
    for (i, l) in split.yaml.lines().enumerate() {
        let trimmed = l.trim_start();
        let indent = l.len() - trimmed.len();
        if indent == 0 && !trimmed.is_empty() && !trimmed.starts_with('-') {
            in_key = trimmed.starts_with(&format!("{key}:"));
        }
        if in_key {
            let found = count_tokens(l, needle);
            if seen + found > n {
                return Some(split.yaml_line + i);
            }
            seen += found;
        }
    }
    None
}

fn count_tokens(line: &str, token: &str) -> usize {
    line.match_indices(token)
        .filter(|&(i, _)| {
            let before = line[..i].chars().next_back();
            let after = line[i + token.len()..].chars().next();
            let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '-'));
            boundary(before) && boundary(after)
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_front_matter_and_counts_body_line() {
        let text = "---\ntitle: x\nsummary: y\n---\nbody\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        assert_eq!(s.yaml, "title: x\nsummary: y\n");
        assert_eq!(s.body, "body\n");
        assert_eq!(s.body_line, 5);
    }

    #[test]
    fn the_closing_line_is_found_wherever_the_text_ends() {
        let cases = [
            ("---\ntitle: x\n---", "title: x\n", "", 4),
            ("---\ntitle: x\n---\n", "title: x\n", "", 4),
            (
                "---\r\ntitle: x\r\n---  \r\nbody",
                "title: x\r\n",
                "body",
                4,
            ),
            ("---\n---\n\nbody\n", "", "\nbody\n", 3),
        ];
        for (text, yaml, body, body_line) in cases {
            let s = split_front_matter(Path::new("a.md"), text).unwrap();
            assert_eq!(
                (s.yaml, s.body, s.body_line),
                (yaml, body, body_line),
                "{text:?}"
            );
        }
    }

    #[test]
    fn reports_unclosed_front_matter() {
        let err = split_front_matter(Path::new("a.md"), "---\ntitle: x\n")
            .err()
            .unwrap();
        assert!(err.to_string().contains("not closed"), "{err}");
    }

    #[test]
    fn yaml_error_points_at_file_line() {
        let text = "---\ntitle: x\nsummary: [unclosed\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        let err = parse_front_matter(Path::new("a.md"), &s)
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("a.md:"), "{err}");
        let line: usize = err.split(':').nth(1).unwrap().parse().unwrap();
        assert!((3..=5).contains(&line), "{err}");
    }

    #[test]
    fn a_nul_character_is_refused_at_its_line_and_column() {
        let text = "---\ntitle: x\n---\nok\nab\0c\n";
        let err = split_front_matter(Path::new("a.md"), text).err().unwrap();
        assert!(err.to_string().starts_with("a.md:5:3: "), "{err}");
        assert!(err.to_string().contains("NUL"), "{err}");
    }

    #[test]
    fn an_unknown_topic_is_reported_at_its_line_naming_the_allowed_ones() {
        let text = "---\ntitle: x\nsummary: y\nrelated: []\ntopic: memroy\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        let err = parse_front_matter(Path::new("a.md"), &s).err().unwrap();
        assert!(err.to_string().starts_with("a.md:5:1: "), "{err}");
        assert!(
            err.to_string()
                .contains("unknown topic `memroy`: a term's `topic` is one of `memory`, `execution`, `tensor-cores`, `tools`"),
            "{err}"
        );
        let text = "---\ntitle: x\nsummary: y\ntopic: tensor-cores\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        let fm = parse_front_matter(Path::new("a.md"), &s).unwrap();
        assert_eq!(fm.topic, Some(crate::content::Topic::TensorCores));
    }

    #[test]
    fn a_repeated_key_is_reported_at_the_repeat() {
        let text = "---\ntitle: x\nname: a\nsummary: y\nrelated: []\nname: b\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        let err = parse_front_matter(Path::new("a.md"), &s).err().unwrap();
        assert!(err.to_string().starts_with("a.md:6:1: "), "{err}");
        assert!(err.to_string().contains("duplicate field `name`"), "{err}");

        // In a list item: the repeat in the second source, not a key of the first.
        let text = "---\ntitle: x\nsummary: y\nsources:\n  - title: A\n    url: https://a.example\n    checked: 2026-01-01\n  - title: B\n    url: https://b.example\n    checked: 2026-01-01\n    title: C\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        let err = parse_front_matter(Path::new("a.md"), &s).err().unwrap();
        assert!(err.to_string().starts_with("a.md:11:1: "), "{err}");
    }

    #[test]
    fn finds_the_field_of_a_list_item() {
        let text = "---\ntitle: x\nsources:\n  - {title: A, url: a, checked: 2026-01-01}\n  - title: B\n    url: b\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        assert_eq!(line_of_item_field(&s, "sources", 0, "url"), Some(4));
        assert_eq!(line_of_item_field(&s, "sources", 1, "url"), Some(6));
        assert_eq!(line_of_item_field(&s, "sources", 1, "title"), Some(5));
        assert_eq!(line_of_item_field(&s, "sources", 2, "url"), None);
    }

    #[test]
    fn finds_reference_line() {
        let text = "---\ntitle: x\nrelated:\n  - foo\n  - bar-baz\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        assert_eq!(line_of_reference(&s, "related", "bar-baz"), Some(5));
        assert_eq!(line_of_reference(&s, "related", "bar"), None);
    }
}
