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
    let mut offset = 0;
    for (line, raw_line) in (2..).zip(rest.split_inclusive('\n')) {
        if raw_line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + raw_line.len()..];
            return Ok(Split {
                yaml,
                yaml_line: 2,
                body,
                body_line: line + 1,
            });
        }
        offset += raw_line.len();
    }
    Err(Error::content(
        path,
        Some(Location { line: 1, column: 1 }),
        "front matter is not closed: add a `---` line after it",
    ))
}

/// Parse the YAML half into [`FrontMatter`].
pub fn parse_front_matter(path: &Path, split: &Split<'_>) -> Result<FrontMatter> {
    serde_yaml::from_str::<FrontMatter>(split.yaml).map_err(|e| {
        let at = e.location().map(|l| Location {
            line: l.line() + split.yaml_line - 1,
            column: l.column(),
        });
        Error::content(
            path,
            at,
            format!("front matter: {}", drop_positions(&e.to_string())),
        )
    })
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
    let mut in_key = false;
    for (i, l) in split.yaml.lines().enumerate() {
        let trimmed = l.trim_start();
        let indent = l.len() - trimmed.len();
        if indent == 0 && !trimmed.is_empty() && !trimmed.starts_with('-') {
            in_key = trimmed.starts_with(&format!("{key}:"));
        }
        if in_key && contains_token(l, needle) {
            return Some(split.yaml_line + i);
        }
    }
    None
}

fn contains_token(line: &str, token: &str) -> bool {
    line.match_indices(token).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + token.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '-'));
        boundary(before) && boundary(after)
    })
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
    fn finds_reference_line() {
        let text = "---\ntitle: x\nrelated:\n  - foo\n  - bar-baz\n---\n";
        let s = split_front_matter(Path::new("a.md"), text).unwrap();
        assert_eq!(line_of_reference(&s, "related", "bar-baz"), Some(5));
        assert_eq!(line_of_reference(&s, "related", "bar"), None);
    }
}
