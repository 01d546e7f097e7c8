//! Resolving a link written in a page body to what it points at in the site.

use crate::content::{is_valid_slug, EntryId, Kind};

#[derive(Debug, Clone, PartialEq)]
pub enum LinkTarget {
    /// http(s), mailto, tel, or anything else with a scheme: not checked.
    External,
    /// An entry page, with an optional `#anchor`.
    Entry { id: EntryId, anchor: Option<String> },
    /// An anchor on the page itself (empty: `#`, the top of the page).
    SamePage { anchor: String },
    /// Some other site path (index, section lists, static files), normalized.
    Other {
        path: String,
        anchor: Option<String>,
        /// The path as a message shows it: from the site root, with a trailing slash only
        /// where the author wrote one (`/gpu-glossary/warp`, not `.../warp/`).
        shown: String,
    },
    /// A relative link that climbs above the site root.
    OutsideSite { dest: String },
}

/// Resolve `dest` as written on the page at `page_path` (e.g. `terms/occupancy/`). A
/// root-absolute `dest` (`/terms/x/`) is resolved against the site root; the query
/// (`?x=1`) is not part of what is checked; the path and anchor are percent-decoded, as a
/// browser reads them (`my%20pic.png`, `#%D0%BF`).
pub fn resolve_link(page_path: &str, dest: &str) -> LinkTarget {
    if has_scheme(dest) || crate::link_scheme::is_network_path(dest) {
        return LinkTarget::External;
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(decode(a).into_owned())),
        None => (dest, None),
    };
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    if path.is_empty() {
        // `#` alone (and a bare `?query`) is the top of the page itself.
        return LinkTarget::SamePage {
            anchor: anchor.unwrap_or_default(),
        };
    }
    let path = decode(path);
    let path_written: &str = &path;
    let mut segments: Vec<&str> = if path.starts_with('/') {
        Vec::new()
    } else {
        page_path.split('/').filter(|s| !s.is_empty()).collect()
    };
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return LinkTarget::OutsideSite { dest: dest.into() };
                }
            }
            s => segments.push(s),
        }
    }
    if segments.last() == Some(&"index.html") {
        segments.pop();
    }
    if let [dir, slug] = segments[..] {
        if let Some(kind) = Kind::from_dir(dir) {
            if is_valid_slug(slug) {
                return LinkTarget::Entry {
                    id: EntryId::new(kind, slug),
                    anchor,
                };
            }
        }
    }
    let mut path = segments.join("/");
    let mut shown = format!("/{path}");
    if !path.is_empty() && path_written.ends_with('/') {
        shown.push('/');
    }
    let is_file = segments.last().is_some_and(|s| s.contains('.'));
    if !path.is_empty() && !is_file {
        path.push('/');
    }
    LinkTarget::Other {
        path,
        anchor,
        shown,
    }
}

/// The href to write for an internal link `dest` on the page at `page_path`: relative to
/// the page (a root-absolute link would break a site deployed under a path, or opened
/// from disk), naming the file rather than its folder (`../x/` → `../x/index.html`, which
/// a browser opening the site from disk would otherwise show as a listing), query and
/// fragment kept.
pub fn written_href(page_path: &str, dest: &str) -> String {
    let dest = match dest.strip_prefix('/') {
        Some(rest) => format!("{}{rest}", "../".repeat(page_path.matches('/').count())),
        None => dest.to_string(),
    };
    file_url(&dest)
}

/// `dest` with `index.html` added where its path names a folder (`../x/#a` →
/// `../x/index.html#a`, `../x` → `../x/index.html`); file paths are left alone.
pub fn file_url(dest: &str) -> String {
    let (path, fragment) = match dest.find(['#', '?']) {
        Some(i) => dest.split_at(i),
        None => (dest, ""),
    };
    let last = path.rsplit('/').next().unwrap_or("");
    if path.is_empty() || last.contains('.') && last != "." && last != ".." {
        return dest.to_string();
    }
    let slash = if path.ends_with('/') { "" } else { "/" };
    format!("{path}{slash}index.html{fragment}")
}

/// Whether `link` starts with a URL scheme (`https:`, `mailto:`, `tel:`, `news:`, ...):
/// such a link leaves the site and is not checked.
pub fn has_scheme(link: &str) -> bool {
    // A scheme is a letter, then letters, digits, `+`, `-` or `.`, up to the first `:`.
    // Read from the start only as far as such characters go: the check runs on every link
    // of every generated page.
    let bytes = link.as_bytes();
    let scheme_len = bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    scheme_len > 0 && bytes[0].is_ascii_alphabetic() && bytes.get(scheme_len) == Some(&b':')
}

