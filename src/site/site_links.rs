//! Link check of the generated site: every relative `href`/`src` in every HTML file must
//! reach a file of the site (a page, a static file, a site-wide file) and, with a
//! `#fragment`, an element with that id. Links written in entry bodies are checked earlier
//! against their source line (`pages::check_links`); this pass catches the links
//! templates make, which no source line holds, and names the generated page and line. It
//! also refuses an id given twice in one page (raw HTML in a body, a template's own
//! repeat), which the Markdown renderer cannot see.

use std::collections::HashMap;
use std::path::Path;

use indexmap::IndexSet;
use rayon::prelude::*;

use crate::error::{Error, Location, Result};
use crate::render::links::{decode, has_scheme};
use crate::render::OutputFile;

/// The links and ids of each generated file, gathered as files are made, so a build that
/// streams its pages to disk can check them without holding the pages.
///
/// Kept packed: every distinct link value and id is stored once and pages hold numbers.
/// Pages share most of theirs (the stylesheet, the home page, the sidebar, the same
/// section ids), and unpacked this index was about 3.3 KB per page, a sixth of a
/// 10,000-entry build's heap.
#[derive(Default)]
pub struct SiteLinkIndex {
    strings: IndexSet<Box<str>, foldhash::fast::RandomState>,
    pages: foldhash::HashMap<Box<str>, Packed>,
}

/// A file's links as [`SiteLinkIndex::take`] took them; its numbers stay valid, as the
/// index never forgets a string.
pub struct KeptLinks(Packed);

/// One file's `href`/`src` values (with their line) and element ids; empty for non-HTML.
#[derive(Default, PartialEq, Debug)]
pub struct PageLinks {
    links: Vec<(String, usize)>,
    ids: foldhash::HashSet<String>,
    /// Ids given more than once: (id, line of the first, line of the repeat).
    duplicate_ids: Vec<(String, usize, usize)>,
}

/// A [`PageLinks`] in the index: indexes into its `strings`; `ids` sorted.
struct Packed {
    links: Box<[(u32, u32)]>,
    ids: Box<[u32]>,
    /// Almost always empty: (id, first line, repeat's line).
    duplicate_ids: Box<[(u32, u32, u32)]>,
}

/// The site path and links of one file. Pure, so callers can run it in parallel.
pub fn page_links(f: &OutputFile) -> (String, PageLinks) {
    let path = f.path.to_string_lossy().replace('\\', "/");
    let mut page = PageLinks::default();
    let text = std::str::from_utf8(&f.bytes).ok();
    if let (true, Some(text)) = (f.path.extension().is_some_and(|x| x == "html"), text) {
        let mut line = 1;
        let mut counted = 0;
        // One pass over the page for all three attributes: this runs on every file a build
        // writes.
        for (name, value, offset) in attributes(text, &["id", "href", "src"]) {
            if name == "id" {
                if page.ids.contains(&value) {
                    // Rare: the lines are counted only for a repeat.
                    let line_at =
                        |at: usize| 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count();
                    let first = attributes(text, &["id"])
                        .find(|(_, v, _)| *v == value)
                        .map_or(0, |(_, _, at)| line_at(at));
                    page.duplicate_ids.push((value, first, line_at(offset)));
                } else {
                    page.ids.insert(value);
                }
                continue;
            }
            if !is_checked(&value) {
                continue;
            }
            line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..offset]).count();
            counted = offset;
            page.links.push((value, line));
        }
    }
    (path, page)
}

impl PageLinks {
    /// Add what `part`, a piece of the same file starting `lines` lines into it, has: its
    /// ids, and its links unless `ids_only` (a piece whose links were checked when it was
    /// made and have not changed since: serve's A-Z index re-renders a letter group or two
    /// of a 100,000-link page).
    pub fn append(&mut self, part: &PageLinks, lines: usize, ids_only: bool) {
        self.ids.extend(part.ids.iter().cloned());
        self.duplicate_ids.extend(
            (part.duplicate_ids.iter()).map(|(id, a, b)| (id.clone(), a + lines, b + lines)),
        );
        if !ids_only {
            self.links
                .extend(part.links.iter().map(|(v, line)| (v.clone(), line + lines)));
        }
    }
}

impl SiteLinkIndex {
    pub fn insert(&mut self, (path, page): (String, PageLinks)) {
        let mut intern = |s: String| self.strings.insert_full(s.into_boxed_str()).0 as u32;
        let links = page
            .links
            .into_iter()
            .map(|(value, line)| (intern(value), line as u32))
            .collect();
        let mut ids: Vec<u32> = page.ids.into_iter().map(&mut intern).collect();
        ids.sort_unstable();
        let duplicate_ids = (page.duplicate_ids.into_iter())
            .map(|(id, first, again)| (intern(id), first as u32, again as u32))
            .collect();
        let packed = Packed {
            links,
            ids: ids.into(),
            duplicate_ids,
        };
        self.pages.insert(path.into_boxed_str(), packed);
    }

