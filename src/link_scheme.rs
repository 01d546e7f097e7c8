//! Which links a page may carry: the one rule every path that writes an `href` or an
//! image's `src` asks (body links, reference links, autolinks and images; summaries,
//! credits, licences and the footer; sources; sanitized raw HTML).
//!
//! An allow-list, read as a browser reads the URL: only `http:`, `https:`, `mailto:` and
//! links without a scheme (relative paths, `#fragments`, `//host/...`) are links. The
//! scheme is taken the way the WHATWG URL parser takes it (through the `url` crate): ASCII
//! tabs and newlines anywhere are dropped and leading or trailing control characters and
//! spaces trimmed, so `java\tscript:` and ` JaVaScRiPt:` are `javascript:`; then, per
//! RFC 3986, a letter followed by letters, digits, `+`, `-` or `.` up to a `:`. The
//! percent-decoded URL is asked too, so `javascript%3A...` is refused rather than left
//! to a reader's guess. HTML entities (`java&#x09;script:`) are decoded before this is
//! asked: pulldown-cmark decodes them in Markdown, and ammonia's parser in raw HTML.

/// The schemes a link may have, lowercase.
pub const ALLOWED: &[&str] = &["http", "https", "mailto"];

/// `Ok` if `dest` may be written as a link; else why not, to follow "link `...` " in a
/// message (the URL shown escaped, so a terminal prints what it holds).
pub fn check(dest: &str) -> Result<(), String> {
    if let Some(c) = dest
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(format!(
            "holds the control character U+{:04X}; a link is plain text",
            c as u32
        ));
    }
    if let Some(scheme) = refused_scheme(dest) {
        return Err(format!(
            "has the scheme `{}:`; only http:, https:, mailto:, relative and #fragment \
             links are allowed",
            scheme.escape_debug()
        ));
    }
    Ok(())
}

/// The scheme of `dest` (as written or percent-decoded) that is not allowed, if any.
pub fn refused_scheme(dest: &str) -> Option<String> {
    // Most links are plain web URLs: their scheme is allowed whatever follows it, and
    // without a `%` the decoded form is the same text.
    if !dest.contains('%') && allowed_prefix(dest).is_some() {
        return None;
    }
    refused_scheme_parsed(dest)
}

/// [`refused_scheme`] the long way: `dest` and its percent-decoded form, each parsed.
fn refused_scheme_parsed(dest: &str) -> Option<String> {
    let decoded = percent_encoding::percent_decode_str(dest).decode_utf8_lossy();
    let refused = [dest, decoded.as_ref()]
        .into_iter()
        .filter_map(scheme)
        .find(|s| !ALLOWED.contains(&s.as_str()));
    refused
}

/// `dest` as a message shows it: escaped (`\t`, `\u{1b}`), and cut to 80 characters.
pub fn shown(dest: &str) -> String {
    let mut out: String = dest.chars().take(80).flat_map(char::escape_debug).collect();
    if dest.chars().nth(80).is_some() {
        out.push_str("...");
    }
    out
}

/// The scheme of `url` as a browser takes it, lowercase; None for a relative URL.
pub fn scheme(url: &str) -> Option<String> {
    // A scheme ends at a colon, under either reading: a URL without one is relative, and
    // most links (`../beta/`, `#top`) need no parse (a full URL parse per link, twice with
    // its decoded form, was about 2.5% of a 10,000-entry build).
    if !url.contains(':') {
        return None;
    }
    // A plain web or mail URL: the scheme comes first whatever follows, and no parse is
    // needed to say so (sources are all `https://...`).
    if let Some(known) = allowed_prefix(url) {
        return Some(known.to_string());
    }
    match url::Url::parse(url) {
        Ok(u) => Some(u.scheme().to_string()),
        Err(url::ParseError::RelativeUrlWithoutBase) => None,
        // A scheme that parsed, then a part after it that did not (`file://[x/`,
        // `http://a b/`): the scheme is still what a reader's browser would try.
        Err(_) => rfc3986_scheme(&whatwg_trimmed(url)),
    }
}

/// The allowed scheme `url` starts with, spelt exactly (`https:`, not ` HTTPS:` or
/// `ht\ttps:`, which take the parse): the WHATWG parser reads the scheme before anything
/// else, so whatever follows cannot change it.
fn allowed_prefix(url: &str) -> Option<&'static str> {
    ALLOWED
        .iter()
        .find(|s| url.as_bytes().get(s.len()) == Some(&b':') && url.starts_with(**s))
        .copied()
}

/// Whether `url` is a network-path reference (`//host/...`): no scheme, yet it leaves the
/// site, to whatever host follows, under the page's own scheme. Read as a browser reads it
/// (the WHATWG parser takes `\` for `/` in web URLs and drops tabs and newlines), so
/// `/\evil.example/` and `/\t/evil.example/` are network paths too. Such a link is an
/// external link and an image there a remote image, never a path of the site.
pub fn is_network_path(url: &str) -> bool {
    // Most links start with a letter, `.` or `#`: no cleaning needed to say no.
    let first = url.as_bytes().first().copied().unwrap_or(b'a');
    if !(first == b'/' || first == b'\\' || first <= b' ') {
        return false;
    }
    let cleaned = whatwg_trimmed(url);
    let b = cleaned.as_bytes();
    b.len() >= 2 && matches!(b[0], b'/' | b'\\') && matches!(b[1], b'/' | b'\\')
}

