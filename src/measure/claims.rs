//! Claims: statements in an entry that its records must support, checked at every build
//! against every kept run (the latest record and its history), each through the three-way
//! rule of [`crate::measure::verdict`]: a claim holds only when the whole interval of
//! what it states is on its side, on every run.

use crate::content::ClaimTest;
use crate::measure::record::{NoEstimate, Record};
use crate::measure::verdict::{self, Estimate, Side, Verdict};

use super::history::Run;

/// How a note about the whole record (not one claim) starts: said once per entry.
pub const LEGACY_NOTE: &str = "record ";

/// One claim judged on one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub verdict: Verdict,
    /// The numbers, with intervals, and what they were tested against.
    pub shown: String,
    /// What would hold, when it did not.
    pub advice: String,
    /// Things the reader of a holding claim should know (rows that did not converge, a
    /// record that predates intervals).
    pub notes: Vec<String>,
    /// How far the conservative interval clears the threshold, relative to it
    /// ([`verdict::margin`]; the tighter bound of two); negative when it does not hold.
    pub margin: f64,
    /// Whether the claim reads a timed value (one with an interval, sampled): only those
    /// move between runs by up to the experiment's band. Exact values (the driver's
    /// answers, the launch, counters) are the same on every run of a GPU model, or are
    /// `compare`d with their own tolerance, and are held to every kept run as they are.
    pub timed: bool,
}

impl Judged {
    /// The fragile-claim rule on this run ([`verdict::clears_band`]): `Some` with what to
    /// say when the claim holds by less than `band`.
    pub fn fragile(&self, band: f64) -> Option<String> {
        (self.verdict == Verdict::Holds && self.timed && !verdict::clears_band(self.margin, band))
            .then(|| fragile_note(self.margin, band))
    }
}

/// "clears its threshold by 1.9%, less than the experiment's 5% reproducibility band".
pub fn fragile_note(margin: f64, band: f64) -> String {
    format!(
        "its conservative interval clears the threshold by {:.1}%, less than the experiment's {:.0}% reproducibility band: another GPU of the model may not support it; state a threshold with a wider margin, pick rows further apart, or give `fragile_ok: <why>`",
        margin * 100.0,
        band * 100.0
    )
}

/// A claim that holds on every kept run.
#[derive(Debug, Clone, PartialEq)]
pub struct Supported {
    pub notes: Vec<String>,
    /// The smallest [`Judged::margin`] over the runs, and the run it is on (`latest`, or a
    /// history run's name).
    pub margin: f64,
    pub tightest_run: String,
    /// [`Judged::timed`] on any run: whether the band applies.
    pub timed: bool,
}

impl Supported {
    /// The fragile-claim rule over every kept run (what [`Judged::fragile`] says of one).
    pub fn fragile(&self, band: f64) -> Option<String> {
        (self.timed && !verdict::clears_band(self.margin, band)).then(|| {
            format!(
                "{} (tightest on run {})",
                fragile_note(self.margin, band),
                self.tightest_run
            )
        })
    }
}

impl Judged {
    fn refusal(&self) -> String {
        let mut out = self.shown.clone();
        if !self.advice.is_empty() {
            out = format!("{out}: {}", self.advice);
        }
        for n in &self.notes {
            out = format!("{out} ({n})");
        }
        out
    }
}

/// Check one claim against every kept run of a citation (`library::Citation`'s record and
/// history): the latest record first, then the history oldest first. `Ok` carries notes
/// for a claim that holds and its smallest margin over the runs; `Err` the numbers of the
/// first run it does not hold on, naming that run when it is not the latest, with the
/// threshold that would hold. The notes are the latest record's only: that is the record
/// the page cites and shows, so a note naming a row the page shows as converged (because
/// an earlier run of it was not) would contradict the page.
pub fn check_claim(
    test: &ClaimTest,
    column: &str,
    latest: &Record,
    history: &[Run],
) -> Result<Supported, String> {
    check_claim_roofed(test, column, latest, history, None)
}

/// What `share` and `bound` claims read besides the record: which metric reads which roof
/// (the experiment) and the roofs themselves (the node's peaks).
#[derive(Debug, Clone, Copy)]
pub struct Roofing<'a> {
    /// The experiment's metrics read against a roof (`Experiment::roofed`).
    pub metrics: &'a [super::roofs::Roofed],
    pub node: &'a crate::config::Node,
}

