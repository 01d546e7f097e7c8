//! Finding and parsing every entry under `content/`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use walkdir::WalkDir;

use crate::error::{Error, Location, Result};

use super::entry::{Entry, EntryId, Kind};
use super::front_matter::{parse_front_matter, split_front_matter};
use super::validate::{check_entries, is_valid_slug, slug_problem};

/// Entries per rayon task while loading: well under a millisecond of work each.
const ENTRIES_PER_TASK: usize = 32;

/// Every entry of the site, sorted by id, with the lookups later stages need.
#[derive(Debug, Default)]
pub struct Content {
    pub entries: Vec<Entry>,
    /// Entries whose file could not be parsed: they stand in `entries` with a placeholder
    /// front matter so that references to them resolve (one mistake, one error), and the
    /// load reported why. A project with any is never built.
    pub broken: crate::content::IdSet,
    by_id: HashMap<EntryId, usize, foldhash::fast::RandomState>,
    /// term slug -> the lessons and guides that use it, in day/title order. Built once so
    /// "where you meet this" costs a lookup per page, not a scan of the site.
    used_by: HashMap<String, Vec<(usize, Option<String>)>>,
}

impl Content {
    pub fn get(&self, id: &EntryId) -> Option<&Entry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    pub fn of_kind(&self, kind: Kind) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.id.kind == kind)
    }

    /// Lessons and guides that list the term `slug`, with the note they give.
    pub fn uses_of(&self, slug: &str) -> impl Iterator<Item = (&Entry, Option<&str>)> {
        self.used_by
            .get(slug)
            .into_iter()
            .flatten()
            .map(|(i, note)| (&self.entries[*i], note.as_deref()))
    }

    /// Swap in a re-read version of an entry with the same id (an incremental rebuild);
    /// returns the old one.
    pub fn replace(&mut self, entry: Entry) -> Option<Entry> {
        let &i = self.by_id.get(&entry.id)?;
        let uses_changed = !same_uses(self.entries[i].term_uses(), entry.term_uses())
            || self.entries[i].meta.day != entry.meta.day
            || self.entries[i].meta.title != entry.meta.title;
        let old = std::mem::replace(&mut self.entries[i], entry);
        if uses_changed {
            self.used_by = Self::uses_index(&self.entries);
        }
        Some(old)
    }

    /// Content of just these entries (signing a few entries need not read the site).
    pub fn from_entries(entries: Vec<Entry>) -> Content {
        Self::index(entries)
    }

    fn index(mut entries: Vec<Entry>) -> Content {
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        let by_id = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
        let used_by = Self::uses_index(&entries);
        Content {
            entries,
            by_id,
            used_by,
            broken: Default::default(),
        }
    }

    fn uses_index(entries: &[Entry]) -> HashMap<String, Vec<(usize, Option<String>)>> {
        let mut used_by: HashMap<String, Vec<(usize, Option<String>)>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            for u in e.term_uses() {
                used_by
                    .entry(u.slug().to_string())
                    .or_default()
                    .push((i, u.note().map(str::to_string)));
            }
        }
        for uses in used_by.values_mut() {
            uses.sort_by_key(|(i, _)| {
                let e = &entries[*i];
                (
                    e.id.kind,
                    e.meta.day.unwrap_or(u32::MAX),
                    e.meta.title.clone(),
                )
            });
        }
        used_by
    }
}

fn same_uses(a: &[super::entry::TermUse], b: &[super::entry::TermUse]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.slug() == y.slug() && x.note() == y.note())
}

/// Load and check every entry under `content_dir`. All problems are reported together.
pub fn load_content(content_dir: &Path) -> Result<Content> {
    let (content, errors) = load_content_collecting(content_dir);
    Error::sorted(errors)?;
    Ok(content)
}

/// Load every entry under `content_dir`, with every problem found. An entry that cannot
/// be parsed is kept as a placeholder (see `Content::broken`).
pub fn load_content_collecting(content_dir: &Path) -> (Content, Vec<Error>) {
    let (content, _, errors) = load_content_visiting(content_dir, &|_, _| ());
    (content, errors)
}

/// [`load_content_collecting`], handing each entry to `visit` as soon as it is parsed, in
/// parallel, and returning what `visit` made, one per entry of the content, in its order
/// (None where the file did not parse: its placeholder is not visited). `visit` may
/// [`Entry::thin`] the entry once it has what it needs: a build assesses each entry there
/// and drops its text, so the texts of all entries are never in memory at once.
pub fn load_content_visiting<T: Send>(
    content_dir: &Path,
    visit: &(dyn Fn(&mut Entry, usize) -> T + Sync),
) -> (Content, Vec<Option<T>>, Vec<Error>) {
    load_listed_visiting(list_content(content_dir), visit)
}

