//! Two records of one experiment, row by row: each row's median with its interval in
//! both, and the [`Change`] the verdict rule gives (`glossary compare`; `glossary
//! reproduce` builds on [`compare`] too).

use serde::Serialize;

use super::record::{ConfigRecord, NoEstimate, Record};
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
    /// The band for counters (ncu values, and metrics made from them): [`COUNTER_TOLERANCE`].
    pub counter_tolerance: f64,
    pub rows: Vec<RowChange>,
}

/// How far a counter (an ncu value, achieved occupancy, a metric computed from them) may
/// differ between two records, relative, and still be the same. Counters of one kernel on
/// one GPU model mostly agree exactly (the committed runs: 0-0.05% for DRAM bytes, bank
/// conflicts, sectors, branch uniformity; achieved occupancy within 0.5 points); cache hit
/// counts near a cache's capacity are the exception (L2 at 32-80 MiB moved up to 18%
/// between runs on one H200), and are reported DIFFERENT, as they are.
pub const COUNTER_TOLERANCE: f64 = 0.05;

/// What the driver answered and the launch did, which must match exactly; then the
/// counters, within [`COUNTER_TOLERANCE`]. Each difference named, `field old -> new`.
/// A value only one record holds (a run without ncu) is a note, not a difference.
fn untimed_differences(
    old: &ConfigRecord,
    new: &ConfigRecord,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let status = |c: &ConfigRecord| match &c.status {
        super::record::ConfigStatus::Passed => "passed",
        super::record::ConfigStatus::Failed { .. } => "failed",
        super::record::ConfigStatus::NotLaunchable { .. } => "not launchable",
    };
    if status(old) != status(new) {
        out.push(format!("status {} -> {}", status(old), status(new)));
    }
    let exact: [(&str, f64, f64); 6] = [
        ("registers", old.registers.into(), new.registers.into()),
        (
            "static_smem",
            old.static_smem.into(),
            new.static_smem.into(),
        ),
        (
            "local_bytes",
            old.local_bytes.into(),
            new.local_bytes.into(),
        ),
        (
            "blocks_per_sm",
            old.blocks_per_sm.into(),
            new.blocks_per_sm.into(),
        ),
        (
            "warps_per_sm",
            old.warps_per_sm.into(),
            new.warps_per_sm.into(),
        ),
        ("occupancy", old.occupancy, new.occupancy),
    ];
    for (name, o, n) in exact {
        if o != n {
            out.push(format!("{name} {o} -> {n}"));
        }
    }
    let mut counter = |name: &str, o: Option<f64>, n: Option<f64>, exact: bool| match (o, n) {
        (Some(o), Some(n)) => {
            let differs = if exact {
                o != n
            } else if o == n {
                false
            } else {
                o == 0.0
                    // NaN differs too.
                    || !matches!(
                        (n / o - 1.0).abs().partial_cmp(&COUNTER_TOLERANCE),
                        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                    )
            };
            if differs {
                out.push(format!("{name} {o} -> {n}"));
            }
        }
        (Some(_), None) => notes.push(format!("{name} not in the new record")),
        (None, Some(_)) => notes.push(format!("{name} not in the old record")),
        (None, None) => {}
    };
    counter(
        "achieved_occupancy",
        old.achieved_occupancy,
        new.achieved_occupancy,
        false,
    );
    for (name, q) in &old.quantities {
        // Timed metrics are compared through the time they are read from (the row's
        // median and its band above), not again here.
        if q.timed {
            continue;
        }
        // The driver's answers and the launch's own shape (`launches_per_sample`) match
        // exactly or differ; counters get their band.
        let exact = matches!(q.source.as_str(), "driver" | "launch");
        let n = new.quantities.get(name).and_then(|q| q.value);
        counter(name, q.value, n, exact);
    }
    for (name, q) in &new.quantities {
        if !q.timed && !old.quantities.contains_key(name) && q.value.is_some() {
            notes.push(format!("{name} not in the old record"));
        }
    }
    out
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
            let (oc, nc) = (old.config(label), new.config(label));
            let differences = match (oc, nc) {
                (Some(oc), Some(nc)) => untimed_differences(oc, nc, &mut notes),
                _ => Vec::new(),
            };
            // Launch status and reason the same on both sides, with nothing timed: the
            // driver's answers are what there is to compare ("not launchable: block size
            // above the kernel's limit" on both is the same answer).
            let untimed_both = matches!((oc, nc), (Some(oc), Some(nc))
                if oc.timing.is_none() && nc.timing.is_none()
                    && (oc.status.problem().is_none()
                        || matches!(oc.status, super::record::ConfigStatus::NotLaunchable { .. }))
                    && oc.status == nc.status);
            let timed = match (o, n) {
                (Some(o), Some(n)) => Some(verdict::change(o, n, tolerance)),
                _ => None,
            };
            let ratio = timed.and_then(|t| t.1);
            let verdict = if !differences.is_empty() {
                notes.insert(0, format!("differs: {}", differences.join(", ")));
                Change::Different
            } else if let Some((change, _)) = timed {
                change
            } else if untimed_both {
                // Nothing timed on either side, and the driver's answers and the counters
                // matched.
                notes.retain(|n| {
                    !n.ends_with("not timed") && !n.starts_with("old: ") && !n.starts_with("new: ")
                });
                notes.push("not timed: the driver's answers and counters match".into());
                Change::Same
            } else {
                Change::Ambiguous
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
        counter_tolerance: COUNTER_TOLERANCE,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of one untimed (occupancy-mode) row and one timed row with an ncu counter.
    fn record(uuid: &str, registers: u32, blocks: u32, hits: f64) -> Record {
        crate::measure::record::test_record(
            uuid,
            serde_json::json!([
                {"label": "occ", "kernel": "k", "status": {"state": "passed"},
                 "block_size": 256, "smem_reserved": 0, "grid_size": 1,
                 "registers": registers, "static_smem": 0, "local_bytes": 0,
                 "blocks_per_sm": blocks, "warps_per_sm": blocks * 8,
                 "occupancy": f64::from(blocks * 8) / 64.0, "waves": 1.0},
                {"label": "timed", "kernel": "k", "status": {"state": "passed"},
                 "block_size": 256, "smem_reserved": 0, "grid_size": 1, "registers": 32,
                 "static_smem": 0, "local_bytes": 0, "blocks_per_sm": 8, "warps_per_sm": 64,
                 "occupancy": 1.0, "waves": 1.0,
                 "quantities": {"hits": {"value": hits, "unit": "%", "source": "ncu"}},
                 "timing": {"samples_ms": [1.0], "median_ms": 1.0, "min_ms": 1.0,
                            "max_ms": 1.0, "rsd": 0.0, "converged": true,
                            "interval": {"method": "m", "confidence": 0.95, "coverage": 0.95,
                                         "ranks": [1, 1], "lo": 0.999, "hi": 1.001}}}
            ]),
        )
    }

    #[test]
    fn untimed_rows_are_the_same_when_the_drivers_answers_match() {
        let cmp = compare(
            &record("GPU-1", 32, 8, 90.0),
            &record("GPU-2", 32, 8, 91.0),
            0.05,
        )
        .unwrap();
        assert_eq!(cmp.rows[0].verdict, Change::Same, "{:?}", cmp.rows[0]);
        assert_eq!(cmp.rows[1].verdict, Change::Same, "{:?}", cmp.rows[1]);
    }

    #[test]
    fn a_different_driver_answer_or_counter_is_different_naming_the_fields() {
        let cmp = compare(
            &record("GPU-1", 32, 8, 90.0),
            &record("GPU-2", 40, 6, 90.0),
            0.05,
        )
        .unwrap();
        let occ = &cmp.rows[0];
        assert_eq!(occ.verdict, Change::Different, "{occ:?}");
        let said = occ.notes.join("; ");
        assert!(
            said.contains("registers 32 -> 40") && said.contains("blocks_per_sm 8 -> 6"),
            "{said}"
        );
        // An ncu counter beyond its own band makes a timed row DIFFERENT, though its time
        // is the same.
        let cmp = compare(
            &record("GPU-1", 32, 8, 90.0),
            &record("GPU-2", 32, 8, 80.0),
            0.05,
        )
        .unwrap();
        assert_eq!(cmp.rows[1].verdict, Change::Different, "{:?}", cmp.rows[1]);
        assert!(
            cmp.rows[1].notes[0].contains("hits 90 -> 80"),
            "{:?}",
            cmp.rows[1]
        );
        assert_eq!(cmp.counter_tolerance, COUNTER_TOLERANCE);
    }

    #[test]
    fn the_same_not_launchable_answer_on_both_sides_is_the_same() {
        let mut old = record("GPU-1", 32, 8, 90.0);
        let refused = super::super::record::ConfigStatus::NotLaunchable {
            reason: "block size above the kernel's 256 threads per block".into(),
        };
        old.configs[0].status = refused.clone();
        let mut new = old.clone();
        let cmp = compare(&old, &new, 0.05).unwrap();
        assert_eq!(cmp.rows[0].verdict, Change::Same, "{:?}", cmp.rows[0]);
        new.configs[0].status = super::super::record::ConfigStatus::Passed;
        let cmp = compare(&old, &new, 0.05).unwrap();
        assert_eq!(cmp.rows[0].verdict, Change::Different, "{:?}", cmp.rows[0]);
        assert!(cmp.rows[0].notes[0].contains("status not launchable -> passed"));
    }

    #[test]
    fn a_counter_missing_on_one_side_is_a_note_not_a_difference() {
        let mut new = record("GPU-2", 32, 8, 90.0);
        new.configs[1].quantities.clear();
        let cmp = compare(&record("GPU-1", 32, 8, 90.0), &new, 0.05).unwrap();
        assert_eq!(cmp.rows[1].verdict, Change::Same, "{:?}", cmp.rows[1]);
        assert!(cmp.rows[1]
            .notes
            .iter()
            .any(|n| n == "hits not in the new record"));
    }
}