/// [`check_claim`], with the roofs `share` and `bound` claims are judged against.
pub fn check_claim_roofed(
    test: &ClaimTest,
    column: &str,
    latest: &Record,
    history: &[Run],
    roofing: Option<&Roofing<'_>>,
) -> Result<Supported, String> {
    let judge = |test: &ClaimTest, column: &str, record: &Record| {
        judge_roofed(test, column, record, roofing)
    };
    let latest = judge(test, column, latest)?;
    if latest.verdict != Verdict::Holds {
        return Err(latest.refusal());
    }
    let mut timed = latest.timed;
    let mut margin = latest.margin;
    let mut tightest_run = "latest".to_string();
    let notes = latest.notes;
    for run in history {
        let record = run
            .kept()
            .map_err(|why| format!("history run {}: {why}", run.path.display()))?;
        let Some(record) = record else { continue };
        let j = judge(test, column, record).map_err(|e| format!("on run {}: {e}", run.name()))?;
        if j.verdict != Verdict::Holds {
            return Err(format!(
                "holds on the latest record but {} on run {}: {}",
                j.verdict,
                run.name(),
                j.refusal()
            ));
        }
        timed |= j.timed;
        // A NaN margin (no interval) counts as the tightest: it must not pass unseen.
        if !matches!(
            j.margin.partial_cmp(&margin),
            Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
        ) {
            margin = j.margin;
            tightest_run = run.name();
        }
    }
    Ok(Supported {
        notes,
        margin,
        tightest_run,
        timed,
    })
}

/// Judge one claim on one record. `Err`: the record cannot answer (a row missing or
/// failed, a value without an interval).
pub fn judge(test: &ClaimTest, column: &str, record: &Record) -> Result<Judged, String> {
    judge_roofed(test, column, record, None)
}

