//! HTML escaping for text put into pages, attributes, feeds and SVG: the one escaper
//! every part of rendering (and Tera's autoescape) uses.

/// `s` with `& < > " '` replaced by entities, safe in element text and quoted attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    escape_into(&mut out, s);
    out
}

/// [`escape`], appending to `out` (the highlighter escapes token by token). Copies the
/// runs between special characters whole: most text has none, and pushing it char by char
/// was a visible share of a build's time.
pub fn escape_into(out: &mut String, s: &str) {
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        // The five are ASCII, so `i` is a char boundary.
        out.push_str(&s[plain..i]);
        out.push_str(entity);
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_both_quotes() {
        assert_eq!(
            escape(r#"<a href="x">Tom & 'Jerry'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("é ✓"), "é ✓");
        assert_eq!(escape("é<ü>&"), "é&lt;ü&gt;&amp;");
        assert_eq!(escape(""), "");
    }
}