/// `s` percent-decoded, as a browser reads a URL's path and fragment; bytes that do not
/// decode to UTF-8 are replaced (and then match no file or id).
pub fn decode(s: &str) -> std::borrow::Cow<'_, str> {
    // Most links hold no escape: one SIMD search instead of the decoder's byte-by-byte
    // pass (the generated-page check decodes every link of every page: about 1% of a
    // build's instructions).
    if memchr::memchr(b'%', s.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(s);
    }
    percent_encoding::percent_decode_str(s).decode_utf8_lossy()
}

/// Characters a URL written into an attribute may not hold as they are.
const NOT_IN_URL: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'|')
    .add(b'\\')
    .add(b'^');

/// `url` with what a URL may not hold percent-encoded (a space, quotes, non-ASCII), as
/// the Markdown renderer writes a link's href; `%` is left alone, so an encoded URL stays
/// as written.
pub fn encode(url: &str) -> std::borrow::Cow<'_, str> {
    percent_encoding::utf8_percent_encode(url, NOT_IN_URL).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_and_lends_plain_text_as_it_is() {
        assert!(matches!(
            decode("../b/index.html#x"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(decode("my%20pic.png"), "my pic.png");
        assert_eq!(decode("%D0%BF"), "п");
        // Not UTF-8: replaced, so it matches no file or id.
        assert_eq!(decode("%FF"), "\u{FFFD}");
    }

    #[test]
    fn resolves_relative_entry_links() {
        let t = resolve_link("terms/occupancy/", "../latency-hiding/#why");
        assert_eq!(
            t,
            LinkTarget::Entry {
                id: EntryId::new(Kind::Term, "latency-hiding"),
                anchor: Some("why".into())
            }
        );
        let t = resolve_link("lessons/day-45/", "../../terms/occupancy/index.html");
        assert_eq!(
            t,
            LinkTarget::Entry {
                id: EntryId::new(Kind::Term, "occupancy"),
                anchor: None
            }
        );
    }

    #[test]
    fn climbing_out_of_the_site_is_flagged() {
        assert!(matches!(
            resolve_link("terms/x/", "../../../etc/passwd"),
            LinkTarget::OutsideSite { .. }
        ));
    }

    #[test]
    fn external_links_are_left_alone() {
        assert_eq!(
            resolve_link("terms/x/", "https://docs.nvidia.com/"),
            LinkTarget::External
        );
    }

    #[test]
    fn any_scheme_is_external() {
        for dest in [
            "tel:+1555",
            "news:comp.lang",
            "mailto:a@b.org",
            "ftp://x.org/",
            "//cdn.org/a",
            // What a browser also reads as `//evil.example/` (issue 37).
            "/\\evil.example/",
            "/\t/evil.example/",
        ] {
            assert_eq!(
                resolve_link("terms/x/", dest),
                LinkTarget::External,
                "{dest}"
            );
        }
        // A colon later in a path is not a scheme.
        assert!(!has_scheme("../a:b/"));
        for (link, scheme) in [
            ("svn+ssh:x", true),
            ("a.b-c:", true),
            ("x1:y", true),
            ("1x:y", false),
            (":x", false),
            ("", false),
            ("ab", false),
            ("a b:c", false),
            ("#x:y", false),
        ] {
            assert_eq!(has_scheme(link), scheme, "{link}");
        }
    }

    #[test]
    fn root_absolute_query_and_encoded_links_resolve() {
        let b = || EntryId::new(Kind::Term, "b");
        assert_eq!(
            resolve_link("terms/a/", "/terms/b/"),
            LinkTarget::Entry {
                id: b(),
                anchor: None
            }
        );
        assert_eq!(
            resolve_link("terms/a/", "../b/?x=1#c"),
            LinkTarget::Entry {
                id: b(),
                anchor: Some("c".into())
            }
        );
        assert_eq!(
            resolve_link("terms/a/", "#%D0%BF"),
            LinkTarget::SamePage {
                anchor: "п".into()
            }
        );
        assert_eq!(
            resolve_link("terms/a/", "#"),
            LinkTarget::SamePage {
                anchor: String::new()
            }
        );
        assert_eq!(
            written_href("terms/a/", "/terms/b/"),
            "../../terms/b/index.html"
        );
        assert_eq!(written_href("terms/a/", "/"), "../../index.html");
        assert_eq!(written_href("terms/a/", "../b/?x=1"), "../b/index.html?x=1");
        assert_eq!(encode("my pic.png"), "my%20pic.png");
        assert_eq!(encode("my%20pic.png"), "my%20pic.png");
    }
}
