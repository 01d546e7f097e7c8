//! `review sign`: a registered person signs what an entry shows now, with their SSH key.
//! Who signs is decided by the key, never by a name typed on the command line.

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{DateTime, Utc};

use crate::content::EntryId;
use crate::error::Result;
use crate::names::skeleton;
use crate::trust::sshsig::{fingerprint, REVIEW_NAMESPACE};
use crate::trust::{People, Person, Signer};

use super::digest::SignedMaterial;
use super::error::ReviewError;
use super::gate::{Refusal, Verdict};
use super::signatures::{save_signoffs, signoff_path};
use super::signoff::{statement, Role, SignOff, Signature};

/// What a successful signing did.
#[derive(Debug)]
pub struct Signed {
    pub entry: EntryId,
    pub role: Role,
    pub signature: Signature,
    /// The signer's display name.
    pub name: String,
    /// The signature file written.
    pub path: PathBuf,
    /// Whether this replaced an earlier signature in the same role.
    pub replaced: bool,
    /// The other role's signature, when it covers different content than was just signed:
    /// it stays in the file, but counts as "changed" until its signer signs again.
    pub other_out_of_date: Option<(Role, Signature)>,
    /// The entry's signatures with this one in place: what `save_signed` writes to `path`.
    pub signoff: SignOff,
}

/// The registered person a key belongs to.
pub fn signer_person<'p>(people: &'p People, signer: &Signer) -> Result<&'p Person, ReviewError> {
    people
        .by_key(signer.public_key())
        .ok_or_else(|| ReviewError::KeyNotRegistered {
            fingerprint: fingerprint(signer.public_key()),
            people: people.path.display().to_string(),
        })
}

/// Sign `entry` as `role` and write its signature file (and the signed text, if not kept
/// yet). For one entry; several are signed with [`signature_for`] and written together.
#[allow(clippy::too_many_arguments)]
pub fn sign(
    reviews_dir: &Path,
    entry: &EntryId,
    existing: Option<&SignOff>,
    material: &SignedMaterial,
    role: Role,
    person: &Person,
    signer: &Signer,
    now: DateTime<Utc>,
) -> Result<Signed> {
    let signed = signature_for(
        reviews_dir,
        entry,
        existing,
        material,
        role,
        person,
        signer,
        now,
    )?;
    save_signed(reviews_dir, &[(&signed, material)])?;
    Ok(signed)
}

/// Sign `entry` as `role`: the statement over `material`'s digest is signed with `signer`,
/// and the entry's signatures with this one in place come back. Nothing is written here:
/// the caller writes every signed entry together (`save_signed`), so signing many entries
/// flushes the disk once, not once per file.
/// `person`'s signature as `role` over what `name` (an entry, or `static/<path>`) shows,
/// its `digest`, at `now` in whole seconds (the time is part of the signed statement and
/// of the file): the one way a sign-off is made.
pub(crate) fn make_signature(
    name: &dyn std::fmt::Display,
    role: Role,
    person: &Person,
    digest: &str,
    signer: &Signer,
    now: DateTime<Utc>,
) -> Result<Signature> {
    let now = DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now);
    let msg = statement(name, role, &person.id, &person.name, digest, &now);
    let armored = signer
        .sign(REVIEW_NAMESPACE, msg.as_bytes())
        .map_err(|e| ReviewError::Key(e.to_string()))?;
    Ok(Signature {
        person: person.id.clone(),
        name: person.name.clone(),
        time: now,
        digest: digest.to_string(),
        signature: armored,
    })
}

#[allow(clippy::too_many_arguments)]
pub fn signature_for(
    reviews_dir: &Path,
    entry: &EntryId,
    existing: Option<&SignOff>,
    material: &SignedMaterial,
    role: Role,
    person: &Person,
    signer: &Signer,
    now: DateTime<Utc>,
) -> Result<Signed> {
    let existing = existing.cloned().unwrap_or_default();
    check_signer(entry, &existing, role, &person.id)?;
    let signature = make_signature(entry, role, person, &material.digest, signer, now)?;
    let (updated, replaced) = with_signature(existing, role, signature.clone());
    let other = match role {
        Role::Author => updated.reviewer.clone().map(|s| (Role::Reviewer, s)),
        Role::Reviewer => updated.author.clone().map(|s| (Role::Author, s)),
    };
    Ok(Signed {
        entry: entry.clone(),
        role,
        signature,
        name: person.name.clone(),
        path: signoff_path(reviews_dir, entry),
        replaced,
        other_out_of_date: other.filter(|(_, s)| s.digest != material.digest),
        signoff: updated,
    })
}

/// Refuse one person in both roles. Checked at sign time so the mistake is caught by the
/// person making it, not at the next build (which refuses it too).
pub fn check_signer(
    entry: &dyn std::fmt::Display,
    existing: &SignOff,
    role: Role,
    person: &str,
) -> std::result::Result<(), ReviewError> {
    let (other_role, other) = match role {
        Role::Author => (Role::Reviewer, existing.reviewer.as_ref()),
        Role::Reviewer => (Role::Author, existing.author.as_ref()),
    };
    // Compared as a reader would (case, width, invisible characters, look-alike
    // letters): a signature file edited to spell the other signer's id differently must
    // not let that person sign the second role.
    let same = |a: &str, b: &str| a == b || skeleton(a) == skeleton(b);
    match other {
        Some(o) if same(&o.person, person) => Err(ReviewError::SelfReview {
            entry: entry.to_string(),
            role,
            person: person.to_string(),
            other: other_role,
            other_date: o.date(),
        }),
        _ => Ok(()),
    }
}