    /// Forget a file, handing back what was known of it as it is kept here, for
    /// [`SiteLinkIndex::put_back`]. Not unpacked into strings: a 100,000-entry site's A-Z
    /// page has as many links, and unpacking them was 30 ms of an edit in `serve`.
    pub fn take(&mut self, path: &str) -> Option<KeptLinks> {
        self.pages.remove(path).map(KeptLinks)
    }

    /// Put back what [`SiteLinkIndex::take`] took from this index.
    pub fn put_back(&mut self, path: String, kept: KeptLinks) {
        self.pages.insert(path.into_boxed_str(), kept.0);
    }

    fn string(&self, i: u32) -> &str {
        self.strings.get_index(i as usize).map_or("", |s| s)
    }

    /// Whether the file at `page` has an element with id `id`.
    fn has_id(&self, page: &Packed, id: &str) -> bool {
        self.strings
            .get_index_of(id)
            .is_some_and(|i| page.ids.binary_search(&(i as u32)).is_ok())
    }

    /// How many files are known.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Check the links of `only` (every file when None) against every file and id known.
    pub fn check(&self, static_dir: &Path, only: Option<&[String]>) -> Result<()> {
        // Looked up, not collected: serve checks a few pages per save on large sites.
        let mut statics = foldhash::HashSet::default();
        for item in walkdir::WalkDir::new(static_dir)
            .into_iter()
            .filter_map(|i| i.ok())
        {
            if item.file_type().is_file() {
                if let Ok(rel) = item.path().strip_prefix(static_dir) {
                    statics.insert(format!(
                        "static/{}",
                        rel.to_string_lossy().replace('\\', "/")
                    ));
                }
            }
        }
        let mut checked: Vec<(&str, &Packed)> = match only {
            None => self.pages.iter().map(|(p, l)| (&**p, l)).collect(),
            Some(paths) => paths
                .iter()
                .filter_map(|p| self.pages.get_key_value(p.as_str()))
                .map(|(p, l)| (&**p, l))
                .collect(),
        };
        checked.sort_by(|a, b| a.0.cmp(b.0));
        let exists = &|p: &str| self.pages.contains_key(p) || statics.contains(p);
        let has_id = &|p: &str, id: &str| self.pages.get(p).map(|page| self.has_id(page, id));
        let at = |line: u32| {
            Some(Location {
                line: line as usize,
                column: 1,
            })
        };
        // Each broken link as (page, line, why), in page order.
        let broken: Vec<(&str, u32, String)> = checked
            .par_iter()
            .flat_map_iter(|(path, page)| {
                page.links.iter().filter_map(move |(value, line)| {
                    let why = check_one(path, self.string(*value), exists, has_id)?;
                    Some((*path, *line, why))
                })
            })
            .collect();
        // A template's broken link is on every page the template makes: one error for it,
        // at its first page, with how many more pages have it (a footer link to a missing
        // file was 10,000 identical errors at 10,000 entries).
        let mut first: HashMap<&str, (usize, usize)> = HashMap::new();
        for (i, (_, _, why)) in broken.iter().enumerate() {
            first.entry(why.as_str()).or_insert((i, 0)).1 += 1;
        }
        let mut errors: Vec<Error> = broken
            .iter()
            .enumerate()
            .filter_map(|(i, (path, line, why))| {
                let (at_first, pages) = first[why.as_str()];
                (at_first == i).then(|| {
                    let more = match pages - 1 {
                        0 => String::new(),
                        1 => "; the same on 1 more generated page".to_string(),
                        n => format!("; the same on {n} more generated pages"),
                    };
                    Error::content(
                        format!("generated page {path}"),
                        at(*line),
                        format!("{why} (made by a template; check templates/){more}"),
                    )
                })
            })
            .collect();
        for (path, page) in &checked {
            for (id, first, again) in page.duplicate_ids.iter() {
                let id = self.string(*id);
                errors.push(Error::content(
                    format!("generated page {path}"),
                    at(*again),
                    format!(
                        "id `{id}` is given twice on this page (first at line {first}): \
                         links to `#{id}` reach only the first (check templates/ and raw \
                         HTML in the entry's body)"
                    ),
                ));
            }
        }
        Error::collect(errors)
    }
}

/// Whether a link is this site's to check: other sites, other schemes, and root-absolute
/// links (only the 404 page uses those, relative to where the site is deployed) are not.
fn is_checked(link: &str) -> bool {
    !(link.is_empty() || link.starts_with('/') || has_scheme(link))
}

