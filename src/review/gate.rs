//! The publish gate. Every page kind passes through [`decide`], and nothing else decides
//! whether an entry is published: templates and renderers only read the verdict.

use std::fmt;

use chrono::NaiveDate;
use serde::Serialize;

use crate::content::EntryId;
use crate::trust::sshsig::{self, REVIEW_NAMESPACE};
use crate::trust::{People, Person};

use super::log::{LogLine, LoggedVersion};
use super::signoff::Role;
use super::signoff::{statement, SignOff, Signature};

/// What the gate is told about one entry. Gathered by the check stage; the gate itself
/// reads no files.
#[derive(Clone, Copy)]
pub struct Facts<'a> {
    /// An entry, or a static file (`static/x.html`, `review::static_file`).
    pub entry: &'a dyn fmt::Display,
    pub signoff: Option<&'a SignOff>,
    /// The registry every signature is checked against.
    pub people: &'a People,
    /// Digest of the entry's current text and cited records.
    pub digest: &'a str,
    /// Citations that cannot be used: (`experiment/node`, why).
    pub stale: &'a [(String, String)],
    /// Claims the record does not support: (the claim's sentence, the numbers).
    pub unsupported: &'a [(String, String)],
    /// Claims that hold by less than their experiment's reproducibility band and do not
    /// say why that is acceptable (`fragile_ok`): (the claim's sentence, the margin).
    pub fragile: &'a [(String, String)],
    /// The signatures of `signoff`, already checked ([`check_signoffs`]); None: `decide`
    /// checks them itself.
    pub checked: Option<&'a SignatureChecks>,
}

/// One reason an entry is refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Refusal {
    NoAuthor,
    NoReviewer,
    /// The signature names a person the registry does not have.
    UnknownSigner {
        role: Role,
        person: String,
    },
    /// The signature does not verify against the named person's keys.
    BadSignature {
        role: Role,
        person: String,
        why: String,
    },
    SamePerson {
        name: String,
    },
    /// The signer's display name in people.toml is not the one they signed under.
    NameChanged {
        role: Role,
        person: String,
        signed: String,
        now: String,
    },
    Changed {
        role: Role,
        name: String,
        date: NaiveDate,
        /// What differs from what they signed (`text`, a cell's name such as `figure
        /// terms/fig.svg`), where the signed text was found to compare with
        /// (`diff::explain_changes`); empty when not known.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        what: Vec<String>,
    },
    StaleMeasurement {
        citation: String,
        why: String,
    },
    /// The signed version is older than the latest version both roles signed, by the
    /// sign-off log: an old text and its old sign-off put back.
    RolledBack {
        version: String,
        signed: NaiveDate,
        latest: String,
        latest_signed: NaiveDate,
        /// The roles whose signature predates the latest version: they sign again.
        roles: Vec<Role>,
    },
    UnsupportedClaim {
        says: String,
        numbers: String,
    },
    /// Holds on every kept run, by less than the band runs may differ by.
    FragileClaim {
        says: String,
        why: String,
    },
}

impl Refusal {
    /// A refusal about what the entry's records support (a stale citation, a claim the
    /// runs do not support or support by less than the band), which no signature fixes:
    /// the one list for `review sign`, `review status` and `check --strict`.
    pub fn is_about_measurements(&self) -> bool {
        matches!(
            self,
            Refusal::StaleMeasurement { .. }
                | Refusal::UnsupportedClaim { .. }
                | Refusal::FragileClaim { .. }
        )
    }
}

impl fmt::Display for Refusal {
    /// Escaped (`visible::Escaped`): a reason quotes the entry (a claim's sentence).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::visible::Escaped(PlainRefusal(self)))
    }
}

/// A [`Refusal`] as made, before escaping.
struct PlainRefusal<'a>(&'a Refusal);