/// The signatures with `role`'s replaced by `signature`; true if one was there before.
fn with_signature(mut signoff: SignOff, role: Role, signature: Signature) -> (SignOff, bool) {
    let slot = match role {
        Role::Author => &mut signoff.author,
        Role::Reviewer => &mut signoff.reviewer,
    };
    let replaced = slot.replace(signature).is_some();
    (signoff, replaced)
}

/// The key to sign with: `--key FILE`, else git's `user.signingkey` as seen from `root`
/// (the key a person already signs commits with).
pub fn signing_key(root: &Path, key: Option<&Path>) -> std::result::Result<Signer, ReviewError> {
    if let Some(k) = key {
        return Signer::from_file(k).map_err(|e| ReviewError::Key(e.to_string()));
    }
    let setting = Command::new("git")
        .args(["config", "user.signingkey"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .ok_or(ReviewError::NoSigningKey)?;
    Signer::from_git_setting(&setting).map_err(|e| ReviewError::Key(e.to_string()))
}

/// Whether `person` signing as `role` is what an entry waits for: nothing a signature cannot fix
/// holds it back (stale measurements, unsupported claims), this role has no current
/// signature that counts, the other role is not `person`'s, and, for a reviewer, the
/// author has signed the entry as it is now.
pub fn ready_for(
    signoff: Option<&SignOff>,
    verdict: &Verdict,
    digest: &str,
    role: Role,
    person: &Person,
) -> bool {
    let unfixable = verdict.refusals.iter().any(Refusal::is_about_measurements);
    if unfixable {
        return false;
    }
    let (mine, other) = match role {
        Role::Author => (
            signoff.and_then(|s| s.author.as_ref()),
            signoff.and_then(|s| s.reviewer.as_ref()),
        ),
        Role::Reviewer => (
            signoff.and_then(|s| s.reviewer.as_ref()),
            signoff.and_then(|s| s.author.as_ref()),
        ),
    };
    let counts = |r: Role| {
        !verdict.refusals.iter().any(|x| {
            matches!(x, Refusal::BadSignature { role, .. } | Refusal::UnknownSigner { role, .. } | Refusal::NameChanged { role, .. } if *role == r)
                || matches!(x, Refusal::RolledBack { roles, .. } if roles.contains(&r))
        })
    };
    let other_role = match role {
        Role::Author => Role::Reviewer,
        Role::Reviewer => Role::Author,
    };
    let mine_current = mine.is_some_and(|s| s.digest == digest) && counts(role);
    if mine_current {
        return false;
    }
    if other.is_some_and(|s| s.person == person.id) {
        return false;
    }
    match role {
        Role::Author => true,
        Role::Reviewer => other.is_some_and(|s| s.digest == digest) && counts(other_role),
    }
}

/// Write what `review sign` made: each signed entry's signature file, and each signed text
/// not kept yet (see `signatures::save_signoffs`).
pub fn save_signed(reviews_dir: &Path, signed: &[(&Signed, &SignedMaterial)]) -> Result<()> {
    let items: Vec<(&EntryId, &SignOff, &SignedMaterial)> = signed
        .iter()
        .map(|(s, m)| (&s.entry, &s.signoff, *m))
        .collect();
    save_signoffs(reviews_dir, &items)?;
    // A version now signed by both goes into the sign-off log (after its signature file:
    // a log line never names a sign-off that was not written).
    for (s, _) in signed {
        super::log::record(reviews_dir, &s.entry, &s.signoff)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Kind;

    fn sig(person: &str) -> Signature {
        Signature {
            person: person.into(),
            name: person.into(),
            time: DateTime::from_timestamp(1_780_000_000, 0).unwrap(),
            digest: "sha256:x".into(),
            signature: String::new(),
        }
    }

    fn id() -> EntryId {
        EntryId::new(Kind::Term, "occupancy")
    }

    #[test]
    fn refuses_the_author_as_reviewer() {
        let s = SignOff {
            author: Some(sig("author-a")),
            reviewer: None,
            ..Default::default()
        };
        let err = check_signer(&id(), &s, Role::Reviewer, "author-a").unwrap_err();
        assert!(err.to_string().contains("as its author on"), "{err}");
        assert!(check_signer(&id(), &s, Role::Reviewer, "reviewer-b").is_ok());
    }

    #[test]
    fn refuses_the_author_as_reviewer_in_any_spelling() {
        for spelling in [
            "Author-A",
            "AUTHOR-A",
            "author\u{200B}-a",
            "\u{0430}uthor-a",
            "ａｕｔｈｏｒ-ａ",
        ] {
            let s = SignOff {
                author: Some(sig(spelling)),
                reviewer: None,
                ..Default::default()
            };
            let err = check_signer(&id(), &s, Role::Reviewer, "author-a").unwrap_err();
            assert!(
                err.to_string().contains("as its author on"),
                "{spelling}: {err}"
            );
        }
    }

    #[test]
    fn author_may_re_sign_as_author() {
        let s = SignOff {
            author: Some(sig("author-a")),
            reviewer: Some(sig("reviewer-b")),
            ..Default::default()
        };
        assert!(check_signer(&id(), &s, Role::Author, "author-a").is_ok());
    }

    #[test]
    fn re_signing_replaces_only_that_role() {
        let s = SignOff {
            author: Some(sig("author-a")),
            reviewer: Some(sig("reviewer-b")),
            ..Default::default()
        };
        let mut new = sig("author-a");
        new.digest = "sha256:y".into();
        let (out, replaced) = with_signature(s, Role::Author, new);
        assert!(replaced);
        assert_eq!(out.author.unwrap().digest, "sha256:y");
        assert_eq!(out.reviewer.unwrap().digest, "sha256:x");
    }
}
