//! Signing several entries in one call: named ones (`review sign A B C`), or every entry
//! ready for the signer's role (`--all-ready`). Named entries are loaded alone, so one
//! signature on a 10,000-entry site costs a few files, not a site load.

use std::path::Path;

use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::pipeline::{assess_all, assess_one, Assessment, Project};
use crate::trust::{Person, Signer};

use super::error::ReviewError;
use super::gate::{Refusal, Role};
use super::sign::{sign, signer_person, Signed};

/// Which entries a `review sign` call signs.
#[derive(Debug, Clone)]
pub enum Selection {
    /// Slugs (`occupancy`) or ids (`terms/occupancy`).
    Named(Vec<String>),
    /// Every entry whose only obstacle is this role's signature (see [`ready_for`]).
    AllReady,
}

/// Sign the selected entries as `role` with `signer`; every entry is attempted, and the
/// errors of those that could not be signed come back together.
pub fn sign_selected(
    root: &Path,
    selection: &Selection,
    role: Role,
    signer: &Signer,
    now: DateTime<Utc>,
) -> Result<Vec<Signed>> {
    let today = now.date_naive();
    let (project, assessments) = match selection {
        Selection::Named(queries) if queries.is_empty() => {
            return Err(ReviewError::NothingToSign.into())
        }
        Selection::Named(queries) => {
            let (project, ids) = Project::load_entries(root, queries)?;
            let mut seen = std::collections::HashSet::new();
            let mut out = Vec::new();
            for id in ids.iter().filter(|id| seen.insert((*id).clone())) {
                let entry = project
                    .content
                    .get(id)
                    .ok_or_else(|| ReviewError::UnknownEntry {
                        query: id.to_string(),
                    })?;
                out.push(assess_one(&project, entry, today)?);
            }
            (project, out)
        }
        Selection::AllReady => {
            let project = Project::load(root)?;
            let all = assess_all(&project, today)?;
            (project, all)
        }
    };
    let person = signer_person(&project.people, signer)?.clone();
    let chosen: Vec<&Assessment> = match selection {
        Selection::Named(_) => assessments.iter().collect(),
        Selection::AllReady => assessments
            .iter()
            .filter(|a| ready_for(&project, a, role, &person))
            .collect(),
    };
    let reviews = project.layout.reviews();
    let results: Vec<Result<Signed>> = chosen
        .par_iter()
        .map(|a| {
            sign(
                &reviews,
                &a.id,
                project.signoffs.get(&a.id),
                &a.material,
                role,
                &person,
                signer,
                now,
            )
        })
        .collect();
    let mut done = Vec::new();
    let mut errors = Vec::new();
    for r in results {
        match r {
            Ok(s) => done.push(s),
            Err(e) => errors.push(e),
        }
    }
    Error::collect(errors)?;
    Ok(done)
}

/// Whether `person` signing as `role` is what `a` waits for: nothing a signature cannot fix
/// holds it back (stale measurements, unsupported claims), this role has no current
/// signature that counts, the other role is not `person`'s, and, for a reviewer, the
/// author has signed the entry as it is now.
pub fn ready_for(project: &Project, a: &Assessment, role: Role, person: &Person) -> bool {
    let unfixable = a.verdict.refusals.iter().any(|r| {
        matches!(
            r,
            Refusal::StaleMeasurement { .. } | Refusal::UnsupportedClaim { .. }
        )
    });
    if unfixable {
        return false;
    }
    let signoff = project.signoffs.get(&a.id);
    let (mine, other) = match role {
        Role::Author => (
            signoff.and_then(|s| s.author.as_ref()),
            signoff.and_then(|s| s.reviewer.as_ref()),
        ),
        Role::Reviewer => (
            signoff.and_then(|s| s.reviewer.as_ref()),
            signoff.and_then(|s| s.author.as_ref()),
        ),
    };
    let counts = |r: Role| {
        !a.verdict.refusals.iter().any(|x| {
            matches!(x, Refusal::BadSignature { role, .. } | Refusal::UnknownSigner { role, .. } if *role == r)
        })
    };
    let other_role = match role {
        Role::Author => Role::Reviewer,
        Role::Reviewer => Role::Author,
    };
    let mine_current = mine.is_some_and(|s| s.digest == a.material.digest) && counts(role);
    if mine_current {
        return false;
    }
    if other.is_some_and(|s| s.person == person.id) {
        return false;
    }
    match role {
        Role::Author => true,
        Role::Reviewer => {
            other.is_some_and(|s| s.digest == a.material.digest) && counts(other_role)
        }
    }
}