/// The entry files under a content folder, in walk order, and what was wrong with its
/// names and folders: the first half of [`load_content_visiting`], which a build runs
/// alongside the signature checks (it is one thread's walk).
pub struct Listing {
    files: Vec<(Kind, PathBuf)>,
    errors: Vec<Error>,
}

/// List the entry files under `content_dir` (see [`Listing`]).
pub fn list_content(content_dir: &Path) -> Listing {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    // Symlinks are followed when they stay inside the project (content_dir's parent).
    let project_root = content_dir
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .unwrap_or_default();
    for kind in Kind::ALL {
        let dir = content_dir.join(kind.dir());
        if !dir.is_dir() {
            continue;
        }
        let mut walk = WalkDir::new(&dir)
            .min_depth(1)
            .follow_links(true)
            .sort_by(by_file_name)
            .into_iter()
            .filter_entry(|i| !is_side_file(i.file_name()));
        while let Some(item) = walk.next() {
            // Names first: a name outside the allow-list is one error, and nothing under
            // it is read (its slug, its messages and its URL would all carry the name).
            if let Ok(item) = &item {
                // An entry's name is its slug and URL; a figure's may hold spaces.
                let entry_or_dir =
                    item.file_type().is_dir() || item.path().extension().is_some_and(|e| e == "md");
                let problem = if entry_or_dir {
                    crate::visible::file_name_problem(item.file_name())
                } else {
                    crate::visible::side_file_name_problem(item.file_name())
                };
                if let Some(why) = problem {
                    let shown = crate::visible::shown_file_name(item.file_name());
                    let path = item.path().with_file_name(shown);
                    errors.push(Error::content(path, None, format!("the name {why}")));
                    if item.file_type().is_dir() {
                        walk.skip_current_dir();
                    }
                    continue;
                }
            }
            let item = match item {
                Ok(item) if item.path_is_symlink() => {
                    match crate::config::inside_project(item.path(), &project_root) {
                        Ok(()) => Ok(item),
                        Err(why) => {
                            errors.push(Error::content(item.path(), None, why));
                            continue;
                        }
                    }
                }
                other => other,
            };
            match item {
                Ok(item) if item.file_type().is_file() => {
                    let path = item.into_path();
                    if path.extension().is_some_and(|x| x == "md") {
                        if path.parent() != Some(dir.as_path()) {
                            errors.push(Error::content(
                                &path,
                                None,
                                format!(
                                    "entries live directly in content/{}/, not in subfolders",
                                    kind.dir()
                                ),
                            ));
                        } else {
                            files.push((kind, path));
                        }
                    }
                }
                Ok(_) => {}
                // An editor's lock file is a dangling symlink, which the walk cannot
                // follow and reports before `filter_entry` sees it.
                Err(e) if e.path().is_some_and(|p| is_side_path(&dir, p)) => {}
                Err(e) => {
                    // A broken symlink, a loop, an unreadable folder: name the path.
                    let path = e.path().unwrap_or(&dir).to_path_buf();
                    errors.push(Error::content(path, None, format!("cannot read: {e}")));
                }
            }
        }
    }
    Listing { files, errors }
}

/// Parse and visit the listed entries: the second half of [`load_content_visiting`].
pub fn load_listed_visiting<T: Send>(
    listing: Listing,
    visit: &(dyn Fn(&mut Entry, usize) -> T + Sync),
) -> (Content, Vec<Option<T>>, Vec<Error>) {
    let Listing { files, mut errors } = listing;
    // Entries and what `visit` made go straight into their own vectors (unzipped), and
    // the rare parse failures aside: a vector of (entry, result) pairs split afterwards
    // held every entry twice at the end of the load, its peak (about 100 MB at 100,000
    // entries).
    let failed = std::sync::Mutex::new(Vec::new());
    let of = files.len();
    let (mut entries, mut visited): (Vec<Entry>, Vec<Option<T>>) = files
        .into_par_iter()
        .enumerate()
        // Small pieces: a long run left to one thread at the end idled the other.
        .with_max_len(ENTRIES_PER_TASK)
        .map(|(at, (kind, path))| match parse_entry(kind, path.clone()) {
            Ok(mut e) => {
                let made = visit(&mut e, of);
                (e, Some(made))
            }
            Err(why) => {
                let e = placeholder(kind, path);
                let mut failed = failed.lock().unwrap_or_else(|p| p.into_inner());
                failed.push((at, e.id.clone(), why));
                (e, None)
            }
        })
        .unzip();
    let mut failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
    failed.sort_by_key(|(at, _, _)| *at);
    let mut broken = crate::content::IdSet::default();
    for (_, id, error) in failed {
        errors.push(error);
        broken.insert(id);
    }
    errors.extend(check_entries(&entries, &broken));
    sort_by_id(&mut entries, &mut visited);
    let mut content = Content::index(entries);
    content.broken = broken;
    (content, visited, errors)
}

