//! Finding the entry a signer means: `terms/occupancy`, or just `occupancy` when only one
//! kind has an entry of that slug.

use crate::content::{Content, EntryId, Kind};

use super::error::ReviewError;

pub fn resolve_entry(content: &Content, query: &str) -> Result<EntryId, ReviewError> {
    let query = query.trim();
    if let Some(id) = EntryId::parse(query) {
        return match content.get(&id) {
            Some(_) => Ok(id),
            None => Err(ReviewError::UnknownEntry {
                query: query.to_string(),
            }),
        };
    }
    let found: Vec<EntryId> = Kind::ALL
        .into_iter()
        .map(|k| EntryId::new(k, query))
        .filter(|id| content.get(id).is_some())
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(ReviewError::UnknownEntry {
            query: query.to_string(),
        }),
        many => Err(ReviewError::AmbiguousEntry {
            query: query.to_string(),
            candidates: many.iter().map(|id| id.to_string()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::load_content;

    fn site(files: &[&str]) -> (tempfile::TempDir, Content) {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let path = dir.path().join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let day = if f.starts_with("lessons/") {
                "day: 1\n"
            } else {
                ""
            };
            std::fs::write(
                &path,
                format!("---\ntitle: T\nsummary: S.\n{day}---\nBody.\n"),
            )
            .unwrap();
        }
        let content = load_content(dir.path()).unwrap();
        (dir, content)
    }

    #[test]
    fn bare_slug_resolves_when_one_kind_has_it() {
        let (_d, c) = site(&["terms/occupancy.md", "guides/tuning.md"]);
        assert_eq!(
            resolve_entry(&c, "occupancy").unwrap().to_string(),
            "terms/occupancy"
        );
        assert_eq!(
            resolve_entry(&c, "guides/tuning").unwrap().to_string(),
            "guides/tuning"
        );
    }

    #[test]
    fn bare_slug_of_two_kinds_asks_which() {
        let (_d, c) = site(&["terms/occupancy.md", "lessons/occupancy.md"]);
        let msg = resolve_entry(&c, "occupancy").unwrap_err().to_string();
        assert!(msg.contains("terms/occupancy"), "{msg}");
        assert!(msg.contains("lessons/occupancy"), "{msg}");
        assert_eq!(
            resolve_entry(&c, "lessons/occupancy").unwrap().to_string(),
            "lessons/occupancy"
        );
    }

    #[test]
    fn unknown_entry_is_named() {
        let (_d, c) = site(&["terms/occupancy.md"]);
        for q in ["warp", "terms/warp", "../etc/passwd"] {
            let msg = resolve_entry(&c, q).unwrap_err().to_string();
            assert!(msg.contains(&format!("no entry `{q}`")), "{msg}");
        }
    }
}
