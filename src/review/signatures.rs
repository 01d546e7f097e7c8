//! Signature files: `content/reviews/<kind>/<slug>.yaml`, one per entry, holding for each
//! role the signer's person id, the digest signed, the time and the SSH signature. What
//! was signed is kept once, content-addressed, in `content/reviews/texts/<sha256>.json`
//! (see `digest`): both signers of one version share it, and `review diff` reads it.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use walkdir::WalkDir;

use crate::atomic::{write_file, write_files, Durability};
use crate::content::{EntryId, Kind};
use crate::error::{Error, Location, Result};

use super::digest::{SignedMaterial, SignedText};
use super::signature_file;
use super::signoff::SignOff;

/// The folder of signed texts under the reviews folder.
pub const TEXTS_DIR: &str = "texts";
/// The folder of `static/` files' signatures under the reviews folder
/// (`static_file`): not entries' signature files.
pub const STATIC_DIR: &str = "static";

pub type SignOffs = BTreeMap<EntryId, SignOff>;

/// The file that holds an entry's signatures.
pub fn signoff_path(reviews_dir: &Path, id: &EntryId) -> PathBuf {
    reviews_dir
        .join(id.kind.dir())
        .join(format!("{}.yaml", id.slug))
}

/// Load every signature file. A file that does not parse, or names no existing entry, is
/// an error naming the file: a signature must never silently stop counting.
pub fn load_signoffs(reviews_dir: &Path, known: &HashSet<&EntryId>) -> Result<SignOffs> {
    load_signoffs_of(reviews_dir, &|id| known.contains(id))
}

/// Every signature file, before the entries are known (a build reads them first so it can
/// gate each entry as it is read): each names an entry by its path, which the caller must
/// then check against the content, as [`load_signoffs`] does.
pub fn load_all_signoffs(reviews_dir: &Path) -> Result<SignOffs> {
    load_signoffs_of(reviews_dir, &|_| true)
}

fn load_signoffs_of(
    reviews_dir: &Path,
    known: &(dyn Fn(&EntryId) -> bool + Sync),
) -> Result<SignOffs> {
    let mut out = SignOffs::new();
    let mut errors = Vec::new();
    if !reviews_dir.is_dir() {
        return Ok(out);
    }
    let mut files = Vec::new();
    let texts = reviews_dir.join(TEXTS_DIR);
    let logs = reviews_dir.join(super::log::LOG_DIR);
    let statics = reviews_dir.join(STATIC_DIR);
    // The signed texts (one file per signature), the sign-off logs (read with the
    // signature file they belong to) and static files' signatures (read by the build's
    // static gate) are not entries' signature files: not walked.
    for item in WalkDir::new(reviews_dir)
        .min_depth(1)
        .sort_by(crate::content::by_file_name)
        .into_iter()
        .filter_entry(|i| {
            i.path() != texts
                && i.path() != logs
                && i.path() != statics
                && !crate::content::is_side_file(i.file_name())
        })
    {
        match item {
            Ok(i) if i.file_type().is_file() => files.push(i.into_path()),
            // A symlinked signature file would count someone else's file as a signature;
            // refused by name rather than dropped (the entry would read "not signed").
            Ok(i) if i.file_type().is_symlink() => errors.push(Error::content(
                i.path(),
                None,
                crate::trust::TrustFileError::Symlink(i.path().to_path_buf()).why(),
            )),
            Ok(_) => {}
            Err(e) => errors.push(Error::Other(format!("{}: {e}", reviews_dir.display()))),
        }
    }
    // Parsing YAML is most of the cost and the files are independent.
    // A log folder that cannot be listed is an error (the whole load fails with it), and
    // the entries are then read as if no log were there rather than each naming it again.
    let logs = Some(super::log::list_logs(reviews_dir).unwrap_or_else(|e| {
        errors.push(e);
        super::log::LogListing::empty()
    }));
    let loaded: Vec<Result<(EntryId, SignOff)>> = files
        .par_iter()
        .map(|path| load_one(reviews_dir, path, known, logs.as_ref()))
        .collect();
    for r in loaded {
        match r {
            Ok((id, s)) => {
                out.insert(id, s);
            }
            Err(e) => errors.push(e),
        }
    }
    Error::collect(errors)?;
    Ok(out)
}

/// Load one signature file (an incremental rebuild re-reads only the ones that changed).
pub fn load_signoff(
    reviews_dir: &Path,
    path: &Path,
    known: &HashSet<&EntryId>,
) -> Result<(EntryId, SignOff)> {
    load_one(reviews_dir, path, &|id| known.contains(id), None)
}