/// Sorts `entries` by id (stably, as [`Content`] keeps them) and `made` alongside, in
/// place: both are large, and sorting pairs would hold a copy of each.
fn sort_by_id<T>(entries: &mut [Entry], made: &mut [T]) {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|&a, &b| entries[a].id.cmp(&entries[b].id));
    // Position i takes the element at order[i]: follow each cycle once, swapping.
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != start {
            let from = order[at];
            entries.swap(at, from);
            made.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

/// The stand-in for an entry whose file failed to parse: its id (from a readable `slug:`
/// line or the file name), its body if the front matter could be split off, and a title.
fn placeholder(kind: Kind, path: PathBuf) -> Entry {
    let raw = crate::config::read_bounded(&path, crate::config::MAX_ENTRY_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let split = split_front_matter(&path, &raw).ok();
    let slug = split
        .as_ref()
        .filter(|s| super::front_matter::check_depth(&path, s).is_ok())
        .and_then(|s| serde_yaml::from_str::<serde_yaml::Value>(s.yaml).ok())
        .and_then(|v| v.get("slug").and_then(|s| s.as_str()).map(str::to_string))
        .filter(|s| is_valid_slug(s))
        .unwrap_or(stem);
    let (body, body_line) = split
        .as_ref()
        .map_or((String::new(), 1), |s| (s.body.to_string(), s.body_line));
    let meta = super::entry::FrontMatter::placeholder(&slug);
    Entry {
        id: EntryId::new(kind, slug),
        path,
        meta,
        body,
        body_line,
        raw,
        thinned: None,
    }
}

/// Read and parse one entry file, and check what can be checked from it alone plus the
/// set of term slugs (an incremental rebuild re-reads only the files that changed).
pub fn load_entry(kind: Kind, path: PathBuf, content: &Content) -> Result<Entry> {
    let entry = parse_entry(kind, path)?;
    // Looked up, not collected: serve calls this per save on sites of 100,000 entries.
    let is_term = |slug: &str| content.get(&EntryId::new(Kind::Term, slug)).is_some();
    Error::collect(super::validate::check_one(&entry, &is_term))?;
    Ok(entry)
}

/// Read and parse one entry file alone, without the checks that need the other entries.
pub fn read_entry(kind: Kind, path: PathBuf) -> Result<Entry> {
    parse_entry(kind, path)
}

fn parse_entry(kind: Kind, path: PathBuf) -> Result<Entry> {
    let raw = crate::config::read_text_bounded(&path, crate::config::MAX_ENTRY_BYTES)?;
    check_visible(&path, &raw)?;
    let split = split_front_matter(&path, &raw)?;
    let meta = parse_front_matter(&path, &split)?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let slug = meta.slug.clone().unwrap_or(stem);
    if let Some(why) = slug_problem(&slug) {
        let at = meta.slug.as_ref().map(|_| Location {
            line: super::front_matter::line_of_reference(&split, "slug", &slug).unwrap_or(2),
            column: 1,
        });
        return Err(Error::content(
            &path,
            at,
            format!("slug `{slug}` {why} (it becomes a folder of the site)"),
        ));
    }
    let body = split.body.to_string();
    let body_line = split.body_line;
    Ok(Entry {
        id: EntryId::new(kind, slug),
        path,
        meta,
        body,
        body_line,
        raw,
        thinned: None,
    })
}

/// An entry's whole file (front matter and body) must show what it holds: a control
/// character, an ANSI escape sequence or a bidi override would let `review diff` show the
/// reviewer one text while the page shows another. Each one is an error at its line and
/// column, all of them at once.
fn check_visible(path: &Path, raw: &str) -> Result<()> {
    let errors = crate::visible::find_hidden(raw)
        .into_iter()
        .map(|h| {
            Error::content(
                path,
                Some(Location {
                    line: h.line,
                    column: h.column,
                }),
                format!(
                    "{}: entry files may not hold control characters or bidirectional \
                     formatting, which a terminal or browser would act on rather than show \
                     (tab and line breaks, CRLF included, are fine)",
                    h.describe()
                ),
            )
        })
        .collect();
    Error::collect(errors)
}

/// Whether a file or folder name is one that editors and operating systems leave beside an
/// author's files, never content: hidden names (`.#a.md`, an Emacs lock that is a
/// dangling symlink; `._a.md`, macOS metadata; `.git`, `.DS_Store`), backups (`a.md~`)
/// and autosaves (`#a.md#`). Every walk of `content/` (the load, the reviews, serve's
/// watcher) skips them by this one rule.
pub fn is_side_file(name: &std::ffi::OsStr) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b".")
        || name.ends_with(b"~")
        || (name.len() > 1 && name.starts_with(b"#") && name.ends_with(b"#"))
}

