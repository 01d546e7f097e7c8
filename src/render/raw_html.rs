//! Raw HTML in a body when glossary.toml does not set `allow_html`: GitHub's rule, small.
//! HTML comments are dropped; a few inline tags that cannot carry script, style or a link
//! ([`SUBSET`], each with the one attribute it may have) are kept; anything else is
//! refused, once per HTML block (at its first line) or per inline tag. The book's table of
//! the subset is checked against [`SUBSET`] (`tests/book_reference.rs`).
//!
//! This module only decides whether the author's HTML is inside the allow-list; what is kept
//! is still sanitized with the page by ammonia (`markdown::sanitize`), so a mistake here
//! cannot put a script on a page.

/// The inline tags a body may use without `allow_html`, each with the attributes it may
/// carry (one at a time, quoted).
pub const SUBSET: &[(&str, &[&str])] = &[
    ("small", &[]),
    ("sub", &[]),
    ("sup", &[]),
    ("kbd", &[]),
    ("br", &[]),
    ("abbr", &["title"]),
];

/// The HTML to keep for `html` (a whole HTML block, or one inline tag or comment), with its
/// comments dropped; Err(why) when it holds anything outside the allow-list.
pub fn allowed_subset(html: &str) -> Result<String, String> {
    let mut kept = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        kept.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(comment) = tail.strip_prefix("<!--") {
            // An unclosed comment runs to the end of the block, as a browser reads it.
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let Some(end) = tag_end(tail) else {
            // A `<` that starts no tag (`a < b`) is text.
            kept.push('<');
            rest = &tail[1..];
            continue;
        };
        let tag = &tail[..end];
        if !tag_allowed(tag) {
            let shown: String = html.trim().chars().take(40).collect();
            let tag: String = tag.chars().take(40).collect();
            let which = if shown == tag {
                String::new()
            } else {
                format!(" `{tag}`")
            };
            return Err(format!(
                "raw HTML is not allowed in a body (`{shown}`):{which} outside what a body may \
                 hold without `allow_html = true` under [content] in glossary.toml (HTML \
                 comments, dropped, and {}); write Markdown instead",
                subset_in_words()
            ));
        }
        kept.push_str(tag);
        rest = &tail[end..];
    }
    kept.push_str(rest);
    Ok(kept)
}

/// The attributes through which kept HTML makes a browser fetch something as the page
/// loads (a link's `href` is followed only when clicked, and follows the link rules).
const RESOURCE_ATTRIBUTES: &[&str] = &["src", "srcset", "poster", "data", "background"];

/// Whether `html` may load anything: it names a resource attribute (any case). Most raw
/// HTML does not, and is not handed to the parser for [`remote_resources`] at all, so a
/// body of many small fragments costs a scan each, not a parse each.
pub fn may_load(html: &str) -> bool {
    let lower = html.to_ascii_lowercase();
    RESOURCE_ATTRIBUTES.iter().any(|a| lower.contains(a))
}

/// Under `allow_html`: the URLs `html` would load from outside the site (`<img
/// src=https://...>`, a `srcset` candidate, `//host/x.png`), as ammonia's parser reads
/// them, so spelling, entities and quoting cannot hide one. A Markdown image there is
/// refused unless `allow_remote_images` is set, and so is this.
pub fn remote_resources(html: &str) -> Vec<String> {
    use std::sync::{Arc, Mutex};
    let found = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&found);
    ammonia::Builder::default()
        .add_tags([
            "picture", "source", "video", "audio", "object", "embed", "track",
        ])
        .add_tag_attributes("source", ["srcset", "src"])
        .add_tag_attributes("img", ["srcset"])
        .add_generic_attributes(RESOURCE_ATTRIBUTES)
        // The schemes the page's own sanitizer keeps (`markdown::sanitize`): a URL of any
        // other scheme never reaches a page, and ammonia drops it before the filter.
        .url_schemes(crate::link_scheme::ALLOWED.iter().copied().collect())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .attribute_filter(move |_element, attribute, value| {
            if RESOURCE_ATTRIBUTES.contains(&attribute) {
                let urls: Vec<&str> = if attribute == "srcset" {
                    value
                        .split(',')
                        .filter_map(|c| c.split_whitespace().next())
                        .collect()
                } else {
                    vec![value]
                };
                for url in urls {
                    if crate::link_scheme::is_remote(url) {
                        if let Ok(mut f) = seen.lock() {
                            f.push(url.to_string());
                        }
                    }
                }
            }
            Some(value.into())
        })
        .clean(html);
    let found = found.lock().map(|f| f.clone()).unwrap_or_default();
    found
}

