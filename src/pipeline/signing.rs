//! Signing several entries in one call: named ones (`review sign A B C`), or every entry
//! waiting for the signer's role (`--all-waiting`). Named entries are loaded alone, so one
//! signature on a 10,000-entry site costs a few files, not a site load.

use std::path::Path;

use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::render::Assessment;
use crate::review::{
    ready_for, save_signed, signature_for, signer_person, ReviewError, Role, Signed, SignedMaterial,
};
use crate::trust::Signer;

use super::assess::{assess_all, assess_one};
use super::project::Project;

/// Which entries a `review sign` call signs.
#[derive(Debug, Clone)]
pub enum Selection {
    /// Slugs (`occupancy`) or ids (`terms/occupancy`).
    Named(Vec<String>),
    /// Every entry waiting for this role's signature from the signer, that nothing else
    /// holds back (see `review::ready_for`).
    AllWaiting,
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
        Selection::AllWaiting => {
            let project = Project::load(root)?;
            let all = assess_all(&project, today)?;
            (project, all)
        }
    };
    let person = signer_person(&project.people, signer)?.clone();
    let chosen: Vec<&Assessment> = match selection {
        Selection::Named(_) => assessments.iter().collect(),
        Selection::AllWaiting => assessments
            .iter()
            .filter(|a| {
                ready_for(
                    project.signoffs.get(&a.id),
                    &a.verdict,
                    &a.digest,
                    role,
                    &person,
                )
            })
            .collect(),
    };
    let reviews = project.layout.reviews();
    // Signing is a key operation per entry and independent; the files are written
    // together afterwards, with one flush to disk for all of them.
    let results: Vec<Result<(Signed, &SignedMaterial)>> = chosen
        .par_iter()
        .map(|a| {
            let material = kept_material(a)?;
            let signed = signature_for(
                &reviews,
                &a.id,
                project.signoffs.get(&a.id),
                material,
                role,
                &person,
                signer,
                now,
            )?;
            Ok((signed, material))
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
    let written: Vec<(&Signed, &SignedMaterial)> = done.iter().map(|(s, m)| (s, *m)).collect();
    if let Err(e) = save_signed(&reviews, &written) {
        errors.push(e);
    }
    Error::collect(errors)?;
    Ok(done.into_iter().map(|(s, _)| s).collect())
}

/// The signed text of an assessment made for signing (`assess_one`, `assess_all` keep it).
pub fn kept_material(a: &Assessment) -> Result<&crate::review::SignedMaterial> {
    a.material
        .as_deref()
        .ok_or_else(|| Error::Other(format!("{}: signed text was not kept", a.id)))
}
