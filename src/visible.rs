//! Text is what it looks like: the characters that would make a terminal or a browser show
//! something other than the text (control characters, and so ANSI escape sequences, which
//! start with ESC; bidirectional overrides, isolates and marks, which reorder what is drawn),
//! the one rule that finds them in a file, and the escaped form every printer uses.
//!
//! Entry files may not hold them at all (`content::load` refuses each at its line and
//! column); text that reaches a terminal anyway (a signed text written before that check, a
//! person's name, an error quoting a file) is printed through [`Escaped`], so `review diff`
//! shows `<U+001B>[2K` where a terminal would have erased the line.

use std::fmt;

/// Why `c` may not stand in text a person reads, if it may not. Tab and line feed are text;
/// a carriage return is text only as the first half of a CRLF line ending (`next` is the
/// character after it).
pub fn hidden_kind(c: char, next: Option<char>) -> Option<&'static str> {
    match c {
        '\t' | '\n' => None,
        '\r' if next == Some('\n') => None,
        '\r' => Some("a carriage return not followed by a line feed (it moves the terminal's cursor back over the line)"),
        '\u{1B}' => Some("ESC (it starts an ANSI escape sequence, which a terminal obeys instead of showing)"),
        '\u{00}' => Some("a NUL character (no page can show it; it is often a sign of a damaged file)"),
        '\u{01}'..='\u{1F}' | '\u{7F}' => Some("a C0 control character"),
        '\u{80}'..='\u{9F}' => Some("a C1 control character (U+009B starts an escape sequence in some terminals)"),
        '\u{202A}'..='\u{202E}' => Some("a bidirectional override (it reorders the text drawn after it)"),
        '\u{2066}'..='\u{2069}' => Some("a bidirectional isolate (it reorders the text drawn after it)"),
        '\u{200E}' | '\u{200F}' | '\u{061C}' => Some("a bidirectional mark (an invisible character that moves punctuation)"),
        _ => None,
    }
}

/// A hidden character found in a text: where (1-based line, and column in characters) and
/// what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    pub line: usize,
    pub column: usize,
    pub ch: char,
    pub kind: &'static str,
}

impl Hidden {
    /// "U+001B, ESC (...)": what an error tells the author.
    pub fn describe(&self) -> String {
        format!("{}, {}", code_point(self.ch), self.kind)
    }
}

/// Every hidden character of `text`, in order. Lines are counted by `\n`, as editors and
/// every other error of the crate count them.
pub fn find_hidden(text: &str) -> Vec<Hidden> {
    let mut found = Vec::new();
    // Plain text has none: one pass over the bytes decides (C1 controls and the bidi
    // characters are all outside ASCII, and their UTF-8 starts with 0xC2, 0xD8 or 0xE2).
    let suspect = |b: &u8| {
        *b < 0x20 && !matches!(*b, b'\t' | b'\n') || matches!(*b, 0x7F | 0xC2 | 0xD8 | 0xE2)
    };
    if !text.as_bytes().iter().any(suspect) {
        return found;
    }
    let (mut line, mut column) = (1, 0);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        column += 1;
        if let Some(kind) = hidden_kind(c, chars.peek().copied()) {
            found.push(Hidden {
                line,
                column,
                ch: c,
                kind,
            });
        }
        if c == '\n' {
            (line, column) = (line + 1, 0);
        }
    }
    found
}