/// [`judge`], with the roofs `share` and `bound` claims need (without them, such a claim
/// cannot be checked, and says so).
pub fn judge_roofed(
    test: &ClaimTest,
    column: &str,
    record: &Record,
    roofing: Option<&Roofing<'_>>,
) -> Result<Judged, String> {
    if let ClaimTest::Share { .. } | ClaimTest::Bound { .. } = test {
        let roofing = roofing.ok_or_else(|| {
            format!(
                "a share or bound claim needs node {}'s peaks, which were not given here",
                record.node
            )
        })?;
        return judge_share(test, column, record, roofing);
    }
    let mut notes = Vec::new();
    let timed = std::cell::Cell::new(false);
    let mut value = |row: &str| -> Result<Estimate, String> {
        let cfg = record
            .config(row)
            .ok_or_else(|| format!("record has no row `{row}`"))?;
        if let Some(reason) = cfg.status.problem() {
            return Err(format!("row `{row}` failed on the node: {reason}"));
        }
        let unconverged = cfg.unconverged().then(|| {
            format!(
                "row `{row}` stopped at the time cap without converging (rsd {:.2}%)",
                cfg.timing.as_ref().map_or(f64::NAN, |t| t.rsd * 100.0)
            )
        });
        match cfg.estimate(column, record.schema) {
            Ok(e) => {
                if e.legacy {
                    let n = format!(
                        "{LEGACY_NOTE}{}/{} (schema {}) predates intervals: its claims are checked on medians alone; re-measure",
                        record.experiment, record.node, record.schema
                    );
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
                if e.timed {
                    timed.set(true);
                }
                if let Some(n) = unconverged {
                    if !e.estimate.is_point() {
                        notes.push(n);
                    }
                }
                // A throttled row is said as an unconverged one is: the claim reads
                // samples some of which ran under a pulled-down clock.
                if e.timed && cfg.throttled() {
                    let t = cfg.timing.as_ref();
                    let why = record.clock_events(row);
                    notes.push(format!(
                        "row `{row}` ran throttled ({} of {} samples{})",
                        t.and_then(|t| t.throttled_samples).unwrap_or(0),
                        t.map_or(0, |t| t.samples_ms.len()),
                        if why.is_empty() {
                            String::new()
                        } else {
                            format!("; {}", why.join(", "))
                        }
                    ));
                }
                Ok(e.estimate)
            }
            Err(NoEstimate::Missing) => Err(format!("row `{row}` has no value for `{column}`")),
            Err(NoEstimate::NoInterval(why)) => Err(format!(
                "{column} of row `{row}` has no interval ({why}): a claim on it cannot hold{}",
                unconverged.map(|u| format!("; {u}")).unwrap_or_default()
            )),
        }
    };
    let (verdict, shown, advice, margin) = match test {
        ClaimTest::Within { rows, tolerance } => {
            let values = rows
                .iter()
                .map(|r| value(r).map(|v| (r.as_str(), v)))
                .collect::<Result<Vec<_>, _>>()?;
            let listed = values
                .iter()
                .map(|(r, v)| format!("{r} = {v:.4}"))
                .collect::<Vec<_>>()
                .join(", ");
            let pct = |e: Estimate| Estimate {
                value: e.value * 100.0,
                lo: e.lo * 100.0,
                hi: e.hi * 100.0,
            };
            match verdict::spread(&values.iter().map(|v| v.1).collect::<Vec<_>>()) {
                None => (
                    Verdict::Fails,
                    format!("{column}: {listed}; no spread (a value at or under zero)"),
                    String::new(),
                    f64::NAN,
                ),
                Some(s) => {
                    let v = verdict::at_most(s, *tolerance);
                    let shown = format!(
                        "{column}: {listed}; spread {:.1}% against {:.1}%",
                        pct(s),
                        tolerance * 100.0
                    );
                    let advice = match v {
                        Verdict::Holds => String::new(),
                        Verdict::Ambiguous => format!(
                            "the spread's interval straddles the tolerance: state `within: {:.4}` or more, or measure more",
                            s.hi
                        ),
                        Verdict::Fails => format!(
                            "the spread exceeds it on the whole interval: `within: {:.4}` would hold",
                            s.hi
                        ),
                    };
                    (
                        v,
                        shown,
                        advice,
                        verdict::margin(s, Side::Below, *tolerance),
                    )
                }
            }
        }
        ClaimTest::Ratio {
            of,
            to,
            below,
            above,
        } => {
            let (a, b) = (value(of)?, value(to)?);
            let base = format!("{column}: {of} = {a:.4}, {to} = {b:.4}");
            match verdict::ratio(a, b) {
                None => (
                    Verdict::Fails,
                    format!("{base}: no ratio (`{to}`'s interval reaches zero)"),
                    String::new(),
                    f64::NAN,
                ),
                Some(r) => {
                    let conservative = if r.is_point() {
                        String::new()
                    } else {
                        " (conservative: [of.lo / to.hi, of.hi / to.lo])".into()
                    };
                    let (v, bound, advice, margin) = bounds(r, *below, *above);
                    (
                        v,
                        format!("{base}, ratio {r:.3}{conservative}{bound}"),
                        advice,
                        margin,
                    )
                }
            }
        }
        ClaimTest::Share { .. } | ClaimTest::Bound { .. } => {
            unreachable!("judged by judge_share above")
        }
        ClaimTest::Value { row, below, above } => {
            let v = value(row)?;
            let (verdict, bound, advice, margin) = bounds(v, *below, *above);
            (
                verdict,
                format!("{column}: {row} = {v:.4}{bound}"),
                advice,
                margin,
            )
        }
    };
    Ok(Judged {
        verdict,
        shown,
        advice,
        notes,
        margin,
        timed: timed.get(),
    })
}

/// A row's share of the roof `metric` names, with the interval of its value: the
/// reading (roof at the row's clock, its source) and the share.
fn share_of(
    record: &Record,
    row: &str,
    metric: &str,
    readings: &std::collections::BTreeMap<(String, String), super::roofs::RoofReading>,
) -> Result<(super::roofs::RoofReading, Estimate), String> {
    let cfg = record
        .config(row)
        .ok_or_else(|| format!("record has no row `{row}`"))?;
    if let Some(reason) = cfg.status.problem() {
        return Err(format!("row `{row}` failed on the node: {reason}"));
    }
    let reading = readings
        .get(&(row.to_string(), metric.to_string()))
        .cloned()
        .ok_or_else(|| format!("row `{row}` has no share of `{metric}`'s roof (no value, or node {} lists no such peak in glossary.toml)", record.node))?;
    let e = match cfg.estimate(metric, record.schema) {
        Ok(e) => e.estimate,
        Err(NoEstimate::Missing) => return Err(format!("row `{row}` has no value for `{metric}`")),
        Err(NoEstimate::NoInterval(why)) => {
            return Err(format!(
                "{metric} of row `{row}` has no interval ({why}): a claim on it cannot hold"
            ))
        }
    };
    let p = reading.peak;
    Ok((reading, Estimate::new(e.value / p, e.lo / p, e.hi / p)))
}

fn pct(e: Estimate) -> String {
    if e.is_point() {
        format!("{:.1}%", e.value * 100.0)
    } else {
        format!(
            "{:.1}% [{:.1}%, {:.1}%]",
            e.value * 100.0,
            e.lo * 100.0,
            e.hi * 100.0
        )
    }
}

fn describe(r: &super::roofs::RoofReading) -> String {
    let clock = r.clock.phrase();
    format!(
        "the {} roof, {:.4} {}{}{} ({}, checked {})",
        r.roof,
        r.peak,
        r.unit,
        if clock.is_empty() { "" } else { " " },
        clock,
        r.source,
        r.checked
    )
}

/// `share` and `bound` claims: a row's share of its roof, and which roof is nearest.
fn judge_share(
    test: &ClaimTest,
    column: &str,
    record: &Record,
    roofing: &Roofing<'_>,
) -> Result<Judged, String> {
    let readings = super::roofs::readings(roofing.metrics, roofing.node, record);
    let column_roof = roofing
        .metrics
        .iter()
        .find(|m| m.metric == column)
        .map(|m| m.roof.clone())
        .ok_or_else(|| {
            format!("column `{column}` reads no roof: give its metric `roof:` in experiment.yaml")
        })?;
    let timed = record
        .configs
        .iter()
        .any(|c| c.quantities.get(column).is_some_and(|q| q.timed));
    let (verdict, shown, advice, margin) = match test {
        ClaimTest::Share { row, below, above } => {
            let (r, share) = share_of(record, row, column, &readings)?;
            let (v, bound, advice, margin) = bounds(share, *below, *above);
            (
                v,
                format!(
                    "{column}: {row} = {:.4} {}, {} of {}{bound}",
                    r.value,
                    r.unit,
                    pct(share),
                    describe(&r)
                ),
                advice,
                margin,
            )
        }
        ClaimTest::Bound {
            row,
            roof,
            threshold,
        } => {
            // Every roof the row has a reading for, with its share.
            let mut shares = Vec::new();
            for m in roofing.metrics {
                if readings.contains_key(&(row.clone(), m.metric.clone())) {
                    let (r, s) = share_of(record, row, &m.metric, &readings)?;
                    shares.push((m.metric.clone(), r, s));
                }
            }
            let listed = shares
                .iter()
                .map(|(m, r, s)| format!("{m}: {} of {}", pct(*s), describe(r)))
                .collect::<Vec<_>>()
                .join("; ");
            if roof == crate::content::LATENCY_BOUND {
                if shares.is_empty() {
                    return Err(format!("row `{row}` has no roof to be far from: no metric of it names a roof the node lists"));
                }
                let mut worst = (Verdict::Holds, String::new(), f64::INFINITY);
                for (m, _, s) in &shares {
                    let (v, _, _, margin) = bounds(*s, Some(*threshold), None);
                    worst.2 = worst.2.min(margin);
                    if v != Verdict::Holds && worst.0 == Verdict::Holds {
                        worst = (v, format!("`{m}` is not surely under {:.0}% of its roof: the row is near a roof, not latency-bound", threshold * 100.0), worst.2);
                    }
                }
                (
                    worst.0,
                    format!(
                        "row `{row}`, bound by latency (every share under {:.0}%): {listed}",
                        threshold * 100.0
                    ),
                    worst.1,
                    worst.2,
                )
            } else {
                if &column_roof != roof {
                    return Err(format!("claim says bound by `{roof}`, but column `{column}` reads roof `{column_roof}`: name the column that reads `{roof}`"));
                }
                let Some((_, r, mine)) = shares.iter().find(|(m, _, _)| m == column).cloned()
                else {
                    return Err(format!("row `{row}` has no share of `{roof}`"));
                };
                let (mut v, _, mut advice, margin) = bounds(mine, None, Some(*threshold));
                if v != Verdict::Holds {
                    advice = format!(
                        "its share of {roof} is not surely above {:.0}%: {advice}",
                        threshold * 100.0
                    );
                }
                // The named roof must be the nearest: its share above every other's, on
                // the whole interval.
                for (m, other, s) in &shares {
                    if m == column || other.roof == r.roof {
                        continue;
                    }
                    let nearer = if mine.lo > s.hi {
                        Verdict::Holds
                    } else if mine.hi < s.lo {
                        Verdict::Fails
                    } else {
                        Verdict::Ambiguous
                    };
                    if nearer != Verdict::Holds && v == Verdict::Holds {
                        v = nearer;
                        advice = format!("the {} roof ({m}, {}) is {} nearer than {roof}: the row is not surely bound by {roof}", other.roof, pct(*s), if nearer == Verdict::Fails { "" } else { "perhaps" });
                    }
                }
                (
                    v,
                    format!(
                        "row `{row}`, bound by {roof} (share above {:.0}%, nearest roof): {listed}",
                        threshold * 100.0
                    ),
                    advice,
                    margin,
                )
            }
        }
        _ => unreachable!("only share and bound claims come here"),
    };
    Ok(Judged {
        verdict,
        shown,
        advice,
        notes: Vec::new(),
        margin,
        timed,
    })
}

/// What a new run would do to the claims that cite its experiment on its node, said
/// before it is written: one line per claim that would not hold on it, or whose verdict
/// it changes, with the old and new numbers. `old`: the latest record it would replace.
pub fn preview(
    entries: &[crate::content::Entry],
    old: Option<&Record>,
    new: &Record,
    roofing: &Roofing<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    for entry in entries {
        for claim in &entry.meta.claims {
            let Ok(test) = claim.test() else { continue };
            let cites = entry.meta.claim_records(claim);
            if !cites.contains(&(new.experiment.clone(), new.node.clone())) {
                continue;
            }
            let said = |j: &Result<Judged, String>| match j {
                Ok(j) => (Some(j.verdict), j.refusal()),
                Err(why) => (None, why.clone()),
            };
            let (new_v, new_shown) = said(&judge_roofed(&test, &claim.column, new, Some(roofing)));
            let (old_v, old_shown) = match old {
                Some(o) => said(&judge_roofed(&test, &claim.column, o, Some(roofing))),
                None => (None, "no earlier record".into()),
            };
            if new_v == Some(Verdict::Holds) && old_v == new_v {
                continue;
            }
            let name = |v: Option<Verdict>| v.map_or("cannot be checked".into(), |v| v.to_string());
            out.push(format!(
                "{}: claim \"{}\" {} -> {} on this run; was: {old_shown}; now: {new_shown}",
                entry.id,
                claim.says,
                name(old_v),
                name(new_v),
            ));
        }
    }
    out
}

/// Every claim citing `experiment` on `node`, judged on each kept run, for `records
/// history`: one block per claim, a line per run with its verdict and margin, marked
/// fragile by the build's rule ([`Judged::fragile`]).
pub fn on_runs(
    entries: &[crate::content::Entry],
    experiment: &str,
    node: &str,
    runs: &[(String, &Record)],
    band: f64,
    roofing: &Roofing<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    for entry in entries {
        for claim in &entry.meta.claims {
            let Ok(test) = claim.test() else { continue };
            if !entry
                .meta
                .claim_records(claim)
                .contains(&(experiment.to_string(), node.to_string()))
            {
                continue;
            }
            let mut block = format!("\nclaim of {}: \"{}\"", entry.id, claim.says);
            if let Some(why) = &claim.fragile_ok {
                block.push_str(&format!(" (fragile_ok: {why})"));
            }
            for (name, record) in runs {
                let line = match judge_roofed(&test, &claim.column, record, Some(roofing)) {
                    Err(why) => format!("cannot be checked: {why}"),
                    Ok(j) => {
                        let fragile = if j.fragile(band).is_some() {
                            format!(", FRAGILE (band {:.0}%)", band * 100.0)
                        } else {
                            String::new()
                        };
                        format!(
                            "{} by {:.1}%{fragile} on GPU {}: {}",
                            j.verdict,
                            j.margin * 100.0,
                            record.gpu.uuid,
                            j.shown
                        )
                    }
                };
                block.push_str(&format!("\n  {name}: {line}"));
            }
            out.push(block);
        }
    }
    out
}

/// Both bounds of a `below`/`above` claim: the worse verdict, with the bound it is about,
/// and the smaller margin.
fn bounds(e: Estimate, below: Option<f64>, above: Option<f64>) -> (Verdict, String, String, f64) {
    let decimals = if e.value.abs() >= 100.0 { 1 } else { 3 };
    let mut worst = (Verdict::Holds, String::new(), String::new());
    let mut margin = f64::INFINITY;
    for (side, t) in [(Side::Below, below), (Side::Above, above)] {
        let Some(t) = t else { continue };
        let m = verdict::margin(e, side, t);
        // NaN counts as the tightest, as above.
        if !matches!(
            m.partial_cmp(&margin),
            Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
        ) {
            margin = m;
        }
        let v = verdict::bound(e, side, t);
        let rank = |v: Verdict| match v {
            Verdict::Holds => 0,
            Verdict::Ambiguous => 1,
            Verdict::Fails => 2,
        };
        if rank(v) > rank(worst.0) {
            let word = if side == Side::Below {
                "below"
            } else {
                "above"
            };
            let what = if v == Verdict::Fails {
                "not"
            } else {
                "not surely"
            };
            worst = (
                v,
                format!(", {what} {word} {t}"),
                v.advice(e, side, decimals),
            );
        }
    }
    (worst.0, worst.1, worst.2, margin)
}

#[cfg(test)]
mod tests;
