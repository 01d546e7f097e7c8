//! Old URLs: `redirect_from:` in an entry's front matter lists the paths its page used to
//! have (Zola's and Hugo's `aliases`), and the build writes a redirect page at each
//! (`render::redirects`). A path is checked and normalized here, once: site-relative, no
//! scheme, no `.`/`..` segment, only the characters of a plain URL path; and no two
//! entries, nor an entry and a page the build writes anyway, may have one path.

use std::collections::HashMap;

use crate::error::Error;

use super::entry::{Entry, EntryId, Kind};

/// Longest path a redirect may have, and most redirects one entry may list.
const MAX_PATH: usize = 300;
const MAX_PER_ENTRY: usize = 64;

/// The site file a redirect written as `raw` goes to: `gpu-glossary/sm/index.html` for
/// `/gpu-glossary/sm` or `/gpu-glossary/sm/`, `old/sm.html` for `/old/sm.html`.
pub fn redirect_file(raw: &str) -> Result<String, String> {
    let path = raw.trim();
    if path.len() > MAX_PATH {
        return Err(format!("is longer than {MAX_PATH} characters"));
    }
    if path.contains(':') || path.starts_with("//") {
        return Err(
            "is a URL with a scheme or host; give the old path on this site, \
                    e.g. /gpu-glossary/device-hardware/streaming-multiprocessor"
                .into(),
        );
    }
    let trimmed = path.trim_start_matches('/').trim_end_matches('/');
    if trimmed.is_empty() {
        return Err("is the site's root, which is the home page".into());
    }
    let mut segments = Vec::new();
    for segment in trimmed.split('/') {
        if segment.is_empty() {
            return Err("has an empty segment (`//`)".into());
        }
        if segment == "." || segment == ".." {
            return Err(format!(
                "has a `{segment}` segment; write the path it means"
            ));
        }
        if let Some(bad) = segment
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~')))
        {
            return Err(format!(
                "holds `{}`: a redirect path is letters, digits, `-`, `_`, `.` and `~` \
                 between slashes (no query, fragment or escapes)",
                bad.escape_default()
            ));
        }
        segments.push(segment);
    }
    let last = segments.last().copied().unwrap_or_default();
    let is_file = !path.ends_with('/') && (last.ends_with(".html") || last.ends_with(".htm"));
    let mut file = segments.join("/");
    if !is_file {
        file.push_str("/index.html");
    }
    Ok(file)
}

/// Why the page at site file `file` is the build's own, if it is: an entry's page, or a
/// page the build writes anyway.
fn taken_by(file: &str, entries: &HashMap<String, &EntryId>) -> Option<String> {
    if let Some(id) = entries.get(file) {
        return Some(format!("is the page of `{id}`"));
    }
    // The names the build writes at the site root (one list, `config`): a
    // redirect may not take them or go below them, the kinds' folders aside (an old entry
    // URL there is what redirects are for, so long as no entry has it now).
    let first = file.split('/').next().unwrap_or_default();
    (crate::config::SITE_ROOT_NAMES.contains(&first) && Kind::from_dir(first).is_none())
        .then(|| format!("is under `{first}`, which the build writes itself"))
}

/// Every `redirect_from` problem of the content: a bad path, a path an entry or a
/// generated page has, a path two entries claim (at the second claim, naming the first),
/// each at its file:line.
pub fn check_redirects(entries: &[Entry]) -> Vec<Error> {
    let pages: HashMap<String, &EntryId> = entries
        .iter()
        .map(|e| (format!("{}index.html", e.id.url_path()), &e.id))
        .collect();
    let mut claimed: HashMap<String, &Entry> = HashMap::new();
    let mut errors = Vec::new();
    for e in entries {
        if e.meta.redirect_from.len() > MAX_PER_ENTRY {
            errors.push(super::validate::error_at(
                e,
                "redirect_from",
                "redirect_from",
                format!(
                    "`redirect_from` lists {} paths; at most {MAX_PER_ENTRY}",
                    e.meta.redirect_from.len()
                ),
            ));
            continue;
        }
        for raw in &e.meta.redirect_from {
            let at = |msg: String| super::validate::error_at(e, "redirect_from", raw, msg);
            let file = match redirect_file(raw) {
                Ok(file) => file,
                Err(why) => {
                    errors.push(at(format!("redirect_from `{raw}` {why}")));
                    continue;
                }
            };
            if let Some(why) = taken_by(&file, &pages) {
                errors.push(at(format!(
                    "redirect_from `{raw}` {why}; a redirect there would replace it"
                )));
                continue;
            }
            match claimed.get(&file) {
                Some(first) if first.id == e.id => errors.push(at(format!(
                    "redirect_from `{raw}` is listed twice: keep one"
                ))),
                Some(first) => errors.push(at(format!(
                    "redirect_from `{raw}` is also claimed by `{}` ({}): one old path can \
                     redirect to one page only",
                    first.id,
                    first.path.display()
                ))),
                None => {
                    claimed.insert(file, e);
                }
            }
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_to_the_file_they_write() {
        for (raw, file) in [
            ("/gpu-glossary/sm", "gpu-glossary/sm/index.html"),
            ("gpu-glossary/sm/", "gpu-glossary/sm/index.html"),
            (" /old/sm.html", "old/sm.html"),
            ("/terms/old-name/", "terms/old-name/index.html"),
        ] {
            assert_eq!(redirect_file(raw).as_deref(), Ok(file), "{raw}");
        }
    }

    #[test]
    fn paths_that_leave_the_site_or_hide_a_segment_are_refused() {
        for bad in [
            "https://evil.example/x",
            "javascript:alert(1)",
            "//evil.example/x",
            "/a/../../etc/passwd",
            "/a/./b",
            "/a//b",
            "/",
            "/a?b=1",
            "/a#top",
            "/a\\b",
            "/a b",
            "/a%2e%2e/b",
            "/caf\u{e9}",
        ] {
            assert!(redirect_file(bad).is_err(), "{bad}");
        }
        assert!(redirect_file(&"a/".repeat(200)).is_err());
    }
}
