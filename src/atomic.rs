//! The one way this tool replaces a file: a temporary file in the same folder, then a
//! rename, so a reader (or a crash) never sees half of it. Site pages, signatures and
//! records all go through here.
//!
//! Files get the mode `std::fs::write` would give them (0666 less the umask, so 0644
//! usually), not the temporary file's private 0600: a signature or record is meant to be
//! read by others, committed and served. Folders are made as `create_dir_all` makes them
//! (0777 less the umask, so 0755 usually).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Whether the bytes must be on disk before the rename (a record of an hour's GPU run,
/// a signature), or may stay in the page cache (site pages, rebuilt on every save).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    Synced,
    Cached,
}

/// Replace `path` with `bytes`, creating its folder if needed.
pub fn write_file(path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut tmp = builder(0o666)
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    if durability == Durability::Synced {
        tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Replace many files, each as [`write_file`] replaces one (a temporary file beside it,
/// then a rename), with one flush to disk for the whole batch instead of one per file:
/// every temporary file is written, the file systems they are on are flushed once
/// (`syncfs`), and only then is each renamed into place, so after a crash every path holds
/// its old bytes or its new ones, never a torn file. The folders are flushed once at the
/// end so the renames are on disk too. Signing 10,000 entries writes 20,000 files; an
/// `fsync` each would be most of its time on a disk.
///
/// Every file is attempted; a file that cannot be written is reported (all of them
/// together) and its path keeps its old bytes.
pub fn write_files<B: AsRef<[u8]> + Sync>(
    files: &[(PathBuf, B)],
    durability: Durability,
) -> Result<()> {
    let mut errors = Vec::new();
    let dirs: BTreeSet<&Path> = files.iter().map(|(p, _)| parent(p)).collect();
    for dir in &dirs {
        if let Err(e) = std::fs::create_dir_all(dir) {
            errors.push(Error::io(*dir, e));
        }
    }
    // Written and closed (a batch may hold more files than a process may keep open).
    let staged: Vec<Result<(tempfile::TempPath, &Path)>> = files
        .par_iter()
        .map(|(path, bytes)| {
            let dir = parent(path);
            let mut tmp = builder(0o666)
                .prefix(".tmp-")
                .tempfile_in(dir)
                .map_err(|e| Error::io(dir, e))?;
            tmp.write_all(bytes.as_ref())
                .map_err(|e| Error::io(path, e))?;
            Ok((tmp.into_temp_path(), path.as_path()))
        })
        .collect();
    let mut ready = Vec::with_capacity(staged.len());
    for s in staged {
        match s {
            Ok(s) => ready.push(s),
            Err(e) => errors.push(e),
        }
    }
    if durability == Durability::Synced && !ready.is_empty() {
        // On failure nothing is renamed: the temporary files go, the old bytes stay.
        flush_before_rename(&ready, &dirs)?;
    }
    let renamed: Vec<Result<()>> = ready
        .into_par_iter()
        .map(|(tmp, path)| tmp.persist(path).map_err(|e| Error::io(path, e.error)))
        .collect();
    errors.extend(renamed.into_iter().filter_map(|r| r.err()));
    if durability == Durability::Synced {
        for dir in &dirs {
            if let Err(e) = std::fs::File::open(dir).and_then(|d| d.sync_all()) {
                errors.push(Error::io(*dir, e));
            }
        }
    }
    Error::collect(errors)
}

fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Put the staged bytes on disk: one `syncfs` per file system the folders are on.
#[cfg(target_os = "linux")]
fn flush_before_rename(
    _staged: &[(tempfile::TempPath, &Path)],
    dirs: &BTreeSet<&Path>,
) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::io::AsRawFd;
    let mut devices = BTreeSet::new();
    for dir in dirs {
        let folder = std::fs::File::open(dir).map_err(|e| Error::io(*dir, e))?;
        let device = folder.metadata().map_err(|e| Error::io(*dir, e))?.dev();
        if !devices.insert(device) {
            continue;
        }
        // SAFETY: syncfs only reads the descriptor, which `folder` keeps open.
        if unsafe { libc::syncfs(folder.as_raw_fd()) } != 0 {
            return Err(Error::io(*dir, std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// Put the staged bytes on disk: without `syncfs`, each file's own `fsync`.
#[cfg(not(target_os = "linux"))]
fn flush_before_rename(
    staged: &[(tempfile::TempPath, &Path)],
    _dirs: &BTreeSet<&Path>,
) -> Result<()> {
    staged.par_iter().try_for_each(|(tmp, path)| {
        std::fs::File::open(tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(*path, e))
    })
}

/// [`write_file`], skipping the write when `path` already holds `bytes`. Returns whether
/// it wrote.
pub fn write_file_if_changed(path: &Path, bytes: &[u8], durability: Durability) -> Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    write_file(path, bytes, durability)?;
    Ok(true)
}

/// A new, uniquely named folder in `parent` (named `<prefix><random>`), with the mode
/// `create_dir` gives, not a temporary folder's private 0700: it becomes the site.
pub fn new_folder(parent: &Path, prefix: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let dir = builder(0o777)
        .prefix(prefix)
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, e))?;
    Ok(dir.keep())
}

/// A temporary file or folder asking for `mode` (0666 for files, 0777 for folders, what
/// std asks for); open(2)/mkdir(2) then take the umask off, as they do for std.
fn builder(mode: u32) -> tempfile::Builder<'static, 'static> {
    let mut b = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/record.json");
        write_file(&path, b"one", Durability::Synced).unwrap();
        write_file(&path, b"two", Durability::Cached).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["record.json"]);
        assert!(!write_file_if_changed(&path, b"two", Durability::Cached).unwrap());
        assert!(write_file_if_changed(&path, b"three", Durability::Cached).unwrap());
    }

    #[test]
    fn a_batch_replaces_every_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("terms/a.yaml");
        write_file(&old, b"old", Durability::Cached).unwrap();
        let files: Vec<(PathBuf, Vec<u8>)> = (0..50)
            .map(|i| {
                let sub = if i % 2 == 0 { "terms" } else { "texts" };
                let name = if i == 0 {
                    "a.yaml".into()
                } else {
                    format!("{i}.json")
                };
                (
                    dir.path().join(sub).join(name),
                    format!("file {i}").into_bytes(),
                )
            })
            .collect();
        write_files(&files, Durability::Synced).unwrap();
        for (path, bytes) in &files {
            assert_eq!(&std::fs::read(path).unwrap(), bytes);
        }
        for sub in ["terms", "texts"] {
            let names: Vec<String> = std::fs::read_dir(dir.path().join(sub))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert!(names.iter().all(|n| !n.starts_with(".tmp")), "{names:?}");
            assert_eq!(names.len(), 25);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_batch_reports_the_file_it_cannot_write_and_writes_the_others() {
        let dir = tempfile::tempdir().unwrap();
        // A file where a folder should be: its path cannot be written.
        std::fs::write(dir.path().join("blocked"), b"x").unwrap();
        let files = vec![
            (dir.path().join("blocked/a.yaml"), b"a".to_vec()),
            (dir.path().join("open/b.yaml"), b"b".to_vec()),
        ];
        let err = write_files(&files, Durability::Synced)
            .unwrap_err()
            .to_string();
        assert!(err.contains("blocked"), "{err}");
        assert_eq!(std::fs::read(dir.path().join("open/b.yaml")).unwrap(), b"b");
    }

    /// Same modes as `std::fs::write` and `create_dir` under whatever umask the test runs
    /// with: 0644 and 0755 under the usual 022, never the temporary file's 0600.
    #[cfg(unix)]
    #[test]
    fn files_and_folders_get_ordinary_modes_not_private_ones() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"x").unwrap();
        let plain_dir = dir.path().join("plain-dir");
        std::fs::create_dir(&plain_dir).unwrap();

        let written = dir.path().join("new/written");
        write_file(&written, b"x", Durability::Synced).unwrap();
        assert_eq!(mode(&written), mode(&plain));
        assert_eq!(mode(written.parent().unwrap()), mode(&plain_dir));
        let folder = new_folder(dir.path(), ".site.tmp-").unwrap();
        assert_eq!(mode(&folder), mode(&plain_dir));
    }
}
