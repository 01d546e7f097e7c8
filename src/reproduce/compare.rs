//! The reader's run against the published one, by the rules the rest of glossary uses:
//! rows through `measure::compare` (what `glossary compare` prints), and each claim the
//! site's pages make from the record through `measure::claims::judge` (what a build
//! decides), on the reader's record.

use crate::measure::bundle::Checked;
use crate::measure::compare::{compare, RowChange};
use crate::measure::Record;

/// One claim of a page, on the reader's record.
#[derive(Debug, Clone)]
pub struct ClaimCheck {
    pub entry: String,
    pub says: String,
    /// `holds`, `fails` or `ambiguous`.
    pub verdict: String,
    pub detail: String,
}

/// Every row, published against the reader's, in the SAME band the experiment sets.
pub fn rows(checked: &Checked, mine: &Record) -> anyhow::Result<Vec<RowChange>> {
    let tolerance = checked.experiment.spec.timing.tolerance();
    Ok(compare(&checked.record, mine, tolerance)?.rows)
}

/// The verdict of a claim whose value this run did not measure.
pub const NOT_CHECKED: &str = "not checked";

/// Whether `column` is a value the published record holds on some row and `mine` holds on
/// none: a pass the reader skipped, not a missing row.
fn unmeasured_here(checked: &Checked, mine: &Record, column: &str) -> bool {
    let has = |r: &Record| {
        r.configs
            .iter()
            .any(|c| c.estimate(column, r.schema).is_ok())
    };
    has(&checked.record) && !has(mine)
}

/// Every claim of every page the bundle lists, judged on the reader's record.
pub fn claims(checked: &Checked, mine: &Record) -> Vec<ClaimCheck> {
    let band = checked.experiment.spec.timing.tolerance();
    // Share and bound claims read the roofs of the bundle's node (its profile, peaks
    // included), as the site judged them.
    let roofed = checked.experiment.roofed();
    let roofing = crate::measure::claims::Roofing {
        metrics: &roofed,
        node: &checked.bundle.profile,
    };
    let mut out = Vec::new();
    for page in &checked.bundle.pages {
        for claim in &page.claims {
            let judged = claim.test().and_then(|test| {
                crate::measure::claims::judge_roofed(&test, &claim.column, mine, Some(&roofing))
            });
            let (verdict, detail) = match judged {
                // A counter the published record holds and this run did not measure
                // (a run without ncu): nothing to judge, which is not a failure.
                Err(why) if unmeasured_here(checked, mine, &claim.column) => (
                    NOT_CHECKED.to_string(),
                    format!("{why}: `{}` comes from a pass this run did not make (Nsight Compute; run without --no-ncu to check it)", claim.column),
                ),
                Err(why) => ("fails".to_string(), why),
                Ok(j) => {
                    let fragile = j.fragile(band);
                    let mut detail = j.shown;
                    if !j.advice.is_empty() {
                        detail = format!("{detail}: {}", j.advice);
                    }
                    // The build's rule on this run too: a claim that holds here by less
                    // than the band says so (the site refuses such a claim unless the
                    // entry accepts it with `fragile_ok`).
                    match fragile {
                        Some(note) => ("holds (fragile)".to_string(), format!("{detail}; {note}")),
                        None => (j.verdict.to_string(), detail),
                    }
                }
            };
            out.push(ClaimCheck {
                entry: page.entry.clone(),
                says: claim.says.clone(),
                verdict,
                detail,
            });
        }
    }
    out
}