/// Whether `path`, below `under`, is or lies in a side file or folder ([`is_side_file`]).
pub fn is_side_path(under: &Path, path: &Path) -> bool {
    path.strip_prefix(under)
        .is_ok_and(|rel| rel.iter().any(is_side_file))
}

/// Orders one folder's listing by file name, as walkdir's `sort_by_file_name` does, but
/// by the whole paths' bytes: they share the folder's prefix, so the order is the same,
/// without taking each name apart again per comparison (sorting a 100,000-file folder
/// that way was a visible serial stretch at the start of a build).
pub fn by_file_name(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> std::cmp::Ordering {
    a.path().as_os_str().cmp(b.path().as_os_str())
}

/// `e` with its text and its whole front matter read again after [`Entry::thin`]. An error
/// if the file changed since it was read: a page made from the new text would not be the
/// one that was assessed.
pub fn reread(e: &Entry) -> Result<Entry> {
    let raw = crate::config::read_text_bounded(&e.path, crate::config::MAX_ENTRY_BYTES)?;
    if e.thinned
        .as_ref()
        .is_some_and(|t| t.hash != super::entry::text_hash(&raw))
    {
        return Err(Error::content(
            &e.path,
            None,
            "the file changed while the site was being built; build again",
        ));
    }
    let split = split_front_matter(&e.path, &raw)?;
    let mut meta = e.meta.clone();
    if let Some(t) = &e.thinned {
        meta.unthin(&t.page_only).map_err(|err| {
            Error::content(
                &e.path,
                None,
                format!("reading its front matter back: {err}"),
            )
        })?;
    }
    Ok(Entry {
        id: e.id.clone(),
        path: e.path.clone(),
        meta,
        body: split.body.to_string(),
        body_line: split.body_line,
        raw: String::new(),
        thinned: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_and_os_side_files_are_told_apart_from_content() {
        for side in [".#a.md", "._a.md", ".DS_Store", ".git", "a.md~", "#a.md#"] {
            assert!(is_side_file(side.as_ref()), "{side}");
        }
        for content in ["a.md", "day-1.md", "#", "a#.md", "pic.png"] {
            assert!(!is_side_file(content.as_ref()), "{content}");
        }
        let under = Path::new("/p/content");
        assert!(is_side_path(under, Path::new("/p/content/.drafts/a.md")));
        assert!(!is_side_path(under, Path::new("/p/content/terms/a.md")));
        // Only names below `under` count: a project in a hidden folder is still read.
        assert!(!is_side_path(
            Path::new("/.p/content"),
            Path::new("/.p/content/terms/a.md")
        ));
    }

    #[test]
    fn sort_by_id_sorts_entries_and_carries_what_was_made_along() {
        // Placeholders of files that do not exist: their ids come from the file names.
        let names = ["d", "a", "e", "c", "b", "f"];
        let mut entries: Vec<Entry> = names
            .iter()
            .map(|n| placeholder(Kind::Term, PathBuf::from(format!("no-such-dir/{n}.md"))))
            .collect();
        let mut made: Vec<String> = names.iter().map(|n| format!("made for {n}")).collect();
        sort_by_id(&mut entries, &mut made);
        let slugs: Vec<&str> = entries.iter().map(|e| e.id.slug.as_str()).collect();
        assert_eq!(slugs, ["a", "b", "c", "d", "e", "f"]);
        for (e, m) in entries.iter().zip(&made) {
            assert_eq!(m, &format!("made for {}", e.id.slug));
        }
    }

    /// A thinned entry reads back the body and the sources it was read with, and refuses a
    /// file that changed since: its page would not be the one that was assessed.
    #[test]
    fn reread_gives_the_body_back_and_refuses_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("it.md");
        let sources = "sources:\n  - {title: A, url: 'https://a.example', checked: 2026-01-02}\n";
        let text = format!("---\ntitle: T\nsummary: S.\n{sources}---\nThe body.\n");
        std::fs::write(&path, text).unwrap();
        let mut e = parse_entry(Kind::Term, path.clone()).unwrap();
        let (body, body_line) = (e.body.clone(), e.body_line);
        e.thin();
        assert!(e.body.is_empty() && e.raw.is_empty() && e.meta.sources.is_empty());
        let back = reread(&e).unwrap();
        assert_eq!(
            (back.body.as_str(), back.body_line),
            (body.as_str(), body_line)
        );
        assert_eq!(back.meta.summary, "S.");
        assert_eq!(back.meta.sources[0].url, "https://a.example");

        std::fs::write(&path, "---\ntitle: T\nsummary: S.\n---\nAnother body.\n").unwrap();
        let err = reread(&e).unwrap_err().to_string();
        assert!(err.contains("it.md") && err.contains("changed"), "{err}");
    }
}
