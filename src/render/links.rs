//! Resolving a link written in a page body to what it points at in the site.

use crate::content::{is_valid_slug, EntryId, Kind};

#[derive(Debug, Clone, PartialEq)]
pub enum LinkTarget {
    /// http(s), mailto, or anything with a scheme: not checked.
    External,
    /// An entry page, with an optional `#anchor`.
    Entry { id: EntryId, anchor: Option<String> },
    /// An anchor on the page itself.
    SamePage { anchor: String },
    /// Some other site path (index, section lists, static files), normalized.
    Other {
        path: String,
        anchor: Option<String>,
    },
    /// A relative link that climbs above the site root.
    OutsideSite { dest: String },
}

/// Resolve `dest` as written on the page at `page_path` (e.g. `terms/occupancy/`).
pub fn resolve_link(page_path: &str, dest: &str) -> LinkTarget {
    if dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with("//") {
        return LinkTarget::External;
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a.to_string())),
        None => (dest, None),
    };
    if path.is_empty() {
        return match anchor {
            Some(anchor) => LinkTarget::SamePage { anchor },
            None => LinkTarget::Other {
                path: page_path.into(),
                anchor: None,
            },
        };
    }
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
    let is_file = segments.last().is_some_and(|s| s.contains('.'));
    if !path.is_empty() && !is_file {
        path.push('/');
    }
    LinkTarget::Other { path, anchor }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
