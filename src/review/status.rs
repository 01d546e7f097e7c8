//! `review status`: where each entry stands with its signatures, and what else holds it
//! back. Read off the gate's verdict from the same assessment the build uses, so status
//! and build never disagree.

use std::fmt::Write as _;

use chrono::NaiveDate;
use serde::Serialize;

use crate::content::Entry;

use super::diff::{record_changes, RecordChange};
use super::digest::SignedMaterial;
use super::gate::{Refusal, Role, Verdict};
use super::signatures::{SignOff, Signature};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Unsigned, or signed in one role only (or twice by one person).
    Draft,
    /// A signature covers text or records that have changed since.
    Changed,
    /// A named author and a different named reviewer signed the current content.
    Ready,
}

impl State {
    fn as_str(self) -> &'static str {
        match self {
            State::Draft => "draft",
            State::Changed => "changed",
            State::Ready => "ready",
        }
    }
}

/// One role's signature as status reports it.
#[derive(Debug, Clone, Serialize)]
pub struct SignerStatus {
    pub name: String,
    pub date: NaiveDate,
    /// Whether it covers the entry's current text and records.
    pub current: bool,
}

/// One entry's review state. Serialized as `review status --json`; the keys are stable and
/// always present (null or empty when there is nothing to say).
#[derive(Debug, Clone, Serialize)]
pub struct EntryStatus {
    pub entry: String,
    pub title: String,
    pub state: State,
    pub author: Option<SignerStatus>,
    pub reviewer: Option<SignerStatus>,
    /// What must happen before the signatures allow publishing.
    pub missing: Vec<String>,
    /// Cited records that differ from what the reviewer (else the author) signed.
    pub changed_records: Vec<RecordChange>,
    /// Refusals that no signature can fix: stale measurements, unsupported claims.
    pub refusals: Vec<String>,
    /// Old sources: warnings, errors under `check --strict`.
    pub warnings: Vec<String>,
    /// Whether the build publishes it now.
    pub published: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    pub entries: Vec<EntryStatus>,
}

/// What status reads about one entry: the gate's verdict, and the signatures and material
/// it was decided on. The pipeline assembles these from the same assessment a build uses.
#[derive(Debug, Clone, Copy)]
pub struct Gated<'a> {
    pub entry: &'a Entry,
    pub signoff: Option<&'a SignOff>,
    pub verdict: &'a Verdict,
    /// What a signature made now would cover.
    pub material: &'a SignedMaterial,
    /// Not refusals: old sources.
    pub warnings: &'a [String],
}

pub fn status_report<'a>(entries: impl IntoIterator<Item = Gated<'a>>) -> StatusReport {
    StatusReport {
        entries: entries.into_iter().map(entry_status).collect(),
    }
}