/// Why `link` on `page` is broken, if it is. `has_id(file, id)`: None when the file has no
/// ids known (not a page of the index).
fn check_one(
    page: &str,
    link: &str,
    exists: &(dyn Fn(&str) -> bool + Sync),
    has_id: &(dyn Fn(&str, &str) -> Option<bool> + Sync),
) -> Option<String> {
    if !is_checked(link) {
        return None;
    }
    // Read as a browser reads it: `my%20pic.png` is the file `my pic.png`. Links are
    // short: the byte loops below (`split_at_byte`, `segments`) cost less than `str`'s
    // searches, whose set-up per call was most of this check's 2% of a build.
    let (path, fragment) = match split_at_byte(link, b'#') {
        Some((p, f)) => (p, Some(decode(f))),
        None => (link, None),
    };
    let path = decode(split_at_byte(path, b'?').map_or(path, |(p, _)| p));
    let path = path.as_ref();
    let target = if path.is_empty() {
        page.to_string()
    } else {
        // The page's folder, then the link's segments, in one string (no list of
        // segments: this runs for every link of every generated page).
        let dir = page
            .as_bytes()
            .iter()
            .rposition(|&b| b == b'/')
            .map_or("", |i| &page[..i]);
        let mut t = String::with_capacity(dir.len() + path.len() + "/index.html".len());
        let push = |t: &mut String, seg: &str| {
            if !t.is_empty() {
                t.push('/');
            }
            t.push_str(seg);
        };
        for seg in segments(dir).filter(|s| !s.is_empty()) {
            push(&mut t, seg);
        }
        for seg in segments(path) {
            match seg {
                "" | "." => {}
                ".." => {
                    if t.is_empty() {
                        return Some(format!("link `{link}` points outside the site"));
                    }
                    let parent = t.as_bytes().iter().rposition(|&b| b == b'/');
                    t.truncate(parent.unwrap_or(0));
                }
                s => push(&mut t, s),
            }
        }
        if path.ends_with('/') || t.is_empty() {
            if !t.is_empty() {
                t.push('/');
            }
            t.push_str("index.html");
        }
        t
    };
    if !exists(target.as_str()) {
        return Some(format!("link `{link}` to missing file `{target}`"));
    }
    // Only HTML files have ids to check a fragment against.
    match fragment {
        Some(f)
            if !f.is_empty() && target.ends_with(".html") && has_id(&target, &f) == Some(false) =>
        {
            Some(format!(
                "link `{link}` to missing anchor `#{f}` in `{target}`"
            ))
        }
        _ => None,
    }
}

/// Values of `name="…"` attributes (double-quoted, as templates and the Markdown renderer
/// write them), entity-decoded, with the byte offset where each was found. The reference
/// that [`attributes`] is tested against.
#[cfg(test)]
fn attribute_values<'a>(
    html: &'a str,
    name: &'a str,
) -> impl Iterator<Item = (String, usize)> + 'a {
    let needle = format!(" {name}=\"");
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = html[from..].find(&needle)? + from;
        let start = at + needle.len();
        let end = html[start..].find('"').map_or(html.len(), |e| start + e);
        from = end;
        Some((decode_entities(&html[start..end]), at))
    })
}

