//! Static files a browser would run or render as a page (`static/x.html`, `.svg`, `.js`,
//! `.css`, ...: `site::static_files` decides which) pass the gate like an entry: a
//! registered author and a different registered reviewer sign the file's exact bytes with
//! `glossary review sign static/x.html`, and the build publishes it only while both
//! signatures count ([`decide`]: registered keys, two people, the names they signed, the
//! bytes unchanged, no rollback past the sign-off log).
//!
//! A static file is named `static/<path>` wherever an entry would be named `kind/slug`:
//! in the signed statement, under `content/reviews/static/<path>.yaml` for its
//! signatures, in the sign-off log, and in `content/reviews/texts/` for what was signed (the
//! file as text, with the sha256 of its exact bytes), which `review diff` compares.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::error::{Error, Location, Result};
use crate::trust::file::{read_trust_text, MAX_TRUST_FILE_BYTES};
use crate::trust::{People, Person, Signer};

use super::digest::{SignedMaterial, SignedText};
use super::error::ReviewError;
use super::gate::{decide, Facts, Verdict};
use super::signatures::{load_text, save_text, text_path, STATIC_DIR};
use super::signoff::{Role, SignOff};

/// How a static file is named in statements, logs and messages: `static/<path>`.
pub fn static_name(rel: &str) -> String {
    format!("{STATIC_DIR}/{rel}")
}

/// Where a static file's signatures live.
pub fn static_signoff_path(reviews_dir: &Path, rel: &str) -> PathBuf {
    reviews_dir.join(STATIC_DIR).join(format!("{rel}.yaml"))
}

/// What a signature on the static file `rel` binds: its name, its text (lossy where it is
/// not UTF-8, for `review diff`) and the sha256 of its exact bytes.
pub fn static_material(rel: &str, bytes: &[u8]) -> SignedMaterial {
    let mut cells = BTreeMap::new();
    cells.insert("sha256".to_string(), hex::encode(Sha256::digest(bytes)));
    let text = SignedText {
        entry: static_name(rel),
        text: String::from_utf8_lossy(bytes).into_owned(),
        cells,
    };
    let stored = serde_json::to_vec(&text).unwrap_or_default();
    SignedMaterial {
        digest: format!("sha256:{}", hex::encode(Sha256::digest(&stored))),
        text,
        bytes: stored,
    }
}

/// The static file's signatures, with what its log remembers; None when it has none.
pub fn load_static_signoff(reviews_dir: &Path, rel: &str) -> Result<Option<SignOff>> {
    let path = static_signoff_path(reviews_dir, rel);
    let text = match read_trust_text(&path, MAX_TRUST_FILE_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(Error::content(&path, None, e.why())),
    };
    let mut signoff = super::signature_file::read(&text).map_err(|e| {
        let at = e.location().map(|l| Location {
            line: l.line(),
            column: l.column(),
        });
        Error::content(&path, at, format!("signature file: {e}"))
    })?;
    signoff.log = super::log::read(reviews_dir, &static_name(rel))?;
    Ok(Some(signoff))
}

/// Whether the static file `rel`, holding `bytes` now, may be published.
pub fn static_verdict(
    reviews_dir: &Path,
    rel: &str,
    bytes: &[u8],
    people: &People,
) -> Result<Verdict> {
    let signoff = load_static_signoff(reviews_dir, rel)?;
    let material = static_material(rel, bytes);
    let name = static_name(rel);
    Ok(decide(Facts {
        entry: &name,
        signoff: signoff.as_ref(),
        people,
        digest: &material.digest,
        stale: &[],
        unsupported: &[],
        fragile: &[],
        checked: None,
    }))
}

/// What signing a static file did.
#[derive(Debug)]
pub struct StaticSigned {
    pub name: String,
    pub path: PathBuf,
    pub replaced: bool,
}

/// Sign the static file `rel` (its current `bytes`) as `role`: the signature file, the
/// signed text and, once both roles signed this version, the sign-off log are written.
#[allow(clippy::too_many_arguments)]
pub fn sign_static(
    reviews_dir: &Path,
    rel: &str,
    bytes: &[u8],
    role: Role,
    person: &Person,
    signer: &Signer,
    now: DateTime<Utc>,
) -> Result<StaticSigned> {
    let name = static_name(rel);
    let existing = load_static_signoff(reviews_dir, rel)?.unwrap_or_default();
    super::sign::check_signer(&name, &existing, role, &person.id)?;
    let material = static_material(rel, bytes);
    let signature =
        super::sign::make_signature(&name, role, person, &material.digest, signer, now)?;
    let mut signoff = existing;
    signoff.log = Vec::new();
    let slot = match role {
        Role::Author => &mut signoff.author,
        Role::Reviewer => &mut signoff.reviewer,
    };
    let replaced = slot.replace(signature).is_some();
    save_text(reviews_dir, &material.digest, &material.bytes)?;
    let path = static_signoff_path(reviews_dir, rel);
    let yaml = super::signature_file::write(&signoff)
        .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
    crate::atomic::write_file(&path, yaml.as_bytes(), crate::atomic::Durability::Synced)?;
    super::log::record(reviews_dir, &name, &signoff)?;
    Ok(StaticSigned {
        name,
        path,
        replaced,
    })
}

/// `review diff static/x.html`: what changed in the file since the reviewer (else the
/// author) signed it, as a unified diff, or that nothing did.
pub fn static_diff(reviews_dir: &Path, rel: &str, bytes: &[u8]) -> Result<String> {
    let name = static_name(rel);
    let signoff = load_static_signoff(reviews_dir, rel)?;
    let (role, sig) = match signoff.as_ref().map(|s| (&s.reviewer, &s.author)) {
        Some((Some(r), _)) => (Role::Reviewer, r),
        Some((None, Some(a))) => (Role::Author, a),
        _ => return Err(ReviewError::NothingSigned { entry: name }.into()),
    };
    let signed = load_text(reviews_dir, &sig.digest).ok_or_else(|| ReviewError::NoSignedText {
        path: text_path(reviews_dir, &sig.digest).display().to_string(),
        role,
    })?;
    let now = static_material(rel, bytes);
    let date = sig.date();
    let head = format!("{name}: as signed by its {role} {} on {date}", sig.name);
    let out = match super::diff::unified_diff(
        &signed.text,
        &now.text.text,
        &format!("{name} as signed on {date}"),
        &format!("{name} now"),
    ) {
        Some(diff) => format!("{head}\n{diff}"),
        None if signed.cells != now.text.cells => {
            format!(
                "{head}\nthe bytes changed (not as text): sha256 {} now, {} signed\n",
                now.text.cells["sha256"],
                signed.cells.get("sha256").map_or("?", String::as_str)
            )
        }
        None => format!("{head}\nunchanged since signed\n"),
    };
    Ok(format!("{}", crate::visible::Escaped(out)))
}