/// [`SUBSET`] as a message says it: "<small>, <sub>, ..., <abbr> (with `title`)".
fn subset_in_words() -> String {
    SUBSET
        .iter()
        .map(|(tag, attrs)| match attrs {
            [] => format!("<{tag}>"),
            attrs => format!("<{tag}> (with `{}`)", attrs.join("`, `")),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The length of the tag `s` starts with (up to and including its `>`), if `s` starts one:
/// `<` then a letter or `/` or `!`/`?` (declarations and processing instructions, refused
/// as tags), as HTML's tokenizer reads a tag open.
fn tag_end(s: &str) -> Option<usize> {
    let second = s[1..].chars().next()?;
    if !(second.is_ascii_alphabetic() || matches!(second, '/' | '!' | '?')) {
        return None;
    }
    // A quoted attribute value may hold `>`.
    let mut quote = None;
    for (i, c) in s.char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return Some(i + 1),
            _ => {}
        }
    }
    Some(s.len())
}

/// Whether `tag` (`<small>`, `</sub>`, `<br/>`, `<abbr title="...">`) is in the allow-list.
fn tag_allowed(tag: &str) -> bool {
    let Some(inner) = tag.strip_prefix('<').and_then(|t| t.strip_suffix('>')) else {
        return false;
    };
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(i) => (true, i),
        None => (false, inner),
    };
    let name_len = inner
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(inner.len());
    let name = inner[..name_len].to_ascii_lowercase();
    let attrs = inner[name_len..].trim().trim_end_matches('/').trim();
    let Some((_, allowed)) = SUBSET.iter().find(|(tag, _)| *tag == name) else {
        return false;
    };
    attrs.is_empty() || (!closing && allowed.iter().any(|a| is_attribute(attrs, a)))
}

/// `NAME="..."` or `NAME='...'`, nothing else.
fn is_attribute(attrs: &str, name: &str) -> bool {
    let Some(value) = attrs
        .strip_prefix(name)
        .map(str::trim_start)
        .and_then(|v| v.strip_prefix('='))
        .map(str::trim_start)
    else {
        return false;
    };
    let mut chars = value.chars();
    match chars.next() {
        Some(q @ ('"' | '\'')) => {
            let body = &value[1..];
            body.find(q) == Some(body.len() - 1)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_resources_are_found_however_written() {
        for html in [
            "<img src=https://evil.example/p.png>",
            "<IMG SRC='//evil.example/p.png' alt=x>",
            "<img src=\"&#x68;ttps://evil.example/p.png\">",
            "<picture><source srcset=\"a.png 1x, https://evil.example/b.png 2x\"><img src=a.png></picture>",
            "<img src=\"/\\evil.example/p.png\">",
        ] {
            assert_eq!(remote_resources(html).len(), 1, "{html}");
        }
        for html in [
            "<img src=\"../figures/a.png\">",
            "<a href=\"https://a.org/\">a</a>",
            "<p>hi</p>",
        ] {
            assert!(remote_resources(html).is_empty(), "{html}");
        }
    }

    #[test]
    fn comments_are_dropped() {
        assert_eq!(allowed_subset("<!-- a note -->").as_deref(), Ok(""));
        assert_eq!(
            allowed_subset("<!--\nline one\nline two\n-->\n").as_deref(),
            Ok("\n")
        );
        assert_eq!(
            allowed_subset("<small>a</small><!-- b -->").as_deref(),
            Ok("<small>a</small>")
        );
    }

    #[test]
    fn the_safe_inline_set_is_kept() {
        for ok in [
            "<small>",
            "</small>",
            "<sub>",
            "<SUP>",
            "<kbd>",
            "<br>",
            "<br/>",
            "<br />",
            "<abbr title=\"Streaming Multiprocessor\">",
            "<abbr title='a > b'>",
            "</abbr>",
        ] {
            assert_eq!(allowed_subset(ok).as_deref(), Ok(ok), "{ok}");
        }
        assert_eq!(allowed_subset("a < b").as_deref(), Ok("a < b"));
    }

    #[test]
    fn everything_else_is_refused() {
        for bad in [
            "<pre>",
            "<script>alert(1)</script>",
            "<small onclick=\"x()\">",
            "<abbr title=\"x\" onclick=\"y()\">",
            "<abbr style=\"color:red\">",
            "<img src=x onerror=alert(1)>",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<smallx>",
            "<!DOCTYPE html>",
            "<?php ?>",
            "<small",
            "</br title=\"x\">",
        ] {
            let got = allowed_subset(bad);
            assert!(got.is_err(), "{bad} -> {got:?}");
        }
        let why = allowed_subset("<pre>\nx\n</pre>").unwrap_err();
        assert!(
            why.starts_with(
                "raw HTML is not allowed in a body (`<pre>\nx\n</pre>`): `<pre>` outside"
            ) && why.contains("allow_html"),
            "{why}"
        );
    }
}