/// `name="…"` attributes for any of `names`, in page order: (name, decoded value, offset
/// of the space before the name), as [`attribute_values`] finds them one name at a time.
fn attributes<'a>(
    html: &'a str,
    names: &'a [&'a str],
) -> impl Iterator<Item = (&'a str, String, usize)> + 'a {
    let bytes = html.as_bytes();
    // Every `="` of the page: each `=` found with SIMD, kept where a `"` follows (cheaper
    // per hit than searching for the pair); an attribute's value runs to the next `"`.
    let mut hits = memchr::memchr_iter(b'=', bytes).filter(|&i| bytes.get(i + 1) == Some(&b'"'));
    let mut from = 0;
    std::iter::from_fn(move || loop {
        let eq = hits.next()?;
        if eq < from {
            continue; // inside the previous value
        }
        let start = eq + 2;
        let end = memchr::memchr(b'"', &bytes[start..]).map_or(html.len(), |e| start + e);
        from = end;
        let before = &bytes[..eq];
        // Most attributes of a page are a highlighted block's `class`: the name's last
        // byte turns them away before any name is compared.
        let last = before.last().copied();
        if let Some(name) = names.iter().find(|n| {
            let n = n.as_bytes();
            n.last().copied() == last
                && before.ends_with(n)
                && before[..before.len() - n.len()].ends_with(b" ")
        }) {
            let at = eq - name.len() - 1;
            return Some((*name, decode_entities(&html[start..end]), at));
        }
    })
}

/// `s` split at the first `byte` (an ASCII one), as `str::split_once` with a char.
fn split_at_byte(s: &str, byte: u8) -> Option<(&str, &str)> {
    let i = s.as_bytes().iter().position(|&b| b == byte)?;
    Some((&s[..i], &s[i + 1..]))
}

/// The `/`-separated segments of `s`, as `str::split('/')` gives them.
fn segments(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match split_at_byte(r, b'/') {
            Some((seg, after)) => {
                rest = Some(after);
                Some(seg)
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

fn decode_entities(s: &str) -> String {
    if !s.as_bytes().contains(&b'&') {
        return s.to_string();
    }
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&#x2F;", "/")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(path: &str, html: &str) -> OutputFile {
        OutputFile {
            path: PathBuf::from(path),
            bytes: html.as_bytes().to_vec(),
        }
    }

    #[test]
    fn segments_and_byte_splits_are_strs_own() {
        for s in [
            "",
            "/",
            "a",
            "a/b",
            "/a/b/",
            "../../x/index.html",
            "a//b",
            "é/ü/ß",
        ] {
            assert_eq!(
                segments(s).collect::<Vec<_>>(),
                s.split('/').collect::<Vec<_>>()
            );
            for b in [b'/', b'#', b'?'] {
                assert_eq!(split_at_byte(s, b), s.split_once(b as char), "{s} {b}");
            }
        }
    }

    /// Check `files` (plus the static files under `static_dir`, served at `static/`).
    fn check_site_links(files: &[OutputFile], static_dir: &Path) -> Result<()> {
        let mut index = SiteLinkIndex::default();
        for f in files {
            index.insert(page_links(f));
        }
        index.check(static_dir, None)
    }

    fn check(files: &[OutputFile]) -> Vec<String> {
        let none = tempfile::tempdir().expect("temp dir");
        match check_site_links(files, none.path()) {
            Ok(()) => Vec::new(),
            Err(e) => e.flatten().iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn one_pass_finds_what_each_attribute_search_finds() {
        let html = "<a href=\"x\" id=\"a\">\n<img src=\"s.png\" data-href=\"no\" class=\"c\">\n<p id=\"b&amp;c\" title=\"x=\\\"\">";
        for name in ["id", "href", "src"] {
            let one: Vec<(String, usize)> = attributes(html, &["id", "href", "src"])
                .filter(|(n, _, _)| *n == name)
                .map(|(_, v, at)| (v, at))
                .collect();
            let each: Vec<(String, usize)> = attribute_values(html, name).collect();
            assert_eq!(one, each, "{name}");
        }
    }

    #[test]
    fn good_links_pass() {
        let files = [
            file("index.html", "<a href=\"terms/a/index.html#x\">a</a>\n<a href=\"https://example.org/\">e</a>"),
            file("terms/a/index.html", "<h2 id=\"x\">X</h2><a href=\"../../index.html\">home</a> <a href=\"#x\">self</a> <a href=\"../b/\">b</a>"),
            file("terms/b/index.html", "<a href=\"mailto:a@example.org\">m</a>"),
        ];
        assert!(check(&files).is_empty(), "{:?}", check(&files));
    }

    #[test]
    fn missing_file_and_anchor_name_the_page_and_line() {
        let files = [
            file("index.html", "<p>\n<a href=\"terms/nope/index.html\">x</a>\n<a href=\"terms/a/index.html#gone\">y</a>"),
            file("terms/a/index.html", "<link rel=\"stylesheet\" href=\"../../static/missing.css\">"),
        ];
        let errs = check(&files);
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert!(
            errs.iter()
                .any(|e| e.starts_with("generated page index.html:2:")
                    && e.contains("terms/nope/index.html")),
            "{errs:?}"
        );
        assert!(
            errs.iter()
                .any(|e| e.starts_with("generated page index.html:3:") && e.contains("#gone")),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.contains("static/missing.css")),
            "{errs:?}"
        );
    }

    #[test]
    fn an_id_given_twice_names_the_page_and_both_lines() {
        let files = [file(
            "terms/a/index.html",
            "<main id=\"main\">\n<h2 id=\"x\">X</h2>\n<div id=\"main\"></div>",
        )];
        let errs = check(&files);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("generated page terms/a/index.html:3:")
                && errs[0].contains("id `main` is given twice on this page (first at line 1)"),
            "{errs:?}"
        );
        // What serve's index pieces carry over keeps the lines, shifted.
        let (_, page) = page_links(&files[0]);
        let mut whole = PageLinks::default();
        whole.append(&page, 10, false);
        assert_eq!(whole.duplicate_ids, vec![("main".to_string(), 11, 13)]);
    }
}