/// `logs`: the log folder as listed for a whole load (None: look the entry's log up, its
/// folders checked on the way).
fn load_one(
    reviews_dir: &Path,
    path: &Path,
    known: &(dyn Fn(&EntryId) -> bool + Sync),
    logs: Option<&super::log::LogListing>,
) -> Result<(EntryId, SignOff)> {
    let rel = path.strip_prefix(reviews_dir).unwrap_or(path);
    let id = (|| {
        let mut parts = rel.iter();
        let kind = Kind::from_dir(parts.next()?.to_str()?)?;
        let file = Path::new(parts.next()?);
        if parts.next().is_some() || file.extension()? != "yaml" {
            return None;
        }
        Some(EntryId::new(kind, file.file_stem()?.to_str()?))
    })()
    .ok_or_else(|| {
        Error::content(
            path,
            None,
            "signature files are named content/reviews/<terms|lessons|guides>/<slug>.yaml",
        )
    })?;
    if !known(&id) {
        return Err(Error::content(
            path,
            None,
            format!("signatures for unknown entry `{id}` (no content/{id}.md)"),
        ));
    }
    let text = crate::trust::read_trust_text(path, crate::trust::file::MAX_TRUST_FILE_BYTES)
        .map_err(|e| Error::content(path, None, e.why()))?;
    let mut signoff = signature_file::read(&text).map_err(|e| {
        let at = e.location().map(|l| Location {
            line: l.line(),
            column: l.column(),
        });
        Error::content(path, at, format!("signature file: {e}"))
    })?;
    // What the log remembers travels with the sign-off, so every way a build loads one
    // (whole, by query, incrementally) gates it against the log.
    signoff.log = super::log::read_listed(reviews_dir, &id, logs)?;
    Ok((id, signoff))
}

/// Write an entry's signatures atomically (temp file + rename): a failed write never
/// leaves a truncated signature file behind.
pub fn save_signoff(reviews_dir: &Path, id: &EntryId, signoff: &SignOff) -> Result<PathBuf> {
    let path = signoff_path(reviews_dir, id);
    let dir = path.parent().unwrap_or(reviews_dir);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let yaml = signature_file::write(signoff)
        .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
    write_file(&path, yaml.as_bytes(), Durability::Synced)?;
    Ok(path)
}

/// Write several entries' signature files and the texts they sign (those not kept yet),
/// every file atomically and all of them with one flush to disk (`atomic::write_files`):
/// signing 10,000 entries is not 20,000 `fsync`s.
pub fn save_signoffs(
    reviews_dir: &Path,
    items: &[(&EntryId, &SignOff, &SignedMaterial)],
) -> Result<()> {
    let mut files: Vec<(PathBuf, Cow<[u8]>)> = Vec::with_capacity(2 * items.len());
    let mut texts = HashSet::new();
    let mut errors = Vec::new();
    for (id, signoff, material) in items {
        let text = text_path(reviews_dir, &material.digest);
        if !text.is_file() && texts.insert(text.clone()) {
            files.push((text, Cow::Borrowed(&material.bytes)));
        }
        let path = signoff_path(reviews_dir, id);
        match signature_file::write(signoff) {
            Ok(yaml) => files.push((path, Cow::Owned(yaml.into_bytes()))),
            Err(e) => errors.push(Error::Other(format!("{}: {e}", path.display()))),
        }
    }
    Error::collect(errors)?;
    write_files(&files, Durability::Synced)
}

/// Where the signed text of `digest` is kept.
pub fn text_path(reviews_dir: &Path, digest: &str) -> PathBuf {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    reviews_dir.join(TEXTS_DIR).join(format!("{hex}.json"))
}

/// Keep a signed text under its digest (once: a second signer of the same version finds
/// it there). The file's sha256 is its name, so it can be checked like any content store.
pub fn save_text(reviews_dir: &Path, digest: &str, bytes: &[u8]) -> Result<PathBuf> {
    let path = text_path(reviews_dir, digest);
    if path.is_file() {
        return Ok(path);
    }
    write_file(&path, bytes, Durability::Synced)?;
    Ok(path)
}

/// The signed text of `digest`, if kept and intact (its bytes must hash to its name).
pub fn load_text(reviews_dir: &Path, digest: &str) -> Option<SignedText> {
    let bytes = std::fs::read(text_path(reviews_dir, digest)).ok()?;
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    use sha2::Digest as _;
    if hex::encode(sha2::Sha256::digest(&bytes)) != hex {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}
