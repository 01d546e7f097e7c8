//! Writing the site atomically: render into a temporary folder beside the output, then
//! swap it in. A build that fails at any point leaves the previous site untouched.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Marks a folder as made by `glossary build`, so it is safe to replace.
pub const MARKER: &str = ".glossary-site";

/// One file of the output, by path relative to the site root.
pub struct OutputFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Write `files` (and a copy of `static_dir`, if any) as the new content of `out`.
pub fn write_site(out: &Path, files: &[OutputFile], static_dir: Option<&Path>) -> Result<()> {
    let out = absolute(out)?;
    let parent = out.parent().ok_or_else(|| {
        Error::Other(format!(
            "{}: cannot write a site at the file-system root",
            out.display()
        ))
    })?;
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    if out.exists() && !is_replaceable(&out) {
        return Err(Error::Other(format!(
            "{}: refusing to replace a folder that glossary did not write (no {MARKER} in it); choose another --out or remove it",
            out.display()
        )));
    }
    let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("site");
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.tmp-"))
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, e))?;

    files.par_iter().try_for_each(|f| {
        let dest = staging.path().join(&f.path);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        std::fs::write(&dest, &f.bytes).map_err(|e| Error::io(&dest, e))
    })?;
    if let Some(dir) = static_dir.filter(|d| d.is_dir()) {
        copy_dir(dir, &staging.path().join("static"))?;
    }
    std::fs::write(staging.path().join(MARKER), b"").map_err(|e| Error::io(staging.path(), e))?;

    // Swap: move the old site aside, move the new one in, then delete the old one.
    let staged = staging.keep();
    if out.exists() {
        let old = tempfile::Builder::new()
            .prefix(&format!(".{name}.old-"))
            .tempdir_in(parent)
            .map_err(|e| Error::io(parent, e))?
            .keep();
        let aside = old.join(name);
        std::fs::rename(&out, &aside).map_err(|e| Error::io(&out, e))?;
        if let Err(e) = std::fs::rename(&staged, &out) {
            // Put the old site back before reporting.
            let _ = std::fs::rename(&aside, &out);
            let _ = std::fs::remove_dir_all(&staged);
            let _ = std::fs::remove_dir_all(&old);
            return Err(Error::io(&out, e));
        }
        let _ = std::fs::remove_dir_all(&old);
    } else if let Err(e) = std::fs::rename(&staged, &out) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(Error::io(&out, e));
    }
    Ok(())
}

fn is_replaceable(out: &Path) -> bool {
    out.join(MARKER).is_file() || std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_none())
}

fn absolute(p: &Path) -> Result<PathBuf> {
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
        Ok(cwd.join(p))
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
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