/// One entry's status, read off the gate's verdict: this decides nothing the gate did not.
pub fn entry_status(g: Gated<'_>) -> EntryStatus {
    let refusals = &g.verdict.refusals;
    let changed = |role: Role| {
        refusals
            .iter()
            .any(|r| matches!(r, Refusal::Changed { role: r, .. } if *r == role))
    };
    // The gate counts only named signatures; it refused with NoAuthor/NoReviewer otherwise.
    let signer = |role: Role, s: Option<&Signature>, absent: &Refusal| {
        if refusals.contains(absent) {
            return None;
        }
        s.map(|s| SignerStatus {
            name: s.name.trim().to_string(),
            date: s.date,
            current: !changed(role),
        })
    };
    let author = g.signoff.and_then(|s| s.author.as_ref());
    let reviewer = g.signoff.and_then(|s| s.reviewer.as_ref());
    let author_s = signer(Role::Author, author, &Refusal::NoAuthor);
    let reviewer_s = signer(Role::Reviewer, reviewer, &Refusal::NoReviewer);

    // What the signers must do, author's part first, then the reviewer's.
    let mut missing: Vec<(u8, String)> = refusals
        .iter()
        .filter_map(|r| match r {
            Refusal::NoAuthor => Some((0, "author signature".to_string())),
            Refusal::Changed {
                role: Role::Author,
                name,
                date,
            } => Some((
                0,
                format!("author re-signature (changed since signed by {name} on {date})"),
            )),
            Refusal::NoReviewer => Some((1, "reviewer signature".to_string())),
            Refusal::Changed {
                role: Role::Reviewer,
                name,
                date,
            } => Some((
                1,
                format!("reviewer re-signature (changed since reviewed by {name} on {date})"),
            )),
            Refusal::SamePerson { .. } => Some((2, "a reviewer other than the author".to_string())),
            Refusal::StaleMeasurement { .. } | Refusal::UnsupportedClaim { .. } => None,
        })
        .collect();
    missing.sort_by_key(|(order, _)| *order);
    let missing: Vec<String> = missing.into_iter().map(|(_, m)| m).collect();

    let state = if changed(Role::Author) || changed(Role::Reviewer) {
        State::Changed
    } else if missing.is_empty() {
        State::Ready
    } else {
        State::Draft
    };

    let baseline = reviewer_s
        .as_ref()
        .and(reviewer)
        .or(author_s.as_ref().and(author));
    let changed_records = baseline
        .map(|s| record_changes(&s.records, &g.material.records))
        .unwrap_or_default();
    let refusals = refusals
        .iter()
        .filter(|r| {
            matches!(
                r,
                Refusal::StaleMeasurement { .. } | Refusal::UnsupportedClaim { .. }
            )
        })
        .map(|r| r.to_string())
        .collect();

    EntryStatus {
        entry: g.entry.id.to_string(),
        title: g.entry.meta.title.clone(),
        state,
        author: author_s,
        reviewer: reviewer_s,
        missing,
        changed_records,
        refusals,
        warnings: g.warnings.to_vec(),
        published: g.verdict.is_published(),
    }
}

impl StatusReport {
    /// An aligned table, one row per entry, then the notes (refusals, changed records, old
    /// sources) of the entries that have any, then the counts.
    pub fn to_table(&self) -> String {
        let header = [
            "ENTRY",
            "STATE",
            "AUTHOR",
            "REVIEWER",
            "PUBLISHED",
            "MISSING",
        ];
        let signer = |s: &Option<SignerStatus>| match s {
            None => "-".to_string(),
            Some(s) if s.current => format!("{} {}", s.name, s.date),
            Some(s) => format!("{} {} (changed)", s.name, s.date),
        };
        let rows: Vec<[String; 6]> = self
            .entries
            .iter()
            .map(|e| {
                [
                    e.entry.clone(),
                    e.state.as_str().to_string(),
                    signer(&e.author),
                    signer(&e.reviewer),
                    if e.published { "yes" } else { "no" }.to_string(),
                    if e.missing.is_empty() {
                        "-".to_string()
                    } else {
                        e.missing.join("; ")
                    },
                ]
            })
            .collect();
        let mut widths = header.map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let mut line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(widths)
                .enumerate()
                .map(|(i, (c, w))| {
                    // The last column is not padded, so lines carry no trailing spaces.
                    if i + 1 == cells.len() {
                        c.clone()
                    } else {
                        format!("{c}{}", " ".repeat(w - c.chars().count()))
                    }
                })
                .collect();
            out.push_str(&padded.join("  "));
            out.push('\n');
        };
        line(&header.map(str::to_string));
        for row in &rows {
            line(row);
        }

