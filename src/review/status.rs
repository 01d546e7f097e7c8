//! `review status`: where each entry stands with its signatures, and what else holds it
//! back. Read off the gate's verdict from the same assessment the build uses, so status
//! and build never disagree.

use std::fmt::Write as _;

use chrono::NaiveDate;
use serde::Serialize;

use crate::trust::People;

use super::gate::{Refusal, Verdict};
use super::signoff::{Role, SignOff, Signature};

/// Where an entry stands, in the words `review status`, `review sign --all-waiting` and the
/// book use: whose signature it waits for, else whether it is published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// No author signature that counts for what the entry shows now: none yet, one made
    /// for an earlier version, or one that does not verify.
    WaitingForAuthor,
    /// The author signed what the entry shows now; no reviewer signature that counts (none
    /// yet, an earlier version's, one that does not verify, or the author's own).
    WaitingForReviewer,
    /// Both signed what the entry shows now, and something no signature fixes holds it
    /// back: a stale measurement, a claim its record no longer supports.
    HeldBack,
    /// The build publishes it.
    Published,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::WaitingForAuthor => "waiting for author",
            State::WaitingForReviewer => "waiting for reviewer",
            State::HeldBack => "held back",
            State::Published => "published",
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
    /// Whether it covers what the entry shows now.
    pub current: bool,
    /// Why it does not count (unknown person, wrong key, does not verify), if it does not.
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

/// What status reads about one entry: the gate's verdict, and the signatures and material
/// it was decided on. The pipeline assembles these from the same assessment a build uses.
#[derive(Clone, Copy)]
pub struct Gated<'a> {
    /// The entry's id, or a static file's name (`static/x.html`).
    pub entry: &'a dyn std::fmt::Display,
    /// The entry's title; a static file's is its kind.
    pub title: &'a str,
    pub signoff: Option<&'a SignOff>,
    pub verdict: &'a Verdict,
    /// The digest of what a signature made now would cover.
    pub digest: &'a str,
    /// Not refusals: old sources.
    pub warnings: &'a [String],
    /// For the signers' registered names.
    pub people: &'a People,
}

pub fn status_report<'a>(entries: impl IntoIterator<Item = Gated<'a>>) -> StatusReport {
    StatusReport {
        entries: entries.into_iter().map(entry_status).collect(),
    }
}