/// The characters a file or folder name the tool reads may hold: ASCII letters, digits,
/// `-`, `_` and `.`. An allow-list, not a list of bad characters: a name is printed in
/// messages, turned into a slug and a URL, and compared with other names, and a name
/// holding a zero-width space, a bidi override or a control character looks like another
/// name (or rewrites the terminal that shows it).
pub fn is_file_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Why `name` may not be the name of a file or folder the tool reads (see
/// [`is_file_name_char`]), if it may not: the first character outside the allow-list.
pub fn file_name_problem(name: &std::ffi::OsStr) -> Option<String> {
    name_problem(name, false)
}

/// [`file_name_problem`] for a file that is not an entry (a figure beside it): an ASCII
/// space between words is allowed too (`my pic.png`, linked as `my%20pic.png`), as it
/// is plainly visible; a leading or trailing one, or two in a row, is not.
pub fn side_file_name_problem(name: &std::ffi::OsStr) -> Option<String> {
    name_problem(name, true)
}

fn name_problem(name: &std::ffi::OsStr, spaces: bool) -> Option<String> {
    let Some(name) = name.to_str() else {
        return Some("is not valid UTF-8".into());
    };
    if spaces && (name.starts_with(' ') || name.ends_with(' ') || name.contains("  ")) {
        return Some(
            "has a space at its start or end, or two in a row: a space may only stand between two other characters".into(),
        );
    }
    let bad = name
        .chars()
        .find(|c| !(is_file_name_char(*c) || (spaces && *c == ' ')))?;
    let what = match hidden_kind(bad, None) {
        Some(kind) => format!("{}, {kind}", code_point(bad)),
        None if bad.is_ascii_graphic() || bad == ' ' => format!("`{bad}`"),
        None => code_point(bad),
    };
    Some(format!(
        "holds {what}: file and folder names here use only the letters A-Z and a-z, \
         digits, `-`, `_` and `.`"
    ))
}

/// `name` as a message shows it: each character outside the file-name allow-list as
/// `<U+XXXX>`, so a name with an invisible or reordering character reads as what it is.
pub fn shown_file_name(name: &std::ffi::OsStr) -> String {
    name.to_string_lossy()
        .chars()
        .map(|c| match c {
            c if is_file_name_char(c) || (c.is_ascii_graphic() || c == ' ') => c.to_string(),
            c => format!("<{}>", code_point(c)),
        })
        .collect()
}

/// `U+001B`.
pub fn code_point(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

/// `text` with every hidden character written as `<U+XXXX>`: what a terminal shows of it
/// is then what it holds. Idempotent (the escaped form is plain ASCII), so text escaped
/// once and printed through another [`Escaped`] reads the same.
pub fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if find_hidden(text).is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match hidden_kind(c, chars.peek().copied()) {
            Some(_) => {
                out.push('<');
                out.push_str(&code_point(c));
                out.push('>');
            }
            None => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Displays `T` with its hidden characters escaped ([`escape`]): the one wrapper through
/// which errors, `review diff`, `review status` and the build's refusals print text that
/// came from files.
pub struct Escaped<T>(pub T);

impl<T: fmt::Display> fmt::Display for Escaped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if f.alternate() {
            format!("{:#}", self.0)
        } else {
            self.0.to_string()
        };
        f.write_str(&escape(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_class_at_its_line_and_column() {
        let text = "ok\tline\r\nerase\u{1B}[2K\rhidden\n\u{1B}[8mx\nab\u{202E}cd\n\u{2066}i\u{2069}\ncsi\u{9B}2K\nlast\r";
        let got: Vec<(usize, usize, char)> = find_hidden(text)
            .iter()
            .map(|h| (h.line, h.column, h.ch))
            .collect();
        assert_eq!(
            got,
            [
                (2, 6, '\u{1B}'),
                (2, 10, '\r'),
                (3, 1, '\u{1B}'),
                (4, 3, '\u{202E}'),
                (5, 1, '\u{2066}'),
                (5, 3, '\u{2069}'),
                (6, 4, '\u{9B}'),
                (7, 5, '\r'),
            ]
        );
        // CRLF line endings, tabs and non-ASCII letters are text.
        assert!(find_hidden("a\r\nb\tü \u{1F600}\r\n").is_empty());
    }

    #[test]
    fn escaped_text_holds_no_hidden_character_and_escaping_is_idempotent() {
        let text = "x\u{1B}[2K\ry\u{202E}z\r\n\u{9B}";
        let once = escape(text).into_owned();
        assert_eq!(once, "x<U+001B>[2K<U+000D>y<U+202E>z\r\n<U+009B>");
        assert!(find_hidden(&once).is_empty());
        assert_eq!(escape(&once), once);
        assert_eq!(Escaped(text).to_string(), once);
    }
}
