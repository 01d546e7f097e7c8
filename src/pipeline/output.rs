//! Writing the site atomically: render into a staging folder beside the output, then swap
//! it in. A build that fails at any point leaves the previous site untouched.
//!
//! The site the swap replaces is kept beside the output as `.<name>.prev` and becomes the
//! next build's staging folder. Creating and deleting every page's folder and file on
//! each build cost over half of a 10,000-page build (ext4 inode allocation right after
//! mass deletion); recycling the previous generation lets a build rewrite only the files
//! whose bytes changed. It costs the disk space of one more copy of the site.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::render::OutputFile;

/// Marks a folder as made by `glossary build`, so it is safe to replace.
pub const MARKER: &str = ".glossary-site";
/// Marks a folder as made by `glossary build --drafts`: a preview that must never be
/// deployed. A normal build refuses to replace it (it could be the folder a deploy script
/// picks up), and a drafts build refuses to replace a deployable site.
pub const DRAFTS_MARKER: &str = ".glossary-drafts";

fn marker(drafts: bool) -> &'static str {
    if drafts {
        DRAFTS_MARKER
    } else {
        MARKER
    }
}

/// Write `files` (and a copy of `static_dir`, if any) as the new content of `out`.
pub fn write_site(
    out: &Path,
    files: &[OutputFile],
    static_dir: Option<&Path>,
    drafts: bool,
) -> Result<()> {
    let staging = Staging::begin(out, drafts)?;
    for f in files {
        staging.write(&f.path, &f.bytes)?;
    }
    staging.finish(static_dir)
}

/// The folder a build writes into before the swap. Writes may come from many threads.
pub struct Staging {
    out: PathBuf,
    prev: PathBuf,
    dir: PathBuf,
    /// Whether `dir` is a recycled site, which may hold files this build does not write.
    recycled: bool,
    /// A drafts preview (its marker is [`DRAFTS_MARKER`]).
    drafts: bool,
    written: Mutex<HashSet<PathBuf>>,
    finished: bool,
}

impl Staging {
    /// Check that `out` may be replaced and set up the staging folder beside it.
    pub fn begin(out: &Path, drafts: bool) -> Result<Staging> {
        let out = absolute(out)?;
        let parent = out
            .parent()
            .ok_or_else(|| {
                Error::Other(format!(
                    "{}: cannot write a site at the file-system root",
                    out.display()
                ))
            })?
            .to_path_buf();
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        if out.exists() && !is_replaceable(&out, drafts) {
            let other = marker(!drafts);
            let why = if out.join(other).is_file() && drafts {
                format!("it holds a deployable site (it has {MARKER}); a drafts preview goes to its own folder (default site-drafts/)")
            } else if out.join(other).is_file() {
                format!("it holds a drafts preview (it has {DRAFTS_MARKER}), which must never be deployed; build the site into another folder (default site/), or remove the preview")
            } else {
                format!(
                    "glossary did not write it (no {} in it); choose another --out or remove it",
                    marker(drafts)
                )
            };
            return Err(Error::Other(format!(
                "{}: refusing to replace this folder: {why}",
                out.display()
            )));
        }
        let name = out
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("site")
            .to_string();
        let dir = crate::atomic::new_folder(&parent, &format!(".{name}.tmp-"))?;
        let prev = parent.join(format!(".{name}.prev"));
        // Claim the previous generation by renaming it over the empty staging folder; a
        // concurrent build that loses the race simply starts from an empty folder.
        let recycled = prev.join(marker(drafts)).is_file() && std::fs::rename(&prev, &dir).is_ok();
        Ok(Staging {
            out,
            prev,
            dir,
            recycled,
            drafts,
            written: Mutex::new(HashSet::new()),
            finished: false,
        })
    }

