//! What the review workflow refuses, in words a signer can act on.

use chrono::NaiveDate;

use super::signoff::Role;

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("no entry `{query}` (looked for content/<terms|lessons|guides|sections>/{query}.md)")]
    UnknownEntry { query: String },
    #[error("`{query}` names several entries ({}); say which, e.g. `{}`", .candidates.join(", "), .candidates.first().map(String::as_str).unwrap_or_default())]
    AmbiguousEntry {
        query: String,
        candidates: Vec<String>,
    },
    /// The hint's command works inside a git repository and outside one (a project need
    /// not be one): `--global`, as git's own instructions for SSH signing say.
    #[error("no signing key: pass --key FILE (your SSH private key), or set git's user.signingkey, the key you sign commits with: `git config --global user.signingkey ~/.ssh/id_ed25519.pub`")]
    NoSigningKey,
    #[error("signing key: {0}")]
    Key(String),
    #[error("key {fingerprint} is not registered to anyone in {people}: add its public half under your [[person]] there (a maintainer reviews that change)")]
    KeyNotRegistered { fingerprint: String, people: String },
    /// The same person may not hold both roles.
    #[error("{person} signed {entry} as its {other} on {other_date}; a different person must sign as its {role}")]
    SelfReview {
        entry: String,
        role: Role,
        person: String,
        other: Role,
        other_date: NaiveDate,
    },
    #[error("{entry} has no signature yet, so there is nothing to compare with (sign it with `glossary review sign`)")]
    NothingSigned { entry: String },
    #[error("{path}: the text the {role} signed is not kept (or does not match its digest); re-signing keeps it")]
    NoSignedText { path: String, role: Role },
    #[error("name the entries to sign, or pass --all-waiting")]
    NothingToSign,
}

impl From<ReviewError> for crate::error::Error {
    fn from(e: ReviewError) -> Self {
        crate::error::Error::Stage(Box::new(e))
    }
}
