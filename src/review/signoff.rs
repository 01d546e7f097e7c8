//! What a sign-off is: a role, one person's signature on one version of an entry, the
//! statement their key signs, and an entry's pair of signatures. Plain data that the gate,
//! the signature files and signing all read; it imports none of them, so they form no
//! circle (`tests/layering.rs`).

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[allow(unused_imports)]
use crate::content::EntryId;

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

/// One person's signature on one version of an entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    /// The signer's id in `content/people.toml`.
    pub person: String,
    /// Their display name there when they signed: signed too, and what the byline shows.
    /// A name changed in people.toml since no longer matches, and the signature stops
    /// counting until they sign again (`gate::decide`), so the published byline never
    /// changes without its owner's signature.
    pub name: String,
    pub time: DateTime<Utc>,
    /// Digest of what was signed (see `signed_material`); names its file under `texts/`.
    pub digest: String,
    /// `-----BEGIN SSH SIGNATURE-----`, namespace `glossary-review`, over [`statement`].
    pub signature: String,
}

impl Signature {
    pub fn date(&self) -> chrono::NaiveDate {
        self.time.date_naive()
    }
}

/// The exact bytes a signer's key signs: which entry, in which role, by whom under which
/// display name, which digest, when. A signature copied to another entry, role or person,
/// or with another name, digest or time, no longer verifies. The name is quoted (Rust's
/// debug form), so no name can end its line and pass for another field.
/// `entry` is an [`EntryId`] (`terms/occupancy`) or a static file (`static/x.html`); the
/// two never spell the same.
pub fn statement(
    entry: &dyn fmt::Display,
    role: Role,
    person: &str,
    name: &str,
    digest: &str,
    time: &DateTime<Utc>,
) -> String {
    format!(
        "glossary sign-off v2\nentry: {entry}\nrole: {role}\nperson: {person}\nname: {name:?}\ndigest: {digest}\ntime: {}\n",
        time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    )
}

/// The signatures on one entry.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SignOff {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Signature>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<Signature>,
    /// The lines of the entry's sign-off log (`log`), read with the signature file and
    /// not yet verified (the gate verifies them): not part of the file.
    #[serde(skip)]
    pub log: Vec<super::log::LogLine>,
}

impl SignOff {
    /// Drop the SSH signatures' text and the log's lines, once verified (the checks keep
    /// the log's verified versions): a build then needs only who signed, when, and which
    /// digest (about 1 KB an entry, and 2 KB a log line, it need not hold).
    pub fn thin(&mut self) {
        self.log = Vec::new();
        for s in [&mut self.author, &mut self.reviewer].into_iter().flatten() {
            s.signature = String::new();
        }
    }
}