    /// Write one file (path relative to the site root), skipping it when the recycled
    /// folder already holds the same bytes.
    pub fn write(&self, rel: &Path, bytes: &[u8]) -> Result<()> {
        let dest = self.dir.join(rel);
        if !self.recycled {
            // A fresh folder holds only what this build writes: there is no old copy to
            // compare with and nothing stale to remove at the end, so neither the lookup
            // (a `stat` per file, about 2% of a cold build) nor the list of written files.
            return write_new(&dest, bytes);
        }
        write_if_changed(&dest, bytes)?;
        self.written
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(rel.to_path_buf());
        Ok(())
    }

    /// Copy the static files, drop what this build did not write, and swap the folder in.
    pub fn finish(mut self, static_dir: Option<&Path>) -> Result<()> {
        let static_dest = self.dir.join("static");
        if static_dest.exists() {
            std::fs::remove_dir_all(&static_dest).map_err(|e| Error::io(&static_dest, e))?;
        }
        if let Some(dir) = static_dir.filter(|d| d.is_dir()) {
            copy_dir(dir, &static_dest)?;
        }
        if self.recycled {
            self.remove_stale()?;
        }
        let marker = self.dir.join(marker(self.drafts));
        std::fs::write(&marker, b"").map_err(|e| Error::io(&marker, e))?;
        self.swap()?;
        self.finished = true;
        Ok(())
    }

    /// Remove files of an older build that this one did not write, and emptied folders.
    fn remove_stale(&self) -> Result<()> {
        let written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        for item in walkdir::WalkDir::new(&self.dir)
            .min_depth(1)
            .contents_first(true)
        {
            let item = item.map_err(|e| Error::Other(format!("{}: {e}", self.dir.display())))?;
            let rel = item.path().strip_prefix(&self.dir).unwrap_or(item.path());
            if rel == Path::new(marker(self.drafts)) || rel.starts_with("static") {
                continue;
            }
            if item.file_type().is_dir() {
                // Fails, as intended, on folders that still hold pages.
                let _ = std::fs::remove_dir(item.path());
            } else if !written.contains(rel) {
                std::fs::remove_file(item.path()).map_err(|e| Error::io(item.path(), e))?;
            }
        }
        Ok(())
    }

    /// Old site to `.prev` (the next build's staging), new site in. If the second rename
    /// fails the old site is put back.
    fn swap(&self) -> Result<()> {
        if !self.out.exists() {
            return std::fs::rename(&self.dir, &self.out).map_err(|e| Error::io(&self.out, e));
        }
        if self.prev.exists() {
            // Someone else's build left one since we began; ours is the newer generation.
            std::fs::remove_dir_all(&self.prev).map_err(|e| Error::io(&self.prev, e))?;
        }
        std::fs::rename(&self.out, &self.prev).map_err(|e| Error::io(&self.out, e))?;
        if let Err(e) = std::fs::rename(&self.dir, &self.out) {
            let _ = std::fs::rename(&self.prev, &self.out);
            return Err(Error::io(&self.out, e));
        }
        Ok(())
    }
}

impl Drop for Staging {
    /// A failed build: keep a recycled folder for next time, delete a fresh one.
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if !(self.recycled && !self.prev.exists() && std::fs::rename(&self.dir, &self.prev).is_ok())
        {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Write `bytes` at `dest` in a folder this build made, creating its parent folders.
fn write_new(dest: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    std::fs::write(dest, bytes).map_err(|e| Error::io(dest, e))
}

/// Write `bytes` at `dest` unless the file already holds exactly them.
pub(crate) fn write_if_changed(dest: &Path, bytes: &[u8]) -> Result<bool> {
    match std::fs::metadata(dest) {
        Ok(m) if m.is_file() && m.len() == bytes.len() as u64 => {
            if std::fs::read(dest).is_ok_and(|old| old == bytes) {
                return Ok(false);
            }
        }
        Ok(m) if m.is_dir() => {
            std::fs::remove_dir_all(dest).map_err(|e| Error::io(dest, e))?;
        }
        Ok(_) => {}
        Err(_) => {
            if let Some(dir) = dest.parent() {
                std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            }
        }
    }
    std::fs::write(dest, bytes).map_err(|e| Error::io(dest, e))?;
    Ok(true)
}

fn is_replaceable(out: &Path, drafts: bool) -> bool {
    let own = out.join(marker(drafts)).is_file() && !out.join(marker(!drafts)).is_file();
    own || std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_none())
}

pub(crate) fn absolute(p: &Path) -> Result<PathBuf> {
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
        Ok(cwd.join(p))
    }
}