impl fmt::Display for PlainRefusal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Refusal::NoAuthor => f.write_str("no named author has signed it"),
            Refusal::NoReviewer => f.write_str("no named reviewer has signed it"),
            Refusal::UnknownSigner { role, person } => write!(
                f,
                "the {role}'s signature names `{person}`, who is not in content/people.toml"
            ),
            Refusal::BadSignature { role, person, why } => {
                write!(f, "the {role}'s signature by `{person}` {why}")
            }
            Refusal::NameChanged { role, person, signed, now } => write!(
                f,
                "the {role} `{person}` signed as {signed:?}, but content/people.toml now names them {now:?}; the byline shows only a signed name, so they must sign again (`glossary review sign`)"
            ),
            Refusal::SamePerson { name } => write!(
                f,
                "author and reviewer are the same person ({name}); a different person must review it"
            ),
            Refusal::Changed { role, name, date, what } => {
                match role {
                    Role::Reviewer => write!(f, "changed since reviewed by {name} on {date}")?,
                    Role::Author => {
                        write!(f, "changed since signed by its author {name} on {date}")?
                    }
                }
                if !what.is_empty() {
                    write!(f, " ({}", what[..what.len().min(SHOWN_CHANGES)].join(", "))?;
                    if what.len() > SHOWN_CHANGES {
                        write!(f, " and {} more", what.len() - SHOWN_CHANGES)?;
                    }
                    write!(f, " changed; `glossary review diff` shows how)")?;
                }
                Ok(())
            }
            Refusal::StaleMeasurement { citation, why } => write!(f, "measurement {citation}: {why}"),
            Refusal::RolledBack { version, signed, latest, latest_signed, .. } => write!(
                f,
                "rolled back: this is version {} (signed by both on {signed}), but version {} was signed by both on {latest_signed} (content/reviews/log/); to publish the older text again, its author and reviewer sign it anew with `glossary review sign`",
                short_digest(version),
                short_digest(latest)
            ),
            Refusal::UnsupportedClaim { says, numbers } => {
                write!(f, "claim \"{says}\" is not supported by the record: {numbers}")
            }
            Refusal::FragileClaim { says, why } => {
                write!(f, "claim \"{says}\" is fragile: {why}")
            }
        }
    }
}

/// A digest as a message names a version: `sha256:` and its first 12 hex digits.
fn short_digest(digest: &str) -> String {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    format!("sha256:{}", hex.get(..12).unwrap_or(hex))
}

/// How many of a changed entry's changes a refusal names (`review diff` shows them all).
const SHOWN_CHANGES: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub refusals: Vec<Refusal>,
}

impl Verdict {
    pub fn is_published(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// Check one signature against the registry: the person it names must be registered and
/// one of their keys must have signed this entry, role, digest and time.
pub fn check_signature<'p>(
    entry: &dyn fmt::Display,
    role: Role,
    sig: &Signature,
    people: &'p People,
) -> Result<&'p Person, Refusal> {
    let person = signer(role, sig, people)?;
    let msg = statement(entry, role, &sig.person, &sig.name, &sig.digest, &sig.time);
    sshsig::verify(
        &sig.signature,
        REVIEW_NAMESPACE,
        msg.as_bytes(),
        &person.keys,
        &sig.person,
    )
    .map_err(|e| bad_signature(role, sig, e))?;
    Ok(person)
}

/// The registered person a signature names.
fn signer<'p>(role: Role, sig: &Signature, people: &'p People) -> Result<&'p Person, Refusal> {
    people
        .get(&sig.person)
        .ok_or_else(|| Refusal::UnknownSigner {
            role,
            person: sig.person.clone(),
        })
}

fn bad_signature(role: Role, sig: &Signature, e: sshsig::VerifyFailure) -> Refusal {
    Refusal::BadSignature {
        role,
        person: sig.person.clone(),
        why: e.to_string(),
    }
}

/// An entry's signatures checked ahead of [`decide`]: what [`check_signature`] found for
/// each one present, and the versions of its sign-off log whose lines verified.
#[derive(Debug, Clone, Default)]
pub struct SignatureChecks {
    author: Option<Result<(), Refusal>>,
    reviewer: Option<Result<(), Refusal>>,
    log: Vec<LoggedVersion>,
}

impl SignatureChecks {
    fn of(&self, role: Role) -> Option<&Result<(), Refusal>> {
        match role {
            Role::Author => self.author.as_ref(),
            Role::Reviewer => self.reviewer.as_ref(),
        }
    }

    fn set(&mut self, role: Role, result: Result<(), Refusal>) {
        match role {
            Role::Author => self.author = Some(result),
            Role::Reviewer => self.reviewer = Some(result),
        }
    }
}

