//! `review status`: where each entry stands with its signatures, and what else holds it
//! back. Read from the same assessment the build uses, so status and build never disagree.

use std::fmt::Write as _;

use chrono::NaiveDate;
use serde::Serialize;

use crate::content::Entry;
use crate::pipeline::{Assessment, Project};

use crate::trust::People;

use super::gate::{Refusal, Role};
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
    /// The id in content/people.toml the signature names.
    pub person: String,
    /// The registered display name (the id when the person is not registered).
    pub name: String,
    pub date: NaiveDate,
    /// Whether it covers the entry's current text and records.
    pub current: bool,
    /// Why it does not count (unknown person, does not verify), if it does not.
    pub invalid: Option<String>,
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

pub fn status_report(project: &Project, assessments: &[Assessment]) -> StatusReport {
    let entries = project
        .content
        .entries
        .iter()
        .filter_map(|e| {
            let a = assessments.iter().find(|a| a.id == e.id)?;
            Some(entry_status(
                e,
                project.signoffs.get(&e.id),
                a,
                &project.people,
            ))
        })
        .collect();
    StatusReport { entries }
}

pub fn entry_status(
    entry: &Entry,
    signoff: Option<&SignOff>,
    a: &Assessment,
    people: &People,
) -> EntryStatus {
    let digest = &a.material.digest;
    let invalid = |role: Role| {
        a.verdict.refusals.iter().find_map(|r| match r {
            Refusal::UnknownSigner { role: r_role, .. }
            | Refusal::BadSignature { role: r_role, .. }
                if *r_role == role =>
            {
                Some(r.to_string())
            }
            _ => None,
        })
    };
    let signer = |role: Role, s: &Signature| SignerStatus {
        person: s.person.clone(),
        name: people
            .get(&s.person)
            .map_or_else(|| s.person.clone(), |p| p.name.clone()),
        date: s.date(),
        current: &s.digest == digest,
        invalid: invalid(role),
    };
    let author_s = signoff
        .and_then(|s| s.author.as_ref())
        .map(|s| signer(Role::Author, s));
    let reviewer_s = signoff
        .and_then(|s| s.reviewer.as_ref())
        .map(|s| signer(Role::Reviewer, s));

    let mut missing = Vec::new();
    for (role, s, verb) in [
        (Role::Author, &author_s, "signed by its author"),
        (Role::Reviewer, &reviewer_s, "reviewed by"),
    ] {
        match s {
            None => missing.push(format!("{role} signature")),
            Some(s) if s.invalid.is_some() => missing.push(format!(
                "{role} signature that counts ({})",
                s.invalid.as_deref().unwrap_or_default()
            )),
            Some(s) if !s.current => missing.push(format!(
                "{role} re-signature (changed since {verb} {} on {})",
                s.name, s.date
            )),
            Some(_) => {}
        }
    }
    let same_person = a
        .verdict
        .refusals
        .iter()
        .any(|r| matches!(r, Refusal::SamePerson { .. }));
    if same_person {
        missing.push("a reviewer other than the author".to_string());
    }

    let valid = |s: &Option<SignerStatus>| s.as_ref().filter(|s| s.invalid.is_none()).cloned();
    let (va, vr) = (valid(&author_s), valid(&reviewer_s));
    let any_out_of_date = [&va, &vr].into_iter().flatten().any(|s| !s.current);
    let state = if any_out_of_date {
        State::Changed
    } else if va.is_some() && vr.is_some() && !same_person {
        State::Ready
    } else {
        State::Draft
    };

    let refusals = a
        .verdict
        .refusals
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
        entry: entry.id.to_string(),
        title: entry.meta.title.clone(),
        state,
        author: author_s,
        reviewer: reviewer_s,
        missing,
        refusals,
        warnings: a.warnings.clone(),
        published: a.verdict.is_published(),
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
                .refusals
                .iter()
                .map(|r| format!("refused: {r}"))
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
