//! `review sign`: record that a named person read this text and these numbers.

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::NaiveDate;

use crate::content::EntryId;
use crate::error::Result;

use super::digest::signed_digest;
use super::error::ReviewError;
use super::gate::Role;
use super::input::ReviewInput;
use super::person::{is_named, same_person};
use super::signatures::{save_signoff, SignOff, Signature};

/// What a successful signing did.
#[derive(Debug)]
pub struct Signed {
    pub entry: EntryId,
    pub role: Role,
    pub signature: Signature,
    /// The signature file written.
    pub path: PathBuf,
    /// Whether this replaced an earlier signature in the same role.
    pub replaced: bool,
    /// The other role's signature, when it covers different content than was just signed:
    /// it stays in the file, but counts as "changed" until its signer signs again.
    pub other_out_of_date: Option<(Role, Signature)>,
}

/// Sign `entry` as `role` under `name`, dated `today`. The project must have loaded, so a
/// signature file that does not parse stops signing before anything is written.
pub fn sign(
    input: &ReviewInput<'_>,
    entry: &EntryId,
    role: Role,
    name: &str,
    today: NaiveDate,
) -> Result<Signed> {
    let e = input.entry(entry)?;
    let existing = input.signoffs.get(entry).cloned().unwrap_or_default();
    check_signer(entry, &existing, role, name)?;
    let material = signed_digest(e, input.library);
    let signature = Signature {
        name: name.trim().to_string(),
        date: today,
        digest: material.digest.clone(),
        records: material.records,
        text: Some(e.raw.clone()),
    };
    let (updated, replaced) = with_signature(existing, role, signature.clone());
    let path = save_signoff(&input.reviews, entry, &updated)?;
    let other = match role {
        Role::Author => updated.reviewer.map(|s| (Role::Reviewer, s)),
        Role::Reviewer => updated.author.map(|s| (Role::Author, s)),
    };
    Ok(Signed {
        entry: entry.clone(),
        role,
        signature,
        path,
        replaced,
        other_out_of_date: other.filter(|(_, s)| s.digest != material.digest),
    })
}

/// Refuse a blank name, and refuse one person in both roles, in any spelling. Checked at
/// sign time so the mistake is caught by the person making it, not at the next build.
pub fn check_signer(
    entry: &EntryId,
    existing: &SignOff,
    role: Role,
    name: &str,
) -> std::result::Result<(), ReviewError> {
    if !is_named(name) {
        return Err(ReviewError::BlankName);
    }
    let (other_role, other) = match role {
        Role::Author => (Role::Reviewer, existing.reviewer.as_ref()),
        Role::Reviewer => (Role::Author, existing.author.as_ref()),
    };
    match other {
        Some(o) if same_person(&o.name, name) => Err(ReviewError::SelfReview {
            entry: entry.to_string(),
            role,
            name: name.trim().to_string(),
            other: other_role,
            other_name: o.name.trim().to_string(),
            other_date: o.date,
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

/// git's `user.name` as seen from `root` (so a repository's own setting wins), if any.
pub fn git_user_name(root: &Path) -> Option<String> {
    let out = Command::new("git")
        .args(["config", "user.name"])
        .current_dir(root)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let name = String::from_utf8(out.stdout).ok()?;
    is_named(&name).then(|| name.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Kind;

    fn sig(name: &str) -> Signature {
        Signature {
            name: name.into(),
            date: NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
            digest: "sha256:x".into(),
            records: Default::default(),
            text: None,
        }
    }

    fn id() -> EntryId {
        EntryId::new(Kind::Term, "occupancy")
    }

    #[test]
    fn refuses_the_author_as_reviewer_in_any_spelling() {
        let s = SignOff {
            author: Some(sig("Author A")),
            reviewer: None,
        };
        for spelling in [
            "Author A",
            " author a",
            "AUTHOR  A",
            "Ａｕｔｈｏｒ Ａ",
            "author\ta ",
        ] {
            let err = check_signer(&id(), &s, Role::Reviewer, spelling).unwrap_err();
            assert!(
                matches!(err, ReviewError::SelfReview { .. }),
                "{spelling:?}: {err}"
            );
            assert!(err.to_string().contains("as its author on"), "{err}");
        }
        assert!(check_signer(&id(), &s, Role::Reviewer, "Reviewer B").is_ok());
    }

    #[test]
    fn refuses_the_reviewer_as_author() {
        let s = SignOff {
            author: None,
            reviewer: Some(sig("reviewer-b")),
        };
        let err = check_signer(&id(), &s, Role::Author, "Reviewer-B").unwrap_err();
        assert!(err.to_string().contains("as its reviewer on"), "{err}");
    }

    #[test]
    fn author_may_re_sign_as_author() {
        let s = SignOff {
            author: Some(sig("author-a")),
            reviewer: Some(sig("reviewer-b")),
        };
        assert!(check_signer(&id(), &s, Role::Author, "author-a").is_ok());
    }

    #[test]
    fn refuses_a_blank_name() {
        let err = check_signer(&id(), &SignOff::default(), Role::Author, " \t").unwrap_err();
        assert!(matches!(err, ReviewError::BlankName));
    }

    #[test]
    fn re_signing_replaces_only_that_role() {
        let s = SignOff {
            author: Some(sig("author-a")),
            reviewer: Some(sig("reviewer-b")),
        };
        let mut new = sig("author-a");
        new.digest = "sha256:y".into();
        let (out, replaced) = with_signature(s, Role::Author, new);
        assert!(replaced);
        assert_eq!(out.author.unwrap().digest, "sha256:y");
        assert_eq!(out.reviewer.unwrap().digest, "sha256:x");
    }
}