/// Whether a log line can stand for a version both signed, before its signatures are
/// verified: both name its digest, and they are two people (one key holder signing both
/// roles is no sign-off).
fn log_line_shape(line: &LogLine) -> bool {
    line.author.digest == line.digest
        && line.reviewer.digest == line.digest
        && line.author.person != line.reviewer.person
}

/// The versions of `signoff`'s log whose lines verify, one line at a time (what
/// [`check_signoffs`] finds in batches).
fn verified_log(
    entry: &dyn fmt::Display,
    signoff: &SignOff,
    people: &People,
) -> Vec<LoggedVersion> {
    let ok: Vec<bool> = signoff
        .log
        .iter()
        .map(|l| {
            log_line_shape(l)
                && check_signature(entry, Role::Author, &l.author, people).is_ok()
                && check_signature(entry, Role::Reviewer, &l.reviewer, people).is_ok()
        })
        .collect();
    super::log::versions(&signoff.log, &ok)
}

/// What a signature checked in [`check_signoffs`] belongs to.
#[derive(Clone, Copy)]
enum Slot {
    /// The sign-off file's signature (of the role beside it).
    SignOff,
    /// Line `.0` of the sign-off log.
    Log(usize),
}

/// [`check_signature`] for every signature of many entries at once (in the entries'
/// order), verified together (`sshsig::verify_all`): a build checks two signatures per
/// entry, and verifying them one by one was a tenth of its time. The sign-off log's lines
/// are verified in the same batch, two signatures a line.
///
/// `verified`: the build cache of signatures verified before (`sshsig::verify_all_cached`).
pub fn check_signoffs(
    entries: &[(&EntryId, Option<&SignOff>)],
    people: &People,
    verified: Option<&crate::build_cache::Store>,
) -> Vec<SignatureChecks> {
    let mut checks = vec![SignatureChecks::default(); entries.len()];
    // Per entry, per log line: whether it still may verify.
    let mut log_ok: Vec<Vec<bool>> = entries
        .iter()
        .map(|(_, s)| {
            s.map(|s| s.log.iter().map(log_line_shape).collect())
                .unwrap_or_default()
        })
        .collect();
    let mut pending: Vec<(usize, Slot, Role, &Signature, &Person, String)> = Vec::new();
    for (k, (entry, signoff)) in entries.iter().enumerate() {
        let roles = [
            (Role::Author, signoff.and_then(|s| s.author.as_ref())),
            (Role::Reviewer, signoff.and_then(|s| s.reviewer.as_ref())),
        ];
        let lines = signoff.map(|s| s.log.as_slice()).unwrap_or_default();
        let log_sigs = lines.iter().enumerate().flat_map(|(i, l)| {
            [
                (Slot::Log(i), Role::Author, &l.author),
                (Slot::Log(i), Role::Reviewer, &l.reviewer),
            ]
        });
        let sigs = roles
            .into_iter()
            .filter_map(|(role, sig)| Some((Slot::SignOff, role, sig?)))
            .chain(log_sigs);
        for (slot, role, sig) in sigs {
            if let Slot::Log(i) = slot {
                if !log_ok[k][i] {
                    continue;
                }
            }
            match (signer(role, sig, people), slot) {
                (Ok(person), _) => {
                    let msg =
                        statement(entry, role, &sig.person, &sig.name, &sig.digest, &sig.time);
                    pending.push((k, slot, role, sig, person, msg));
                }
                (Err(refusal), Slot::SignOff) => checks[k].set(role, Err(refusal)),
                (Err(_), Slot::Log(i)) => log_ok[k][i] = false,
            }
        }
    }
    let requests: Vec<sshsig::Request<'_>> = pending
        .iter()
        .map(|(_, _, _, sig, person, msg)| sshsig::Request {
            armored: &sig.signature,
            namespace: REVIEW_NAMESPACE,
            msg: msg.as_bytes(),
            keys: &person.keys,
            whom: &sig.person,
        })
        .collect();
    let verified = sshsig::verify_all_cached(&requests, verified);
    for ((k, slot, role, sig, _, _), v) in pending.iter().zip(verified) {
        match slot {
            Slot::SignOff => checks[*k].set(*role, v.map_err(|e| bad_signature(*role, sig, e))),
            Slot::Log(i) => log_ok[*k][*i] &= v.is_ok(),
        }
    }
    for (k, (_, signoff)) in entries.iter().enumerate() {
        if let Some(s) = signoff {
            checks[k].log = super::log::versions(&s.log, &log_ok[k]);
        }
    }
    checks
}

