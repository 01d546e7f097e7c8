//! Two records of one experiment, row by row: each row's median with its interval in
//! both, and the [`Change`] the verdict rule gives (`glossary compare`; `glossary
//! reproduce` builds on [`compare`] too).

use serde::Serialize;

use super::record::{NoEstimate, Record};
use super::verdict::{self, Change, Estimate};

/// One row of a comparison.
#[derive(Debug, Clone, Serialize)]
pub struct RowChange {
    pub label: String,
    /// None where the row has no usable median (failed, missing, no interval).
    pub old: Option<Span>,
    pub new: Option<Span>,
    /// new / old, conservative (`verdict::ratio`).
    pub ratio: Option<Span>,
    pub verdict: Change,
    /// Why the verdict is AMBIGUOUS without numbers, or that a row did not converge.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Span {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl From<Estimate> for Span {
    fn from(e: Estimate) -> Span {
        Span {
            value: e.value,
            lo: e.lo,
            hi: e.hi,
        }
    }
}

impl From<Span> for Estimate {
    fn from(s: Span) -> Estimate {
        Estimate::new(s.value, s.lo, s.hi)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub experiment: String,
    pub tolerance: f64,
    pub rows: Vec<RowChange>,
}

/// Why two records cannot be compared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompareError {
    #[error("records of different experiments ({old} and {new}): nothing to compare")]
    Experiments { old: String, new: String },
    #[error("records of different versions of {experiment} (digests {old} and {new}): re-measure one, or compare runs of one version")]
    Digests {
        experiment: String,
        old: String,
        new: String,
    },
}

/// Compare `new` against `old` with the SAME band `tolerance`. Rows are taken in the
/// new record's order, then rows only the old one has.
pub fn compare(old: &Record, new: &Record, tolerance: f64) -> Result<Comparison, CompareError> {
    if old.experiment != new.experiment {
        return Err(CompareError::Experiments {
            old: old.experiment.clone(),
            new: new.experiment.clone(),
        });
    }
    if old.spec_digest != new.spec_digest {
        return Err(CompareError::Digests {
            experiment: new.experiment.clone(),
            old: super::library::short_digest(&old.spec_digest).to_string(),
            new: super::library::short_digest(&new.spec_digest).to_string(),
        });
    }
    let mut labels: Vec<&str> = new.configs.iter().map(|c| c.label.as_str()).collect();
    for c in &old.configs {
        if !labels.contains(&c.label.as_str()) {
            labels.push(&c.label);
        }
    }
    let rows = labels
        .into_iter()
        .map(|label| {
            let mut notes = Vec::new();
            let mut median = |r: &Record, which: &str| -> Option<Estimate> {
                let Some(c) = r.config(label) else {
                    notes.push(format!("no row in the {which} record"));
                    return None;
                };
                if let Some(p) = c.status.problem() {
                    notes.push(format!("{which}: {p}"));
                    return None;
                }
                if c.unconverged() {
                    notes.push(format!("{which}: stopped at the time cap, not converged"));
                }
                match c.estimate("median_ms", r.schema) {
                    // A schema-1 record kept its samples: the interval verify would have
                    // made is made from them here (a build never does this).
                    Ok(e) if e.legacy => {
                        let t = c.timing.as_ref()?;
                        let i = super::run::stats::median_interval(&t.samples_ms);
                        if i.is_none() {
                            notes.push(format!("{which}: too few samples for an interval"));
                        } else {
                            notes.push(format!(
                                "{which}: schema {} record, interval made from its samples",
                                r.schema
                            ));
                        }
                        i.map(|i| Estimate::new(t.median_ms, i.lo, i.hi))
                    }
                    Ok(e) => Some(e.estimate),
                    Err(NoEstimate::Missing) => {
                        notes.push(format!("{which}: not timed"));
                        None
                    }
                    Err(NoEstimate::NoInterval(why)) => {
                        notes.push(format!("{which}: {why}"));
                        None
                    }
                }
            };
            let (o, n) = (median(old, "old"), median(new, "new"));
            let (verdict, ratio) = match (o, n) {
                (Some(o), Some(n)) => verdict::change(o, n, tolerance),
                _ => (Change::Ambiguous, None),
            };
            RowChange {
                label: label.to_string(),
                old: o.map(Span::from),
                new: n.map(Span::from),
                ratio: ratio.map(Span::from),
                verdict,
                notes,
            }
        })
        .collect();
    Ok(Comparison {
        experiment: new.experiment.clone(),
        tolerance,
        rows,
    })
}
