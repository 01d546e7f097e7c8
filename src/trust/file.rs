//! Reading a trust file: `content/people.toml`, a sign-off file, a record's `.sig`, the
//! sign-off log, a node list. Each must be a regular file where it is found, never a
//! symlink (a link to `~/.ssh/...`, `.git/config` or a file another checkout controls
//! would make the project trust what no review saw), and no larger than what such a file
//! can hold, so a 1 GiB or 10 MB file is reported as too large rather than parsed.
//!
//! The file is opened with `O_NOFOLLOW`, so a link swapped in after a check is not
//! followed either. A folder above the file that is itself a symlink is not looked at:
//! the project's own folders are the project.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest SSH signature file read (an SSHSIG armour is a few hundred bytes).
pub const MAX_SIGNATURE_BYTES: u64 = 64 << 10;
/// The largest sign-off file, sign-off log or people registry read.
pub const MAX_TRUST_FILE_BYTES: u64 = 4 << 20;

/// Why a trust file was not read.
#[derive(Debug)]
pub enum TrustFileError {
    Missing(PathBuf),
    Symlink(PathBuf),
    NotRegular(PathBuf),
    TooLarge {
        path: PathBuf,
        size: String,
        limit: u64,
    },
    Io(PathBuf, std::io::Error),
}

impl TrustFileError {
    pub fn is_missing(&self) -> bool {
        matches!(self, TrustFileError::Missing(_))
    }

    pub fn path(&self) -> &Path {
        match self {
            TrustFileError::Missing(p)
            | TrustFileError::Symlink(p)
            | TrustFileError::NotRegular(p)
            | TrustFileError::TooLarge { path: p, .. }
            | TrustFileError::Io(p, _) => p,
        }
    }

    /// The reason alone, for an error that names the file itself.
    pub fn why(&self) -> String {
        match self {
            TrustFileError::Missing(_) => "does not exist".into(),
            TrustFileError::Symlink(_) => "is a symlink; a file the project trusts (people, signatures, keys) must be a regular file in the project, so copy it in place of the link".into(),
            TrustFileError::NotRegular(_) => "is not a regular file".into(),
            TrustFileError::TooLarge { size, limit, .. } => {
                format!("is too large: {size} bytes, over the {limit} bytes such a file may hold")
            }
            TrustFileError::Io(_, e) => format!("cannot be read: {e}"),
        }
    }
}

impl fmt::Display for TrustFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.path().display(), self.why())
    }
}

/// The bytes of the trust file `path`: a regular file (not a symlink) of at most `limit`
/// bytes, read no further than one byte past it (a file that grows while it is read).
pub fn read_trust_file(path: &Path, limit: u64) -> Result<Vec<u8>, TrustFileError> {
    // Opened first, then the open file is checked: one path lookup per file, not two (a
    // `stat` then an `open` was about 1% of a 10,000-entry build), and no window between
    // the check and the read. O_NOFOLLOW refuses a symlink as the last component;
    // O_NONBLOCK keeps a FIFO planted under the name from hanging the open.
    let file = open_no_follow(path).map_err(|e| match (e.kind(), e.raw_os_error()) {
        (std::io::ErrorKind::NotFound, _) => TrustFileError::Missing(path.to_path_buf()),
        (_, Some(libc::ELOOP)) => TrustFileError::Symlink(path.to_path_buf()),
        _ => TrustFileError::Io(path.to_path_buf(), e),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| TrustFileError::Io(path.to_path_buf(), e))?;
    if !meta.is_file() {
        return Err(TrustFileError::NotRegular(path.to_path_buf()));
    }
    let too_large = |size: String| TrustFileError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if meta.len() > limit {
        return Err(too_large(meta.len().to_string()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| TrustFileError::Io(path.to_path_buf(), e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(format!("more than {limit}")));
    }
    Ok(bytes)
}

/// [`read_trust_file`] as text; bytes that are not UTF-8 are an I/O-style error.
pub fn read_trust_text(path: &Path, limit: u64) -> Result<String, TrustFileError> {
    let bytes = read_trust_file(path, limit)?;
    String::from_utf8(bytes).map_err(|e| {
        TrustFileError::Io(
            path.to_path_buf(),
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_is_refused_naming_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.sig");
        std::fs::write(&target, "x").unwrap();
        let link = dir.path().join("h200.json.sig");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = read_trust_file(&link, 10).unwrap_err();
        assert!(matches!(e, TrustFileError::Symlink(_)), "{e}");
        assert!(e.to_string().contains("h200.json.sig is a symlink"), "{e}");
        assert_eq!(read_trust_file(&target, 10).unwrap(), b"x");
    }

    /// A folder or a FIFO under a trust file's name is refused, and the FIFO does not
    /// hang the read (opened non-blocking, checked as the open file).
    #[test]
    fn a_folder_or_fifo_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("h200.json.sig");
        std::fs::create_dir(&folder).unwrap();
        let e = read_trust_file(&folder, 10).unwrap_err();
        assert!(matches!(e, TrustFileError::NotRegular(_)), "{e}");
        let fifo = dir.path().join("people.toml");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(read_trust_file(&fifo, 10)).unwrap());
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("reading a FIFO hung");
        assert!(matches!(r, Err(TrustFileError::NotRegular(_))), "{r:?}");
    }

    #[test]
    fn an_oversized_file_is_too_large_not_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h200.json.sig");
        std::fs::write(&path, vec![b'A'; 100]).unwrap();
        let e = read_trust_file(&path, 99).unwrap_err();
        assert!(e.to_string().contains("is too large: 100 bytes"), "{e}");
        assert!(read_trust_file(&dir.path().join("none"), 99)
            .unwrap_err()
            .is_missing());
    }
}
