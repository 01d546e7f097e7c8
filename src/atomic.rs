//! The one way this tool replaces a file: a temporary file in the same folder, then a
//! rename, so a reader (or a crash) never sees half of it. Site pages, signatures and
//! records all go through here.
//!
//! Files get the mode `std::fs::write` would give them (0666 less the umask, so 0644
//! usually), not the temporary file's private 0600: a signature or record is meant to be
//! read by others, committed and served. Folders are made as `create_dir_all` makes them
//! (0777 less the umask, so 0755 usually).

use std::io::Write;
use std::path::{Path, PathBuf};

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