        for e in &self.entries {
            let notes: Vec<String> = e
                .changed_records
                .iter()
                .map(|r| r.to_string())
                .chain(e.refusals.iter().map(|r| format!("refused: {r}")))
                .chain(e.warnings.iter().map(|w| format!("warning: {w}")))
                .collect();
            if !notes.is_empty() {
                let _ = writeln!(out, "\n{}:", e.entry);
                for n in notes {
                    let _ = writeln!(out, "  {n}");
                }
            }
        }
        let count = |s: State| self.entries.iter().filter(|e| e.state == s).count();
        let _ = writeln!(
            out,
            "\n{} entries: {} ready, {} changed, {} draft; {} published",
            self.entries.len(),
            count(State::Ready),
            count(State::Changed),
            count(State::Draft),
            self.entries.iter().filter(|e| e.published).count()
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::content::{EntryId, Kind};
    use crate::review::{decide, Facts};

    fn entry() -> Entry {
        let raw = "---\ntitle: What is it?\nsummary: S.\n---\nBody.\n";
        Entry {
            id: EntryId::new(Kind::Term, "it"),
            path: "content/terms/it.md".into(),
            raw: raw.into(),
            meta: serde_yaml::from_str("title: What is it?\nsummary: S.\n").unwrap(),
            body: "Body.\n".into(),
            body_line: 5,
        }
    }

    fn material() -> SignedMaterial {
        SignedMaterial {
            digest: "now".into(),
            records: BTreeMap::from([("exp/node".to_string(), "r2".to_string())]),
        }
    }

    /// Status as the pipeline gives it: the gate decides, status reads the verdict.
    fn status_of(signoff: Option<&SignOff>, stale: &[(String, String)]) -> EntryStatus {
        let (entry, material) = (entry(), material());
        let verdict = decide(Facts {
            signoff,
            digest: &material.digest,
            stale,
            unsupported: &[],
        });
        entry_status(Gated {
            entry: &entry,
            signoff,
            verdict: &verdict,
            material: &material,
            warnings: &["an old source".to_string()],
        })
    }

    fn sig(name: &str, digest: &str) -> Signature {
        Signature {
            name: name.into(),
            date: NaiveDate::from_ymd_opt(2026, 4, 2).unwrap(),
            digest: digest.into(),
            records: BTreeMap::from([("exp/node".to_string(), "r1".to_string())]),
            text: None,
        }
    }

    fn status(author: Option<Signature>, reviewer: Option<Signature>) -> EntryStatus {
        let s = SignOff { author, reviewer };
        status_of(Some(&s), &[])
    }

    #[test]
    fn unsigned_and_half_signed_entries_are_drafts() {
        let s = status_of(None, &[]);
        assert_eq!(s.state, State::Draft);
        assert_eq!(s.missing, ["author signature", "reviewer signature"]);
        let s = status(Some(sig("author-a", "now")), None);
        assert_eq!(s.state, State::Draft);
        assert_eq!(s.missing, ["reviewer signature"]);
    }

    #[test]
    fn both_current_signatures_are_ready() {
        let s = status(Some(sig("author-a", "now")), Some(sig("reviewer-b", "now")));
        assert_eq!(s.state, State::Ready);
        assert!(s.missing.is_empty());
    }

    #[test]
    fn an_out_of_date_signature_is_changed_and_names_who_and_when() {
        let s = status(Some(sig("author-a", "now")), Some(sig("reviewer-b", "old")));
        assert_eq!(s.state, State::Changed);
        assert_eq!(
            s.missing,
            ["reviewer re-signature (changed since reviewed by reviewer-b on 2026-04-02)"]
        );
        // The record the reviewer saw differs from the one cited now.
        assert_eq!(s.changed_records.len(), 1);
        assert_eq!(s.changed_records[0].citation, "exp/node");
    }

    #[test]
    fn one_person_in_both_roles_stays_a_draft() {
        let s = status(Some(sig("Author A", "now")), Some(sig(" author  a", "now")));
        assert_eq!(s.state, State::Draft);
        assert_eq!(s.missing, ["a reviewer other than the author"]);
    }

    #[test]
    fn reports_only_refusals_a_signature_cannot_fix() {
        let s = status_of(None, &[("exp/node".into(), "no record".into())]);
        assert_eq!(s.refusals, ["measurement exp/node: no record"]);
        assert_eq!(s.warnings, ["an old source"]);
        assert!(!s.published);
    }

    #[test]
    fn table_columns_line_up() {
        let report = StatusReport {
            entries: vec![
                status(Some(sig("author-a", "now")), None),
                status(Some(sig("a-much-longer-name", "now")), None),
            ],
        };
        let table = report.to_table();
        let lines: Vec<&str> = table.lines().take(3).collect();
        let col = |l: &str| l.find("REVIEWER").or_else(|| l.find(" - ").map(|i| i + 1));
        let first = col(lines[0]).unwrap();
        for l in &lines[1..] {
            assert_eq!(col(l), Some(first), "{table}");
        }
        assert!(table.contains("warning: an old source"), "{table}");
    }
}