/// One entry's status, read off the gate's verdict: this decides nothing the gate did not.
pub fn entry_status(g: Gated<'_>) -> EntryStatus {
    let refusals = &g.verdict.refusals;
    let invalid = |role: Role| {
        refusals.iter().find_map(|r| match r {
            Refusal::UnknownSigner { role: rr, .. }
            | Refusal::BadSignature { role: rr, .. }
            | Refusal::NameChanged { role: rr, .. }
                if *rr == role =>
            {
                Some(r.to_string())
            }
            _ => None,
        })
    };
    let signer = |role: Role, s: Option<&Signature>| {
        s.map(|s| SignerStatus {
            person: s.person.clone(),
            name: g
                .people
                .get(&s.person)
                .map_or_else(|| s.person.clone(), |p| p.name.clone()),
            date: s.date(),
            current: s.digest == g.digest,
            invalid: invalid(role),
        })
    };
    let author = g.signoff.and_then(|s| s.author.as_ref());
    let reviewer = g.signoff.and_then(|s| s.reviewer.as_ref());
    let author_s = signer(Role::Author, author);
    let reviewer_s = signer(Role::Reviewer, reviewer);

    // What the signers must do, author's part first, then the reviewer's.
    let mut missing: Vec<(u8, String)> = refusals
        .iter()
        .filter_map(|r| match r {
            Refusal::NoAuthor => Some((0, "author signature".to_string())),
            Refusal::Changed {
                role: Role::Author,
                name,
                date,
                ..
            } => Some((
                0,
                format!("author re-signature (changed since signed by {name} on {date})"),
            )),
            Refusal::NoReviewer => Some((1, "reviewer signature".to_string())),
            Refusal::Changed {
                role: Role::Reviewer,
                name,
                date,
                ..
            } => Some((
                1,
                format!("reviewer re-signature (changed since reviewed by {name} on {date})"),
            )),
            Refusal::UnknownSigner { role, .. } | Refusal::BadSignature { role, .. } => Some((
                if *role == Role::Author { 0 } else { 1 },
                format!("{role} signature that counts ({r})"),
            )),
            Refusal::NameChanged { role, .. } => Some((
                if *role == Role::Author { 0 } else { 1 },
                format!("{role} re-signature ({r})"),
            )),
            Refusal::RolledBack { roles, .. } => Some((
                if roles.contains(&Role::Author) { 0 } else { 1 },
                format!(
                    "{} re-signature ({r})",
                    roles
                        .iter()
                        .map(Role::to_string)
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            )),
            Refusal::SamePerson { .. } => Some((2, "a reviewer other than the author".to_string())),
            Refusal::StaleMeasurement { .. }
            | Refusal::UnsupportedClaim { .. }
            | Refusal::FragileClaim { .. } => None,
        })
        .collect();
    missing.sort_by_key(|(order, _)| *order);
    // The first role with something missing is the one the entry waits for: a reviewer
    // signs only what the author signed as it is now.
    let state = match missing.first() {
        _ if g.verdict.is_published() => State::Published,
        Some((0, _)) => State::WaitingForAuthor,
        Some(_) => State::WaitingForReviewer,
        None => State::HeldBack,
    };
    let missing: Vec<String> = missing.into_iter().map(|(_, m)| m).collect();

    let refusals = refusals
        .iter()
        .filter(|r| r.is_about_measurements())
        .map(|r| r.to_string())
        .collect();

    EntryStatus {
        entry: g.entry.to_string(),
        title: g.title.to_string(),
        state,
        author: author_s,
        reviewer: reviewer_s,
        missing,
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
        // Each cell escaped (`visible::escape`) before the columns are measured: a name or
        // a reason may quote a file, and the terminal must show it, not obey it.
        let rows: Vec<[String; 6]> = self
            .entries
            .iter()
            .map(|e| {
                let row = [
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
                ];
                row.map(|cell| crate::visible::escape(&cell).into_owned())
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
                    let _ = writeln!(out, "  {}", crate::visible::Escaped(n));
                }
            }
        }
        let count = |s: State| self.entries.iter().filter(|e| e.state == s).count();
        let _ = writeln!(
            out,
            "\n{} entries: {} published, {} waiting for author, {} waiting for reviewer, {} held back",
            self.entries.len(),
            count(State::Published),
            count(State::WaitingForAuthor),
            count(State::WaitingForReviewer),
            count(State::HeldBack),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{Entry, EntryId, Kind};
    use crate::review::signoff::statement;
    use crate::review::{decide, signed_material, Facts};
    use crate::trust::{Signer, REVIEW_NAMESPACE};

    fn entry() -> Entry {
        let raw = "---\ntitle: What is it?\nsummary: S.\n---\nBody.\n";
        Entry {
            id: EntryId::new(Kind::Term, "it"),
            path: "content/terms/it.md".into(),
            raw: raw.into(),
            meta: serde_yaml::from_str("title: What is it?\nsummary: S.\n").unwrap(),
            body: "Body.\n".into(),
            body_line: 5,
            thinned: None,
        }
    }

    fn key(n: u8) -> Signer {
        Signer::ed25519_from_seed(&[n; 32], "t").unwrap()
    }

    fn people() -> People {
        let line = |n| key(n).public_key().to_openssh().unwrap();
        let text = format!(
            "[[person]]\nid = \"author-a\"\nname = \"Author A\"\nkeys = [\"{}\"]\n[[person]]\nid = \"reviewer-b\"\nname = \"Reviewer B\"\nkeys = [\"{}\"]\n[[person]]\nid = \"a-much-longer-name\"\nname = \"A Much Longer Name\"\nkeys = [\"{}\"]\n",
            line(1),
            line(2),
            line(3)
        );
        People::parse(std::path::Path::new("people.toml"), &text).unwrap()
    }

    /// Status as the pipeline gives it: the gate decides, status reads the verdict.
    fn status_of(signoff: Option<&SignOff>, stale: &[(String, String)]) -> EntryStatus {
        let (entry, people) = (entry(), people());
        let material = signed_material(&entry, Default::default());
        let verdict = decide(Facts {
            entry: &entry.id,
            signoff,
            people: &people,
            digest: &material.digest,
            stale,
            unsupported: &[],
            fragile: &[],
            checked: None,
        });
        entry_status(Gated {
            entry: &entry.id,
            title: &entry.meta.title,
            signoff,
            verdict: &verdict,
            digest: &material.digest,
            warnings: &["an old source".to_string()],
            people: &people,
        })
    }

    /// `person` (key `k`) signs in `role`: the current material, or an older digest.
    fn sig(role: Role, person: &str, k: u8, current: bool) -> Signature {
        let e = entry();
        let digest = if current {
            signed_material(&e, Default::default()).digest
        } else {
            "sha256:old".to_string()
        };
        let time = chrono::DateTime::parse_from_rfc3339("2026-04-02T10:00:00Z")
            .unwrap()
            .to_utc();
        let name = people()
            .get(person)
            .map_or_else(|| person.to_string(), |p| p.name.clone());
        let msg = statement(&e.id, role, person, &name, &digest, &time);
        Signature {
            person: person.into(),
            name,
            time,
            digest,
            signature: key(k).sign(REVIEW_NAMESPACE, msg.as_bytes()).unwrap(),
        }
    }

    fn status(author: Option<Signature>, reviewer: Option<Signature>) -> EntryStatus {
        let s = SignOff {
            author,
            reviewer,
            ..Default::default()
        };
        status_of(Some(&s), &[])
    }

    #[test]
    fn an_unsigned_entry_waits_for_its_author_and_a_half_signed_one_for_its_reviewer() {
        let s = status_of(None, &[]);
        assert_eq!(s.state, State::WaitingForAuthor);
        assert_eq!(s.missing, ["author signature", "reviewer signature"]);
        let s = status(Some(sig(Role::Author, "author-a", 1, true)), None);
        assert_eq!(s.state, State::WaitingForReviewer);
        assert_eq!(s.missing, ["reviewer signature"]);
        assert_eq!(s.author.unwrap().name, "Author A");
    }

    #[test]
    fn both_current_signatures_publish_unless_a_measurement_holds_it_back() {
        let s = status(
            Some(sig(Role::Author, "author-a", 1, true)),
            Some(sig(Role::Reviewer, "reviewer-b", 2, true)),
        );
        assert_eq!(s.state, State::Published, "{:?}", s.missing);
        assert!(s.missing.is_empty() && s.published);
        let signoff = SignOff {
            author: Some(sig(Role::Author, "author-a", 1, true)),
            reviewer: Some(sig(Role::Reviewer, "reviewer-b", 2, true)),
            ..Default::default()
        };
        let s = status_of(Some(&signoff), &[("exp/node".into(), "no record".into())]);
        assert_eq!(s.state, State::HeldBack);
        assert!(s.missing.is_empty() && !s.published);
    }

    #[test]
    fn an_out_of_date_author_signature_waits_for_the_author_first() {
        let s = status(
            Some(sig(Role::Author, "author-a", 1, false)),
            Some(sig(Role::Reviewer, "reviewer-b", 2, false)),
        );
        assert_eq!(s.state, State::WaitingForAuthor);
        assert_eq!(s.state.as_str(), "waiting for author");
    }

    #[test]
    fn an_out_of_date_reviewer_signature_waits_and_names_who_and_when() {
        let s = status(
            Some(sig(Role::Author, "author-a", 1, true)),
            Some(sig(Role::Reviewer, "reviewer-b", 2, false)),
        );
        assert_eq!(s.state, State::WaitingForReviewer);
        assert_eq!(
            s.missing,
            ["reviewer re-signature (changed since reviewed by Reviewer B on 2026-04-02)"]
        );
    }

    #[test]
    fn a_signature_that_does_not_count_says_why() {
        // reviewer-b's name, author-a's key.
        let s = status(
            Some(sig(Role::Author, "author-a", 1, true)),
            Some(sig(Role::Reviewer, "reviewer-b", 1, true)),
        );
        assert_eq!(s.state, State::WaitingForReviewer);
        let why = s.reviewer.unwrap().invalid.unwrap();
        assert!(why.contains("not registered to reviewer-b"), "{why}");
        assert!(
            s.missing[0].starts_with("reviewer signature that counts"),
            "{:?}",
            s.missing
        );
    }

    #[test]
    fn one_person_in_both_roles_waits_for_a_reviewer() {
        let s = status(
            Some(sig(Role::Author, "author-a", 1, true)),
            Some(sig(Role::Reviewer, "author-a", 1, true)),
        );
        assert_eq!(s.state, State::WaitingForReviewer);
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
                status(Some(sig(Role::Author, "author-a", 1, true)), None),
                status(Some(sig(Role::Author, "a-much-longer-name", 3, true)), None),
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
