//! The publish gate. Every page kind passes through [`decide`], and nothing else decides
//! whether an entry is published: templates and renderers only read the verdict.

use std::fmt;

use chrono::NaiveDate;
use serde::Serialize;

use super::person::{canonical_name, is_named, same_person};
use super::signatures::{SignOff, Signature};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Author,
    Reviewer,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Author => "author",
            Role::Reviewer => "reviewer",
        })
    }
}

/// What the gate is told about one entry. Gathered by the check stage; the gate itself
/// reads no files.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub signoff: Option<&'a SignOff>,
    /// Digest of the entry's current text and cited records.
    pub digest: &'a str,
    /// Citations that cannot be used: (`experiment/node`, why).
    pub stale: &'a [(String, String)],
    /// Claims the record does not support: (the claim's sentence, the numbers).
    pub unsupported: &'a [(String, String)],
}

/// One reason an entry is refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Refusal {
    NoAuthor,
    NoReviewer,
    SamePerson {
        name: String,
    },
    Changed {
        role: Role,
        name: String,
        date: NaiveDate,
    },
    StaleMeasurement {
        citation: String,
        why: String,
    },
    UnsupportedClaim {
        says: String,
        numbers: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoAuthor => f.write_str("no named author has signed it"),
            Refusal::NoReviewer => f.write_str("no named reviewer has signed it"),
            Refusal::SamePerson { name } => write!(
                f,
                "author and reviewer are the same person ({name}); a different person must review it"
            ),
            Refusal::Changed { role: Role::Reviewer, name, date } => {
                write!(f, "changed since reviewed by {name} on {date}")
            }
            Refusal::Changed { role: Role::Author, name, date } => {
                write!(f, "changed since signed by its author {name} on {date}")
            }
            Refusal::StaleMeasurement { citation, why } => write!(f, "measurement {citation}: {why}"),
            Refusal::UnsupportedClaim { says, numbers } => {
                write!(f, "claim \"{says}\" is not supported by the record: {numbers}")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub refusals: Vec<Refusal>,
}

impl Verdict {
    pub fn is_published(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// Decide whether an entry may be published, listing every reason it may not.
///
/// Published means: a named author and a named reviewer have both signed, they are
/// different people (compared after trimming, case folding and Unicode normalization),
/// both signed the text and records as they are now, every cited measurement is current
/// and from the right node, and every claim holds in the record.
pub fn decide(facts: Facts<'_>) -> Verdict {
    let mut refusals = Vec::new();
    let named = |s: Option<&Signature>| s.filter(|s| is_named(&s.name)).cloned();
    let author = named(facts.signoff.and_then(|s| s.author.as_ref()));
    let reviewer = named(facts.signoff.and_then(|s| s.reviewer.as_ref()));

    if author.is_none() {
        refusals.push(Refusal::NoAuthor);
    }
    if reviewer.is_none() {
        refusals.push(Refusal::NoReviewer);
    }
    if let (Some(a), Some(r)) = (&author, &reviewer) {
        if same_person(&a.name, &r.name) {
            refusals.push(Refusal::SamePerson {
                name: canonical_name(&a.name),
            });
        }
    }
    // The reviewer's signature is the one that matters most; report it first, like a code
    // host dismissing a stale approval.
    for (role, sig) in [(Role::Reviewer, &reviewer), (Role::Author, &author)] {
        if let Some(sig) = sig {
            if sig.digest != facts.digest {
                refusals.push(Refusal::Changed {
                    role,
                    name: sig.name.trim().to_string(),
                    date: sig.date,
                });
            }
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
    Verdict { refusals }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(name: &str, digest: &str) -> Signature {
        Signature {
            name: name.into(),
            date: NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
            digest: digest.into(),
            records: Default::default(),
            text: None,
        }
    }

    fn facts<'a>(s: Option<&'a SignOff>) -> Facts<'a> {
        Facts {
            signoff: s,
            digest: "d1",
            stale: &[],
            unsupported: &[],
        }
    }

    #[test]
    fn publishes_two_distinct_signers_of_current_text() {
        let s = SignOff {
            author: Some(sig("author-a", "d1")),
            reviewer: Some(sig("reviewer-b", "d1")),
        };
        assert!(decide(facts(Some(&s))).is_published());
    }

    #[test]
    fn refuses_unsigned_with_both_reasons() {
        let v = decide(facts(None));
        assert_eq!(v.refusals, vec![Refusal::NoAuthor, Refusal::NoReviewer]);
    }

    #[test]
    fn refuses_entry_signed_twice_by_one_person() {
        for spelling in ["Author One", " author one", "AUTHOR  ONE"] {
            let s = SignOff {
                author: Some(sig("Author One", "d1")),
                reviewer: Some(sig(spelling, "d1")),
            };
            let v = decide(facts(Some(&s)));
            assert!(
                matches!(v.refusals[..], [Refusal::SamePerson { .. }]),
                "{spelling}: {v:?}"
            );
        }
    }

    #[test]
    fn blank_names_do_not_count() {
        let s = SignOff {
            author: Some(sig("  ", "d1")),
            reviewer: Some(sig("reviewer-b", "d1")),
        };
        assert_eq!(decide(facts(Some(&s))).refusals, vec![Refusal::NoAuthor]);
    }

    #[test]
    fn changed_text_names_the_reviewer_and_date() {
        let s = SignOff {
            author: Some(sig("author-a", "d1")),
            reviewer: Some(sig("reviewer-b", "old")),
        };
        let v = decide(facts(Some(&s)));
        assert_eq!(v.refusals.len(), 1);
        assert_eq!(
            v.refusals[0].to_string(),
            "changed since reviewed by reviewer-b on 2026-11-01"
        );
    }
}
