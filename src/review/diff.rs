//! `review diff`: what changed since a signature, in the text and in the cited records.

use std::collections::BTreeMap;
use std::fmt;

use chrono::NaiveDate;
use serde::Serialize;
use similar::TextDiff;

use crate::content::EntryId;
use crate::error::Result;

use super::digest::signed_digest;
use super::error::ReviewError;
use super::gate::Role;
use super::input::ReviewInput;
use super::signatures::{signoff_path, Signature};

/// How one cited record differs from what a signer saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordChange {
    /// `experiment/node`.
    pub citation: String,
    #[serde(rename = "change")]
    pub kind: RecordChangeKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordChangeKind {
    /// Cited then and now, but the record file differs (re-measured, or edited).
    Changed,
    /// Cited now, not when signed.
    NewlyCited,
    /// Cited when signed, no longer cited.
    NoLongerCited,
}

impl fmt::Display for RecordChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            RecordChangeKind::Changed => "changed since signed (re-measured or edited)",
            RecordChangeKind::NewlyCited => "cited now, not when signed",
            RecordChangeKind::NoLongerCited => "cited when signed, no longer cited",
        };
        write!(f, "record {}: {what}", self.citation)
    }
}

/// Compare per-record digests at signing with the current ones.
pub fn record_changes(
    signed: &BTreeMap<String, String>,
    current: &BTreeMap<String, String>,
) -> Vec<RecordChange> {
    let mut out = Vec::new();
    for (citation, now) in current {
        let kind = match signed.get(citation) {
            Some(then) if then == now => continue,
            Some(_) => RecordChangeKind::Changed,
            None => RecordChangeKind::NewlyCited,
        };
        out.push(RecordChange {
            citation: citation.clone(),
            kind,
        });
    }
    for citation in signed.keys().filter(|c| !current.contains_key(*c)) {
        out.push(RecordChange {
            citation: citation.clone(),
            kind: RecordChangeKind::NoLongerCited,
        });
    }
    out
}

/// The differences between an entry as it is and as its reviewer (else its author) signed it.
#[derive(Debug)]
pub struct SinceSigned {
    pub entry: EntryId,
    pub role: Role,
    pub name: String,
    pub date: NaiveDate,
    /// A unified diff from the signed text to the current text; None when they are equal.
    pub text_diff: Option<String>,
    pub records: Vec<RecordChange>,
}

impl SinceSigned {
    pub fn is_unchanged(&self) -> bool {
        self.text_diff.is_none() && self.records.is_empty()
    }
}

impl fmt::Display for SinceSigned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = match self.role {
            Role::Reviewer => "reviewed by",
            Role::Author => "signed by its author",
        };
        if self.is_unchanged() {
            return writeln!(
                f,
                "{}: unchanged since {who} {} on {}",
                self.entry, self.name, self.date
            );
        }
        writeln!(
            f,
            "{}: changes since {who} {} on {}",
            self.entry, self.name, self.date
        )?;
        match &self.text_diff {
            Some(d) => f.write_str(d)?,
            None => writeln!(f, "text: unchanged")?,
        }
        for r in &self.records {
            writeln!(f, "{r}")?;
        }
        Ok(())
    }
}

/// Diff `entry` against the text its reviewer signed, or its author's when no reviewer has.
pub fn diff_since_signed(input: &ReviewInput<'_>, entry: &EntryId) -> Result<SinceSigned> {
    let e = input.entry(entry)?;
    let signoff = input.signoffs.get(entry);
    let (role, sig): (Role, &Signature) = match signoff {
        Some(s) => match (&s.reviewer, &s.author) {
            (Some(r), _) => (Role::Reviewer, r),
            (None, Some(a)) => (Role::Author, a),
            (None, None) => return Err(nothing_signed(entry)),
        },
        None => return Err(nothing_signed(entry)),
    };
    let signed_text = sig
        .text
        .as_deref()
        .ok_or_else(|| ReviewError::NoSignedText {
            path: signoff_path(&input.reviews, entry).display().to_string(),
            role,
        })?;
    let current = signed_digest(e, input.library);
    Ok(SinceSigned {
        entry: entry.clone(),
        role,
        name: sig.name.trim().to_string(),
        date: sig.date,
        text_diff: unified_diff(
            signed_text,
            &e.raw,
            &format!("{entry} as signed on {}", sig.date),
            &format!("{entry} now"),
        ),
        records: record_changes(&sig.records, &current.records),
    })
}

fn nothing_signed(entry: &EntryId) -> crate::error::Error {
    ReviewError::NothingSigned {
        entry: entry.to_string(),
    }
    .into()
}

fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> Option<String> {
    if old == new {
        return None;
    }
    let diff = TextDiff::from_lines(old, new);
    let mut out = diff
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string();
    // A text whose last line lacks a newline would run into the next line printed.
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn names_each_record_that_differs() {
        let signed = map(&[("a/h200", "1"), ("b/h200", "2"), ("c/h200", "3")]);
        let now = map(&[("a/h200", "1"), ("b/h200", "9"), ("d/h200", "4")]);
        let got: Vec<String> = record_changes(&signed, &now)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            got,
            [
                "record b/h200: changed since signed (re-measured or edited)",
                "record d/h200: cited now, not when signed",
                "record c/h200: cited when signed, no longer cited",
            ]
        );
    }

    #[test]
    fn diff_shows_removed_and_added_lines() {
        let d = unified_diff("one\ntwo\nthree\n", "one\n2\nthree\n", "old", "new").unwrap();
        assert!(d.starts_with("--- old\n+++ new\n"), "{d}");
        assert!(d.contains("\n-two\n+2\n"), "{d}");
        assert_eq!(unified_diff("same\n", "same\n", "a", "b"), None);
    }
}
