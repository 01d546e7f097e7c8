//! Inline code as HTML: `<code>`, or `<code class="opt">` for a command-line option
//! (`--drafts`, `-O3`, `--maxrregcount=64`), which the stylesheet keeps on one line: a
//! browser may break a line after a hyphen, and `--` left at a line's end reads as a
//! dash, not as half an option. Short ones only, so a long one still wraps on a phone.

use super::escape::escape_into;

/// Longest option kept on one line (about half a 390 px line of code).
const OPTION_MAX: usize = 32;

/// Whether `code` reads as one command-line option.
pub fn is_option(code: &str) -> bool {
    let code = code.trim();
    code.starts_with('-')
        && code.len() <= OPTION_MAX
        && !code.contains(char::is_whitespace)
        && code
            .trim_start_matches('-')
            .starts_with(|c: char| c.is_ascii_alphanumeric())
}

/// The HTML of the code span `code`.
pub fn code_span(code: &str) -> String {
    let mut html = String::with_capacity(code.len() + 24);
    html.push_str(if is_option(code) {
        "<code class=\"opt\">"
    } else {
        "<code>"
    });
    escape_into(&mut html, code);
    html.push_str("</code>");
    html
}

/// Plain text as HTML, each `` `span` `` in it as a code span: what the gate says about an
/// entry (a stale record's `glossary verify`, a row's `tlp1`) reads on a page as code,
/// never as raw backticks. An unpaired backtick stays as it is.
pub fn backticks_as_code(text: &str) -> String {
    let mut html = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        escape_into(&mut html, &rest[..open]);
        html.push_str(&code_span(&rest[open + 1..open + 1 + len]));
        rest = &rest[open + len + 2..];
    }
    escape_into(&mut html, rest);
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_marked_and_other_code_is_not() {
        for opt in ["--drafts", "-O3", "--maxrregcount=64", "-arch=sm_90"] {
            assert_eq!(code_span(opt), format!("<code class=\"opt\">{opt}</code>"));
        }
        for code in ["mov", "a - b", "-", "--", "- x", "x--", "--x y"] {
            assert_eq!(code_span(code), format!("<code>{code}</code>"), "{code}");
        }
        assert_eq!(code_span("a<b"), "<code>a&lt;b</code>");
        assert!(!is_option(&format!("--{}", "x".repeat(40))));
    }

    #[test]
    fn backticks_become_code_spans_and_the_rest_is_escaped() {
        assert_eq!(
            backticks_as_code("no record (run `glossary verify` on <node>); `x"),
            "no record (run <code>glossary verify</code> on &lt;node&gt;); `x"
        );
        assert_eq!(
            backticks_as_code("`--drafts`"),
            "<code class=\"opt\">--drafts</code>"
        );
    }

    #[test]
    fn a_message_escapes_around_its_code_and_keeps_an_unpaired_backtick() {
        assert_eq!(
            backticks_as_code("<b> `a<b>` and one ` left"),
            "&lt;b&gt; <code>a&lt;b&gt;</code> and one ` left"
        );
        assert_eq!(
            backticks_as_code("changed; `glossary review diff` shows how"),
            "changed; <code>glossary review diff</code> shows how"
        );
    }
}