/// Decide whether an entry may be published, listing every reason it may not.
///
/// Published means: a registered author and a different registered reviewer have both
/// signed with one of their registered keys, both signed the entry as it is now (its
/// text and every number it shows), every cited measurement is current, signed by its
/// node and from the right node, and every claim holds in the record.
pub fn decide(facts: Facts<'_>) -> Verdict {
    let mut refusals = Vec::new();
    let mut checked = |role: Role, sig: Option<&Signature>| -> Option<(Signature, String)> {
        let sig = sig?;
        let known = facts.checked.and_then(|c| c.of(role)).cloned();
        let checked = match known {
            Some(r) => r.and_then(|()| signer(role, sig, facts.people)),
            None => check_signature(facts.entry, role, sig, facts.people),
        };
        match checked {
            // Verified, under the name they signed; the byline reads people.toml, so the two
            // must agree.
            Ok(p) if p.name != sig.name => {
                refusals.push(Refusal::NameChanged {
                    role,
                    person: sig.person.clone(),
                    signed: sig.name.clone(),
                    now: p.name.clone(),
                });
                None
            }
            Ok(p) => Some((sig.clone(), p.name.clone())),
            Err(r) => {
                refusals.push(r);
                None
            }
        }
    };
    let author_sig = facts.signoff.and_then(|s| s.author.as_ref());
    let reviewer_sig = facts.signoff.and_then(|s| s.reviewer.as_ref());
    let author = checked(Role::Author, author_sig);
    let reviewer = checked(Role::Reviewer, reviewer_sig);

    // A signature that is there but does not count was reported above, with its reason.
    if author_sig.is_none() {
        refusals.push(Refusal::NoAuthor);
    }
    if reviewer_sig.is_none() {
        refusals.push(Refusal::NoReviewer);
    }
    if let (Some((a, name)), Some((r, _))) = (&author, &reviewer) {
        // Ids, not names: two names of one key holder cannot both be registered (the
        // registry refuses one key under two ids and look-alike names).
        if a.person == r.person {
            refusals.push(Refusal::SamePerson { name: name.clone() });
        }
    }
    // The reviewer's signature is the one that matters most; report it first, like a code
    // host dismissing a stale approval.
    for (role, sig) in [(Role::Reviewer, &reviewer), (Role::Author, &author)] {
        if let Some((sig, name)) = sig {
            if sig.digest != facts.digest {
                refusals.push(Refusal::Changed {
                    role,
                    name: name.clone(),
                    date: sig.date(),
                    what: Vec::new(),
                });
            }
        }
    }
    // Both signatures count and agree on a version: it must not be older than the latest
    // version both signed (the sign-off log, its verified lines only), or a correction
    // could be quietly undone.
    if let (Some(signoff), Some((a, _)), Some((r, _))) = (facts.signoff, &author, &reviewer) {
        let versions = match facts.checked {
            Some(c) => std::borrow::Cow::Borrowed(&c.log),
            None => std::borrow::Cow::Owned(verified_log(facts.entry, signoff, facts.people)),
        };
        let pair = SignOff {
            author: Some(a.clone()),
            reviewer: Some(r.clone()),
            log: Vec::new(),
        };
        if let Some((version, signed, latest, roles)) = super::log::rollback(&pair, &versions) {
            refusals.push(Refusal::RolledBack {
                roles,
                version,
                signed: signed.date_naive(),
                latest: latest.digest.clone(),
                latest_signed: latest.signed.date_naive(),
            });
        }
    }
    for (citation, why) in facts.stale {
        refusals.push(Refusal::StaleMeasurement {
            citation: citation.clone(),
            why: why.clone(),
        });
    }
    for (says, numbers) in facts.unsupported {
        refusals.push(Refusal::UnsupportedClaim {
            says: says.clone(),
            numbers: numbers.clone(),
        });
    }
    for (says, why) in facts.fragile {
        refusals.push(Refusal::FragileClaim {
            says: says.clone(),
            why: why.clone(),
        });
    }
    Verdict { refusals }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Kind;
    use crate::trust::Signer;

    fn key(n: u8) -> Signer {
        Signer::ed25519_from_seed(&[n; 32], "t").unwrap()
    }

    fn people() -> People {
        let line = |n| key(n).public_key().to_openssh().unwrap();
        let text = format!(
            "[[person]]\nid = \"author-a\"\nname = \"Author A\"\nkeys = [\"{}\"]\n[[person]]\nid = \"reviewer-b\"\nname = \"Reviewer B\"\nkeys = [\"{}\"]\n",
            line(1),
            line(2)
        );
        People::parse(std::path::Path::new("people.toml"), &text).unwrap()
    }

    fn entry() -> EntryId {
        EntryId::new(Kind::Term, "occupancy")
    }

    /// The name `people()` gives `person`.
    fn display_name(person: &str) -> String {
        match person {
            "author-a" => "Author A".into(),
            "reviewer-b" => "Reviewer B".into(),
            other => other.into(),
        }
    }

    fn sig(entry: &EntryId, role: Role, person: &str, k: u8, digest: &str) -> Signature {
        let time = chrono::DateTime::parse_from_rfc3339("2026-11-01T10:00:00Z")
            .unwrap()
            .to_utc();
        let name = display_name(person);
        let msg = statement(entry, role, person, &name, digest, &time);
        Signature {
            person: person.into(),
            name,
            time,
            digest: digest.into(),
            signature: key(k).sign(REVIEW_NAMESPACE, msg.as_bytes()).unwrap(),
        }
    }

    fn decide_with(s: Option<&SignOff>) -> Verdict {
        let p = people();
        decide(Facts {
            entry: &entry(),
            signoff: s,
            people: &p,
            digest: "d1",
            stale: &[],
            unsupported: &[],
            fragile: &[],
            checked: None,
        })
    }

    fn both(author: Signature, reviewer: Signature) -> SignOff {
        SignOff {
            author: Some(author),
            reviewer: Some(reviewer),
            ..Default::default()
        }
    }

    #[test]
    fn publishes_two_registered_signers_of_current_text() {
        let e = entry();
        let s = both(
            sig(&e, Role::Author, "author-a", 1, "d1"),
            sig(&e, Role::Reviewer, "reviewer-b", 2, "d1"),
        );
        assert!(decide_with(Some(&s)).is_published());
    }

    #[test]
    fn refuses_unsigned_with_both_reasons() {
        let v = decide_with(None);
        assert_eq!(v.refusals, vec![Refusal::NoAuthor, Refusal::NoReviewer]);
    }

    #[test]
    fn refuses_a_signature_copied_from_another_entry() {
        let other = EntryId::new(Kind::Term, "warp");
        let s = both(
            sig(&entry(), Role::Author, "author-a", 1, "d1"),
            sig(&other, Role::Reviewer, "reviewer-b", 2, "d1"),
        );
        let v = decide_with(Some(&s));
        assert!(
            matches!(&v.refusals[..], [Refusal::BadSignature { role: Role::Reviewer, why, .. }] if why.contains("does not verify")),
            "{v:?}"
        );
    }

    #[test]
    fn refuses_an_altered_digest() {
        let e = entry();
        let mut r = sig(&e, Role::Reviewer, "reviewer-b", 2, "d0");
        r.digest = "d1".into();
        let v = decide_with(Some(&both(sig(&e, Role::Author, "author-a", 1, "d1"), r)));
        assert_eq!(v.refusals.len(), 1, "{v:?}");
        assert!(
            v.refusals[0].to_string().contains("does not verify"),
            "{v:?}"
        );
    }

    #[test]
    fn refuses_a_key_not_registered_to_the_named_person() {
        let e = entry();
        // Signed with key 3, which nobody registered, in reviewer-b's name.
        let v = decide_with(Some(&both(
            sig(&e, Role::Author, "author-a", 1, "d1"),
            sig(&e, Role::Reviewer, "reviewer-b", 3, "d1"),
        )));
        assert!(
            v.refusals[0]
                .to_string()
                .contains("not registered to reviewer-b"),
            "{v:?}"
        );
        // Signed with the author's key in the reviewer's name.
        let v = decide_with(Some(&both(
            sig(&e, Role::Author, "author-a", 1, "d1"),
            sig(&e, Role::Reviewer, "reviewer-b", 1, "d1"),
        )));
        assert!(
            v.refusals[0]
                .to_string()
                .contains("not registered to reviewer-b"),
            "{v:?}"
        );
    }

    #[test]
    fn refuses_an_unknown_person() {
        let e = entry();
        let v = decide_with(Some(&both(
            sig(&e, Role::Author, "author-a", 1, "d1"),
            sig(&e, Role::Reviewer, "someone", 2, "d1"),
        )));
        assert_eq!(
            v.refusals[0].to_string(),
            "the reviewer's signature names `someone`, who is not in content/people.toml"
        );
    }

    #[test]
    fn refuses_one_person_in_both_roles() {
        let e = entry();
        let v = decide_with(Some(&both(
            sig(&e, Role::Author, "author-a", 1, "d1"),
            sig(&e, Role::Reviewer, "author-a", 1, "d1"),
        )));
        assert!(
            matches!(&v.refusals[..], [Refusal::SamePerson { .. }]),
            "{v:?}"
        );
    }

    /// Issue 37: the display name is signed. Renamed in people.toml after sign-off, the
    /// signature stops counting (the byline cannot change unsigned); a signature whose
    /// recorded name was edited to match no longer verifies.
    #[test]
    fn a_renamed_signer_must_sign_again() {
        let e = entry();
        let s = both(
            sig(&e, Role::Author, "author-a", 1, "d1"),
            sig(&e, Role::Reviewer, "reviewer-b", 2, "d1"),
        );
        let renamed = People::parse(
            std::path::Path::new("people.toml"),
            &format!(
                "[[person]]\nid = \"author-a\"\nname = \"Mallory Author\"\nkeys = [\"{}\"]\n[[person]]\nid = \"reviewer-b\"\nname = \"Reviewer B\"\nkeys = [\"{}\"]\n",
                key(1).public_key().to_openssh().unwrap(),
                key(2).public_key().to_openssh().unwrap()
            ),
        )
        .unwrap();
        let verdict = |s: &SignOff| {
            decide(Facts {
                entry: &e,
                signoff: Some(s),
                people: &renamed,
                digest: "d1",
                stale: &[],
                unsupported: &[],
                fragile: &[],
                checked: None,
            })
        };
        let v = verdict(&s);
        assert_eq!(v.refusals.len(), 1, "{v:?}");
        assert_eq!(
            v.refusals[0].to_string(),
            "the author `author-a` signed as \"Author A\", but content/people.toml now names them \"Mallory Author\"; the byline shows only a signed name, so they must sign again (`glossary review sign`)"
        );
        let mut edited = s.clone();
        edited.author.as_mut().unwrap().name = "Mallory Author".into();
        let v = verdict(&edited);
        assert!(
            matches!(
                &v.refusals[..],
                [Refusal::BadSignature {
                    role: Role::Author,
                    ..
                }]
            ),
            "{v:?}"
        );
    }

    #[test]
    fn changed_text_names_the_reviewer_and_date() {
        let e = entry();
        let v = decide_with(Some(&both(
            sig(&e, Role::Author, "author-a", 1, "d1"),
            sig(&e, Role::Reviewer, "reviewer-b", 2, "old"),
        )));
        assert_eq!(v.refusals.len(), 1);
        assert_eq!(
            v.refusals[0].to_string(),
            "changed since reviewed by Reviewer B on 2026-11-01"
        );
    }

    fn sig_at(role: Role, person: &str, k: u8, digest: &str, secs: i64) -> Signature {
        let e = entry();
        let time = chrono::DateTime::from_timestamp(1_790_000_000 + secs, 0).unwrap();
        let name = display_name(person);
        let msg = statement(&e, role, person, &name, digest, &time);
        Signature {
            person: person.into(),
            name,
            time,
            digest: digest.into(),
            signature: key(k).sign(REVIEW_NAMESPACE, msg.as_bytes()).unwrap(),
        }
    }

    fn log_line(n: usize, a: &Signature, r: &Signature) -> LogLine {
        LogLine {
            line: n,
            digest: a.digest.clone(),
            author: a.clone(),
            reviewer: r.clone(),
        }
    }

    /// The verdict on `s` (current text `d0`), with its signatures checked by `decide`
    /// itself and by `check_signoffs` as a build does: the two must agree.
    fn verdict_both_ways(s: &SignOff) -> Verdict {
        let (p, e) = (people(), entry());
        let facts = |checked| Facts {
            entry: &e,
            signoff: Some(s),
            people: &p,
            digest: "d0",
            stale: &[],
            unsupported: &[],
            fragile: &[],
            checked,
        };
        let alone = decide(facts(None));
        let checks = check_signoffs(&[(&e, Some(s))], &p, None);
        let batched = decide(facts(Some(&checks[0])));
        assert_eq!(alone, batched);
        alone
    }

    fn rolled_back(v: &Verdict) -> bool {
        v.refusals
            .iter()
            .any(|r| matches!(r, Refusal::RolledBack { .. }))
    }

    /// Issue 53: the sign-off log is verified, not believed. Only lines whose two
    /// signatures verify, by two people, on the line's digest, count; the time is theirs.
    #[test]
    fn only_verified_log_lines_decide_the_latest_version() {
        let (a1, r1) = (
            sig_at(Role::Author, "author-a", 1, "d0", 10),
            sig_at(Role::Reviewer, "reviewer-b", 2, "d0", 20),
        );
        let (a2, r2) = (
            sig_at(Role::Author, "author-a", 1, "d1", 30),
            sig_at(Role::Reviewer, "reviewer-b", 2, "d1", 40),
        );
        let v1 = |log: Vec<LogLine>| SignOff {
            author: Some(a1.clone()),
            reviewer: Some(r1.clone()),
            log,
        };
        // v1 put back after v2: refused.
        let v = verdict_both_ways(&v1(vec![log_line(1, &a1, &r1), log_line(2, &a2, &r2)]));
        assert!(rolled_back(&v), "{v:?}");
        assert!(v.refusals[0].to_string().contains("rolled back"), "{v:?}");
        // No log: nothing to roll back past.
        assert!(verdict_both_ways(&v1(vec![])).is_published());
        // The latest line forged: signed by the wrong key, or by one person in both roles,
        // or naming a digest its signatures do not: it does not count.
        let forged_key = sig_at(Role::Reviewer, "reviewer-b", 3, "d1", 40);
        let self_reviewed = sig_at(Role::Reviewer, "author-a", 1, "d1", 40);
        let mut relabelled = log_line(2, &a2, &r2);
        relabelled.digest = "d9".into();
        for forged in [
            log_line(2, &a2, &forged_key),
            log_line(2, &a2, &self_reviewed),
            relabelled,
        ] {
            let v = verdict_both_ways(&v1(vec![log_line(1, &a1, &r1), forged.clone()]));
            assert!(v.is_published(), "{forged:?}: {v:?}");
        }
        // v1's line copied after v2's (as a replay with a later `signed` would read):
        // still v1's time, and still a rollback.
        let v = verdict_both_ways(&v1(vec![
            log_line(1, &a1, &r1),
            log_line(2, &a2, &r2),
            log_line(3, &a1, &r1),
        ]));
        assert!(rolled_back(&v), "{v:?}");
        // Two versions signed at the same second: the log's order decides.
        let (t1a, t1r) = (
            sig_at(Role::Author, "author-a", 1, "d0", 50),
            sig_at(Role::Reviewer, "reviewer-b", 2, "d0", 50),
        );
        let (t2a, t2r) = (
            sig_at(Role::Author, "author-a", 1, "d1", 50),
            sig_at(Role::Reviewer, "reviewer-b", 2, "d1", 50),
        );
        let tied = SignOff {
            author: Some(t1a.clone()),
            reviewer: Some(t1r.clone()),
            log: vec![log_line(1, &t1a, &t1r), log_line(2, &t2a, &t2r)],
        };
        assert!(rolled_back(&verdict_both_ways(&tied)));
    }
}