/// Whether `url` leads away from the site: it has a scheme (allowed or not), or is a
/// network path ([`is_network_path`]).
pub fn is_remote(url: &str) -> bool {
    scheme(url).is_some() || is_network_path(url)
}

/// `url` as the WHATWG parser first cleans it: leading and trailing C0 controls and spaces
/// trimmed, ASCII tab and newline removed everywhere.
fn whatwg_trimmed(url: &str) -> String {
    url.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// RFC 3986's `scheme ":"` at the start of `url`, lowercase.
fn rfc3986_scheme(url: &str) -> Option<String> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then(|| scheme.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_mail_relative_and_fragment_links_are_allowed() {
        for ok in [
            "https://docs.nvidia.com/cuda/",
            "HTTP://example.org",
            "mailto:a@example.org",
            "../occupancy/#why",
            "/terms/warp/",
            "#top",
            "",
            "//cdn.example.org/x.png",
            "figures/plot.svg",
            "my%20pic.png",
            "../a:b/",
            "?q=1",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok:?}");
        }
    }

    #[test]
    fn network_paths_are_read_as_a_browser_reads_them() {
        for remote in [
            "//evil.example/",
            "/\\evil.example/",
            "\\\\evil.example/",
            "/\t/evil.example/",
            " //evil.example/",
        ] {
            assert!(is_network_path(remote), "{remote:?}");
            assert!(is_remote(remote), "{remote:?}");
        }
        for local in ["/terms/x/", "../x/", "x.png", "#top", "/", ""] {
            assert!(!is_network_path(local), "{local:?}");
        }
        assert!(is_remote("https://a.org/x.png") && !is_remote("../a.png"));
    }

    #[test]
    fn every_other_scheme_is_refused_however_it_is_spelled() {
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            "java\nscript:alert(1)",
            "java\rscript:alert(1)",
            " javascript:alert(1)",
            "\tjavascript:alert(1)",
            "javascript%3Aalert(1)",
            "%6Aavascript:alert(1)",
            "vbscript:msgbox(1)",
            "data:text/html,<script>alert(1)</script>",
            "DATA:image/svg+xml;base64,PHN2Zz4=",
            "file:///etc/passwd",
            "file://[x/",
            "tel:+1555",
            "ftp://example.org/",
            "x-unknown:thing",
            // A browser reads `a:` as a scheme, not as a folder.
            "a:b/c",
        ] {
            let why = check(bad).expect_err(bad);
            assert!(why.contains("has the scheme `"), "{bad:?}: {why}");
        }
        assert!(check("java\u{1}script:x").unwrap_err().contains("U+0001"));
        assert!(check("\u{0}javascript:x").is_err());
        assert_eq!(
            check("JaVa\tScRiPt:x").unwrap_err(),
            "has the scheme `javascript:`; only http:, https:, mailto:, relative and #fragment \
             links are allowed"
        );
    }

    proptest::proptest! {
        /// The colon shortcut answers as the URL parser does, for any text (printable
        /// ASCII with tabs, newlines and percent signs, and any Unicode).
        #[test]
        fn the_colon_shortcut_never_changes_the_answer(
            url in proptest::prop_oneof![r"[ -~\t\n%]{0,24}", r"\PC{0,12}"]
        ) {
            let parsed = match url::Url::parse(&url) {
                Ok(u) => Some(u.scheme().to_string()),
                Err(url::ParseError::RelativeUrlWithoutBase) => None,
                Err(_) => rfc3986_scheme(&whatwg_trimmed(&url)),
            };
            proptest::prop_assert_eq!(scheme(&url), parsed);
        }
    }

    /// The shortcut for plain web URLs says what parsing them says, however odd the rest.
    #[test]
    fn the_web_url_shortcut_agrees_with_the_full_reading() {
        for url in [
            "https://example.org/a",
            "http://a b/",
            "https://[x/",
            "https://x/javascript:alert(1)",
            "https://javascript:alert(1)@x/",
            "mailto:javascript:alert(1)",
            "mailto:a@b.example?subject=javascript:x",
            "https://\u{202e}gro.elpmaxe/",
            "http://",
            "https://x/#data:text/html,<script>",
        ] {
            assert_eq!(refused_scheme(url), None, "{url}");
            assert_eq!(refused_scheme_parsed(url), None, "{url}");
            let parsed = match url::Url::parse(url) {
                Ok(u) => Some(u.scheme().to_string()),
                Err(_) => rfc3986_scheme(&whatwg_trimmed(url)),
            };
            assert_eq!(scheme(url), parsed, "{url}");
        }
        // What the shortcut leaves to the parse still gets its verdict there.
        assert_eq!(refused_scheme("https://x/%0Ajavascript:"), None);
        assert_eq!(
            refused_scheme("javascript%3Ahttps://x"),
            Some("javascript".into())
        );
        assert_eq!(refused_scheme(" https://x"), None);
        assert_eq!(refused_scheme("HTTPS://x"), None);
    }
}
