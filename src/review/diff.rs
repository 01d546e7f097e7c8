//! `review diff`: what changed since a signature, in the text and in every cell the page
//! shows (old → new), read from the signed text kept under the signature's digest.

use std::collections::BTreeMap;
use std::fmt;

use chrono::NaiveDate;
use serde::Serialize;
use similar::udiff::UnifiedHunkHeader;
use similar::{ChangeTag, DiffTag, TextDiff};

use std::path::Path;

use crate::content::{Entry, EntryId};

use super::digest::{SignedMaterial, SignedText};
use super::gate::{Refusal, Verdict};
use super::signatures::load_text;
use super::signoff::{Role, SignOff};

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
            cells: cell_changes(&signed.cells, &now.text.cells)
                .into_iter()
                .filter(|c| !(c.cell == BODY_AS_SHOWN && shown_edit_is_the_files(signed, now, c)))
                .collect(),
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

/// `review diff` on a first review: the reviewer has signed no version yet, so a diff
/// against the author's would show nothing to read. Everything the page shows, as it is
/// now: the file, then each cell the file does not hold (table cells, the body with its
/// numbers filled in), then what changed since the author signed, if anything did.
#[derive(Debug)]
pub struct FirstReview {
    pub entry: EntryId,
    /// The author's registered name and the day they signed.
    pub author: String,
    pub date: NaiveDate,
    pub text: String,
    pub cells: Vec<(String, String)>,
    /// What changed since the author signed; None when they signed what it shows now.
    pub since_author: Option<SinceSigned>,
}

impl FirstReview {
    pub fn new(
        entry: &EntryId,
        author: &str,
        date: NaiveDate,
        signed: &SignedText,
        now: &SignedMaterial,
    ) -> FirstReview {
        let since = SinceSigned::new(entry, Role::Author, author, date, signed, now);
        FirstReview {
            entry: entry.clone(),
            author: author.to_string(),
            date,
            text: now.text.text.clone(),
            cells: now
                .text
                .cells
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            since_author: (!since.is_unchanged()).then_some(since),
        }
    }
}

impl fmt::Display for FirstReview {
    /// Escaped (`visible::Escaped`), as [`SinceSigned`] is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::visible::Escaped(PlainFirst(self)))
    }
}

struct PlainFirst<'a>(&'a FirstReview);

impl fmt::Display for PlainFirst<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let this = self.0;
        writeln!(
            f,
            "{}: first review (no reviewer has signed it): all of it, as it is now; its author {} signed on {}",
            this.entry, this.author, this.date
        )?;
        writeln!(f, "--- {} ---", this.entry)?;
        f.write_str(&this.text)?;
        if !this.text.ends_with('\n') {
            writeln!(f)?;
        }
        for (cell, value) in &this.cells {
            if value.contains('\n') {
                writeln!(f, "--- {cell} ---")?;
                f.write_str(value)?;
                if !value.ends_with('\n') {
                    writeln!(f)?;
                }
            } else {
                writeln!(f, "{cell}: {value}")?;
            }
        }
        match &this.since_author {
            None => writeln!(f, "--- unchanged since its author signed it ---"),
            Some(d) => {
                writeln!(
                    f,
                    "--- changed since its author signed it: they sign again before you do ---"
                )?;
                write!(f, "{}", PlainDiff(d))
            }
        }
    }
}

/// The cell holding the body with its calls expanded (`pipeline::assess`).
const BODY_AS_SHOWN: &str = "body as shown";

/// Whether the body as shown changed only on lines whose text the file diff already shows
/// changed: then its diff would repeat the same paragraph, and only the file's is shown.
/// Expanding calls keeps the body's lines (`render::values`), so line `i` of the body as
/// shown is line `i` of the file's body. A number that moved on a line the author did not
/// touch (a re-measured record) keeps the cell in the diff.
fn shown_edit_is_the_files(signed: &SignedText, now: &SignedMaterial, cell: &CellChange) -> bool {
    let (Some(old_shown), Some(new_shown)) = (&cell.old, &cell.new) else {
        return false;
    };
    let body = |raw: &str| {
        crate::content::split_front_matter(Path::new(""), raw)
            .ok()
            .map(|s| s.body.to_string())
    };
    let (Some(old_body), Some(new_body)) = (body(&signed.text), body(&now.text.text)) else {
        return false;
    };
    let (shown_old, shown_new) = changed_lines(old_shown, new_shown);
    let (file_old, file_new) = changed_lines(&old_body, &new_body);
    shown_old.is_subset(&file_old) && shown_new.is_subset(&file_new)
}

