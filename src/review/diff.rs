//! `review diff`: what changed since a signature, in the text and in every cell the page
//! shows (old → new), read from the signed text kept under the signature's digest.

use std::collections::BTreeMap;
use std::fmt;

use chrono::NaiveDate;
use serde::Serialize;
use similar::TextDiff;

use std::path::Path;

use crate::content::{Entry, EntryId};

use super::digest::{SignedMaterial, SignedText};
use super::gate::{Refusal, Role, Verdict};
use super::signatures::{load_text, SignOff};

/// One cell of the page that differs from what was signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellChange {
    pub cell: String,
    /// None: the cell was not on the page when signed (or is not now).
    pub old: Option<String>,
    pub new: Option<String>,
}

impl fmt::Display for CellChange {
    /// Escaped (`visible::Escaped`): a cell may quote a file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::visible::Escaped(PlainCell(self)))
    }
}

/// A [`CellChange`] as made, before escaping.
struct PlainCell<'a>(&'a CellChange);

impl fmt::Display for PlainCell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let this = self.0;
        let multiline = |v: &Option<String>| v.as_deref().is_some_and(|s| s.contains('\n'));
        if multiline(&this.old) || multiline(&this.new) {
            let d = unified_diff(
                this.old.as_deref().unwrap_or_default(),
                this.new.as_deref().unwrap_or_default(),
                &format!("{} as signed", this.cell),
                &format!("{} now", this.cell),
            )
            .unwrap_or_default();
            return f.write_str(&d);
        }
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(not shown)".into());
        writeln!(
            f,
            "{}: {} → {}",
            this.cell,
            show(&this.old),
            show(&this.new)
        )
    }
}

/// Every cell whose value differs between `signed` and `current`, in name order.
pub fn cell_changes(
    signed: &BTreeMap<String, String>,
    current: &BTreeMap<String, String>,
) -> Vec<CellChange> {
    let mut names: Vec<&String> = signed.keys().chain(current.keys()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter_map(|n| {
            let (old, new) = (signed.get(n), current.get(n));
            (old != new).then(|| CellChange {
                cell: n.clone(),
                old: old.cloned(),
                new: new.cloned(),
            })
        })
        .collect()
}

/// Fill each [`Refusal::Changed`] of `verdict` with what differs from what that signer
/// signed: `entry` (renamed), `text`, and the name of each cell that moved. The signed text
/// is read from `reviews` (`content/reviews/texts/`) only for a changed entry; where it is
/// missing the refusal stays as the gate made it.
pub fn explain_changes(
    verdict: &mut Verdict,
    signoff: Option<&SignOff>,
    reviews: &Path,
    entry: &Entry,
    cells: &BTreeMap<String, String>,
) {
    for refusal in &mut verdict.refusals {
        let Refusal::Changed { role, what, .. } = refusal else {
            continue;
        };
        let sig = signoff.and_then(|s| match role {
            Role::Author => s.author.as_ref(),
            Role::Reviewer => s.reviewer.as_ref(),
        });
        let Some(signed) = sig.and_then(|sig| load_text(reviews, &sig.digest)) else {
            continue;
        };
        if signed.entry != entry.id.to_string() {
            what.push("entry".into());
        }
        if signed.text != entry.raw {
            what.push("text".into());
        }
        what.extend(
            cell_changes(&signed.cells, cells)
                .into_iter()
                .map(|c| c.cell),
        );
    }
}

/// The differences between an entry as it is and as its reviewer (else its author) signed it.
#[derive(Debug)]
pub struct SinceSigned {
    pub entry: EntryId,
    pub role: Role,
    pub name: String,
    pub date: NaiveDate,
    /// A unified diff from the signed file to the current file; None when they are equal.
    pub text_diff: Option<String>,
    /// Renamed: the entry signed was another one.
    pub renamed_from: Option<String>,
    pub cells: Vec<CellChange>,
}

impl SinceSigned {
    pub fn new(
        entry: &EntryId,
        role: Role,
        name: &str,
        date: NaiveDate,
        signed: &SignedText,
        now: &SignedMaterial,
    ) -> SinceSigned {
        SinceSigned {
            entry: entry.clone(),
            role,
            name: name.to_string(),
            date,
            text_diff: unified_diff(
                &signed.text,
                &now.text.text,
                &format!("{entry} as signed on {date}"),
                &format!("{entry} now"),
            ),
            renamed_from: (signed.entry != now.text.entry).then(|| signed.entry.clone()),
            cells: cell_changes(&signed.cells, &now.text.cells),
        }
    }

    pub fn is_unchanged(&self) -> bool {
        self.text_diff.is_none() && self.cells.is_empty() && self.renamed_from.is_none()
    }
}

impl fmt::Display for SinceSigned {
    /// Escaped (`visible::Escaped`): the text shown is the entry's, and a terminal must
    /// show its bytes, never obey them (an `ESC[2K` `CR` would erase its line).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::visible::Escaped(PlainDiff(self)))
    }
}

/// A [`SinceSigned`] as made, before escaping.
struct PlainDiff<'a>(&'a SinceSigned);

impl fmt::Display for PlainDiff<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let this = self.0;
        let who = match this.role {
            Role::Reviewer => "reviewed by",
            Role::Author => "signed by its author",
        };
        if this.is_unchanged() {
            return writeln!(
                f,
                "{}: unchanged since {who} {} on {}",
                this.entry, this.name, this.date
            );
        }
        writeln!(
            f,
            "{}: changes since {who} {} on {}",
            this.entry, this.name, this.date
        )?;
        if let Some(from) = &this.renamed_from {
            writeln!(f, "entry: {from} → {}", this.entry)?;
        }
        match &this.text_diff {
            Some(d) => f.write_str(d)?,
            None => writeln!(f, "text: unchanged")?,
        }
        for c in &this.cells {
            write!(f, "{c}")?;
        }
        Ok(())
    }
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
    fn names_each_cell_that_differs_old_to_new() {
        let signed = map(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let now = map(&[("a", "1"), ("b", "9"), ("d", "4")]);
        let got: Vec<String> = cell_changes(&signed, &now)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            got,
            ["b: 2 → 9\n", "c: 3 → (not shown)\n", "d: (not shown) → 4\n",]
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