/// Copy a folder tree (static assets, templates), creating what is missing.
pub fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    for item in walkdir::WalkDir::new(from) {
        let item = item.map_err(|e| Error::Other(format!("{}: {e}", from.display())))?;
        let rel = item.path().strip_prefix(from).unwrap_or(item.path());
        let dest = to.join(rel);
        if item.file_type().is_dir() {
            std::fs::create_dir_all(&dest).map_err(|e| Error::io(&dest, e))?;
        } else if item.file_type().is_file() {
            std::fs::copy(item.path(), &dest).map_err(|e| Error::io(item.path(), e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> OutputFile {
        OutputFile {
            path: path.into(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    fn listing(dir: &Path) -> Vec<(String, String)> {
        let mut v: Vec<_> = walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                (
                    e.path().strip_prefix(dir).unwrap().display().to_string(),
                    std::fs::read_to_string(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn each_build_holds_exactly_its_own_files_across_recycled_generations() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        write_site(
            &out,
            &[file("a/index.html", "1"), file("b/index.html", "1")],
            None,
            false,
        )
        .unwrap();
        write_site(&out, &[file("a/index.html", "2")], None, false).unwrap();
        // The third build recycles the first one's folder, which still holds b/.
        write_site(
            &out,
            &[file("a/index.html", "3"), file("c/index.html", "3")],
            None,
            false,
        )
        .unwrap();
        assert_eq!(
            listing(&out),
            vec![
                (MARKER.to_string(), String::new()),
                ("a/index.html".into(), "3".into()),
                ("c/index.html".into(), "3".into()),
            ]
        );
        assert!(!tmp.path().join(".site.prev/b").exists());
    }

    #[test]
    fn a_failed_build_leaves_the_site_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        write_site(&out, &[file("a/index.html", "1")], None, false).unwrap();
        write_site(&out, &[file("a/index.html", "2")], None, false).unwrap();
        {
            let staging = Staging::begin(&out, false).unwrap();
            staging.write(Path::new("a/index.html"), b"broken").unwrap();
            // dropped without finish: the build failed
        }
        assert_eq!(listing(&out)[1], ("a/index.html".into(), "2".into()));
        write_site(&out, &[file("z.html", "4")], None, false).unwrap();
        assert_eq!(listing(&out)[1], ("z.html".into(), "4".into()));
        assert_eq!(listing(&out).len(), 2);
    }

    #[test]
    fn refuses_to_replace_a_folder_it_did_not_write() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("mine");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("keep.txt"), "x").unwrap();
        assert!(write_site(&out, &[file("a.html", "1")], None, false).is_err());
        assert_eq!(std::fs::read_to_string(out.join("keep.txt")).unwrap(), "x");
    }

    #[test]
    fn a_drafts_folder_and_a_site_folder_never_replace_each_other() {
        let tmp = tempfile::tempdir().unwrap();
        let drafts = tmp.path().join("site-drafts");
        write_site(&drafts, &[file("index.html", "draft")], None, true).unwrap();
        assert!(drafts.join(DRAFTS_MARKER).is_file());
        let e = write_site(&drafts, &[file("index.html", "site")], None, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("it holds a drafts preview"), "{e}");
        assert_eq!(
            std::fs::read_to_string(drafts.join("index.html")).unwrap(),
            "draft"
        );

        let site = tmp.path().join("site");
        write_site(&site, &[file("index.html", "site")], None, false).unwrap();
        let e = write_site(&site, &[file("index.html", "draft")], None, true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("it holds a deployable site"), "{e}");
        assert_eq!(
            std::fs::read_to_string(site.join("index.html")).unwrap(),
            "site"
        );
    }
}
