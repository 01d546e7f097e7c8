//! What the review workflow refuses, in words a signer can act on.

use chrono::NaiveDate;

use super::gate::Role;

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("no entry `{query}` (looked for content/<terms|lessons|guides>/{query}.md)")]
    UnknownEntry { query: String },
    #[error("`{query}` names several entries ({}); say which, e.g. `{}`", .candidates.join(", "), .candidates.first().map(String::as_str).unwrap_or_default())]
    AmbiguousEntry {
        query: String,
        candidates: Vec<String>,
    },
    #[error("no signer name: pass --name NAME, or set git's user.name in {root} (git config user.name \"Your Name\")")]
    NoSignerName { root: String },
    #[error("the signer's name is blank: pass a name with --name")]
    BlankName,
    /// The same person may not hold both roles, however the name is spelled.
    #[error("\"{name}\" is the same person as {other_name}, who signed {entry} as its {other} on {other_date}; a different person must sign as its {role}")]
    SelfReview {
        entry: String,
        role: Role,
        name: String,
        other: Role,
        other_name: String,
        other_date: NaiveDate,
    },
    #[error("{entry} has no signature yet, so there is nothing to compare with (sign it with `glossary review sign`)")]
    NothingSigned { entry: String },
    #[error("{path}: the {role}'s signature holds no signed text to compare with; re-signing records it")]
    NoSignedText { path: String, role: Role },
}

impl From<ReviewError> for crate::error::Error {
    fn from(e: ReviewError) -> Self {
        crate::error::Error::Stage(Box::new(e))
    }
}