/// The 0-based indices of the lines a line diff removes from `old` and adds to `new`.
fn changed_lines(
    old: &str,
    new: &str,
) -> (
    std::collections::BTreeSet<usize>,
    std::collections::BTreeSet<usize>,
) {
    let mut removed = std::collections::BTreeSet::new();
    let mut added = std::collections::BTreeSet::new();
    for op in TextDiff::from_lines(old, new).ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag != DiffTag::Equal {
            removed.extend(old_range);
            added.extend(new_range);
        }
    }
    (removed, added)
}

/// A unified diff whose changed lines mark the words that changed, as `git diff
/// --word-diff=plain` does: `[-removed-]` on a `-` line, `{+added+}` on a `+` line. A
/// one-word edit reads as that word, not as the paragraph twice.
pub(super) fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> Option<String> {
    use std::fmt::Write as _;
    if old == new {
        return None;
    }
    let diff = TextDiff::from_lines(old, new);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for group in diff.grouped_ops(3) {
        let _ = writeln!(out, "{}", UnifiedHunkHeader::new(&group));
        for op in &group {
            for change in diff.iter_inline_changes(op) {
                let (sign, open, close) = match change.tag() {
                    ChangeTag::Delete => ('-', "[-", "-]"),
                    ChangeTag::Insert => ('+', "{+", "+}"),
                    ChangeTag::Equal => (' ', "", ""),
                };
                out.push(sign);
                for (emphasized, text) in change.iter_strings_lossy() {
                    if !emphasized || text.trim().is_empty() {
                        out.push_str(&text);
                        continue;
                    }
                    // The mark closes before the line's end, so each line stays one line.
                    let body = text.trim_end_matches(['\n', '\r']);
                    out.push_str(open);
                    out.push_str(body);
                    out.push_str(close);
                    out.push_str(&text[body.len()..]);
                }
                // A text whose last line lacks a newline would run into the next line.
                if change.missing_newline() {
                    out.push('\n');
                }
            }
        }
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

    fn material(text: &str, cells: &[(&str, &str)]) -> SignedMaterial {
        SignedMaterial {
            digest: String::new(),
            text: SignedText {
                entry: "terms/warp".into(),
                text: text.into(),
                cells: map(cells),
            },
            bytes: Vec::new(),
        }
    }

    #[test]
    fn a_first_review_shows_everything_the_page_shows() {
        let id = EntryId::new(crate::content::Kind::Term, "warp");
        let date = NaiveDate::from_ymd_opt(2026, 12, 6).unwrap();
        let text = "---\ntitle: Warp\n---\nThirty-two threads.\n";
        let now = material(text, &[("table 1 row a, column 1 ms", "1.5")]);
        let shown = FirstReview::new(&id, "Author A", date, &now.text, &now).to_string();
        assert!(
            shown.starts_with("terms/warp: first review (no reviewer has signed it)"),
            "{shown}"
        );
        assert!(shown.contains(text), "{shown}");
        assert!(
            shown.contains("table 1 row a, column 1 ms: 1.5\n"),
            "{shown}"
        );
        assert!(
            shown.ends_with("--- unchanged since its author signed it ---\n"),
            "{shown}"
        );
        // Edited after the author signed: the whole text still, then the edit.
        let signed = material("---\ntitle: Warp\n---\n32 threads.\n", &[]);
        let shown = FirstReview::new(&id, "Author A", date, &signed.text, &now).to_string();
        assert!(shown.contains(text), "{shown}");
        assert!(shown.contains("they sign again before you do"), "{shown}");
        assert!(shown.contains("+{+Thirty-two+} threads."), "{shown}");
    }

    #[test]
    fn diff_shows_removed_and_added_lines() {
        let d = unified_diff("one\ntwo\nthree\n", "one\n2\nthree\n", "old", "new").unwrap();
        assert!(d.starts_with("--- old\n+++ new\n"), "{d}");
        assert!(d.contains("\n-[-two-]\n+{+2+}\n"), "{d}");
        // One word of a paragraph: the line once each way, with that word marked.
        let d = unified_diff(
            "A paragraph with one word.\n",
            "A paragraph with a word.\n",
            "old",
            "new",
        )
        .unwrap();
        assert!(
            d.ends_with(
                "@@ -1 +1 @@\n-A paragraph with [-one-] word.\n+A paragraph with {+a+} word.\n"
            ),
            "{d}"
        );
        assert_eq!(unified_diff("same\n", "same\n", "a", "b"), None);
    }
}
