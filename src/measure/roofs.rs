//! Roofs: each measured row set against the physical limit of the GPU it ran on. A metric
//! names its roof (`roof: dram` in experiment.yaml), the node lists its peaks
//! (`[nodes.NAME.peaks]` in glossary.toml, `config::Peak`), and the record says what the
//! row ran at (its SMs, the SM clock seen while its samples ran). From those three:
//!
//! - the roof in the metric's own unit at the row's clock, and the row's share of it
//!   (tables, claims, the roofline chart);
//! - rows above their roof by more than the measurement's band: impossible, refused by
//!   `verify` (no record written) and by `check` (a cited row of an impossible record).
//!
//! Clocks: a roof that follows the SM clock is taken at the clock seen while the row's
//! samples ran (the record's `sm_clock_mhz`), or at the driver's maximum where no reading
//! covered the row, and [`RoofReading::clock`] says which. An impossible row is judged at
//! the higher of the two, so a low clock reading never refuses a real row.

use std::collections::BTreeMap;
use std::fmt;

use crate::config::{Node, Peak};
use crate::measure::record::{ConfigRecord, Record};
pub use crate::rates::{metric_fits_roof, share_column};
use crate::rates::{roof, RateUnit};

/// A metric an experiment reads against a roof (`roof:` in experiment.yaml), as the
/// experiment names it: what this module takes, so it needs no more of the experiment
/// (`ExperimentSpec::roofed` makes the list).
#[derive(Debug, Clone, PartialEq)]
pub struct Roofed {
    pub metric: String,
    pub roof: String,
    pub unit: String,
}

/// Which SM clock a roof was taken at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockUsed {
    /// The roof does not move with the SM clock (DRAM bandwidth).
    None,
    /// The median SM clock read while the row's samples ran.
    Seen(u32),
    /// The driver's maximum SM clock: no reading covered the row.
    DriverMax(u32),
}

impl ClockUsed {
    /// "at 1980 MHz, the clock seen", for a page.
    pub fn phrase(&self) -> String {
        match self {
            ClockUsed::None => String::new(),
            ClockUsed::Seen(m) => format!("at {m} MHz, the SM clock seen while the row ran"),
            ClockUsed::DriverMax(m) => {
                format!(
                    "at {m} MHz, the driver's maximum SM clock (no clock reading covered the row)"
                )
            }
        }
    }
}

/// A row's metric against its roof.
#[derive(Debug, Clone, PartialEq)]
pub struct RoofReading {
    pub roof: String,
    /// What the roof is ("DRAM bandwidth").
    pub what: &'static str,
    pub value: f64,
    /// The roof in the metric's unit at [`RoofReading::clock`].
    pub peak: f64,
    pub unit: String,
    pub clock: ClockUsed,
    pub source: String,
    pub checked: chrono::NaiveDate,
}

impl RoofReading {
    pub fn share(&self) -> f64 {
        self.value / self.peak
    }
}

/// A row whose metric is above its roof by more than the measurement's band.
#[derive(Debug, Clone, PartialEq)]
pub struct AboveRoof {
    pub node: String,
    pub row: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub roof: String,
    /// The roof in the metric's unit, at the highest clock the row could have run at.
    pub peak: f64,
    pub clock: ClockUsed,
    pub source: String,
    pub band: f64,
}

impl fmt::Display for AboveRoof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = match self.clock {
            ClockUsed::None => String::new(),
            ClockUsed::Seen(m) | ClockUsed::DriverMax(m) => format!(" at {m} MHz"),
        };
        write!(
            f,
            "row `{}`: {} = {} {} is above the {} roof of {} {}{at} ({}) by more than the measurement's band of {:.0}%: no GPU of this node can do that, so a byte or FLOP count is wrong or the compiler removed work",
            self.row,
            self.metric,
            sig(self.value),
            self.unit,
            self.roof,
            sig(self.peak),
            self.unit,
            self.source,
            self.band * 100.0
        )
    }
}

/// Four significant digits, for messages and notes.
pub fn sig(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return v.to_string();
    }
    let digits = (3 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

/// The SMs and the clocks of a row, as its record says.
struct RowClock {
    sms: f64,
    seen: Option<u32>,
    max: Option<u32>,
}

fn row_clock(record: &Record, row: &ConfigRecord) -> RowClock {
    let sms = record
        .device
        .get("sm_count")
        .map(|&n| n as f64)
        .unwrap_or(f64::from(record.gpu.sm_count));
    let max = record
        .device
        .get("clock_mhz")
        .and_then(|&m| u32::try_from(m).ok())
        .filter(|&m| m > 0);
    RowClock {
        sms,
        seen: row
            .timing
            .as_ref()
            .and_then(|t| t.sm_clock_mhz)
            .filter(|&m| m > 0),
        max,
    }
}

/// The roof of `metric` in its `unit`, for `row`: at the clock seen (`highest` false) or
/// at the highest clock the row could have run at (`highest` true). None where the roof
/// follows the clock and the record knows none.
fn peak_for(
    peak: &Peak,
    unit: &RateUnit,
    clock: &RowClock,
    highest: bool,
) -> Option<(f64, ClockUsed)> {
    if !peak.form.follows_clock() && unit.per == crate::rates::Per::Second {
        return Some((peak.form.in_unit(unit, clock.sms, 1.0), ClockUsed::None));
    }
    let (mhz, used) = match (clock.seen, clock.max) {
        // Judged at the highest clock: the maximum unless a reading saw more.
        (Some(s), Some(m)) if highest && m >= s => (m, ClockUsed::DriverMax(m)),
        (Some(s), _) => (s, ClockUsed::Seen(s)),
        (None, Some(m)) => (m, ClockUsed::DriverMax(m)),
        (None, None) => return None,
    };
    Some((peak.form.in_unit(unit, clock.sms, f64::from(mhz)), used))
}

/// Every roofed metric of every passed row of `record`, read against `node`'s peaks: the
/// table a citation keeps. A metric whose roof the node does not list, or whose value is
/// missing, has no reading.
pub fn readings(
    metrics: &[Roofed],
    node: &Node,
    record: &Record,
) -> BTreeMap<(String, String), RoofReading> {
    let mut out = BTreeMap::new();
    for m in metrics {
        let (metric, roof_name) = (&m.metric, &m.roof);
        let (Some(peak), Ok(unit)) = (
            node.peaks.get(roof_name.as_str()),
            metric_fits_roof(roof_name, &m.unit),
        ) else {
            continue;
        };
        let what = roof(roof_name).map_or("", |(_, w)| w);
        for row in record
            .configs
            .iter()
            .filter(|c| c.status.problem().is_none())
        {
            let Some(value) = row.number(metric) else {
                continue;
            };
            let Some((p, clock)) = peak_for(peak, &unit, &row_clock(record, row), false) else {
                continue;
            };
            out.insert(
                (row.label.clone(), metric.clone()),
                RoofReading {
                    roof: roof_name.clone(),
                    what,
                    value,
                    peak: p,
                    unit: m.unit.clone(),
                    clock,
                    source: peak.raw.source.clone(),
                    checked: peak.raw.checked,
                },
            );
        }
    }
    out
}

/// One of a node's peaks, as a chart draws it: per second for the whole device, at the
/// driver's maximum SM clock where it follows the clock.
#[derive(Debug, Clone, PartialEq)]
pub struct NodePeak {
    pub roof: String,
    pub work: crate::rates::Work,
    pub what: &'static str,
    /// Work per second (bytes, FLOP, warp exchanges).
    pub per_s: f64,
    pub clock: ClockUsed,
    pub source: String,
}

/// Every peak `node` lists, for the GPU `record` describes (its SMs, its maximum clock).
/// A peak that follows the clock is left out when the record knows no clock.
pub fn node_peaks(node: &Node, record: &Record) -> Vec<NodePeak> {
    let sms = record
        .device
        .get("sm_count")
        .map(|&n| n as f64)
        .unwrap_or(f64::from(record.gpu.sm_count));
    let max = record
        .device
        .get("clock_mhz")
        .and_then(|&m| u32::try_from(m).ok())
        .filter(|&m| m > 0);
    node.peaks
        .iter()
        .filter_map(|(name, peak)| {
            let (clock, mhz) = match (peak.form.follows_clock(), max) {
                (false, _) => (ClockUsed::None, 1.0),
                (true, Some(m)) => (ClockUsed::DriverMax(m), f64::from(m)),
                (true, None) => return None,
            };
            let (_, what) = roof(name.as_str())?;
            Some(NodePeak {
                roof: name.as_str().to_string(),
                work: peak.work,
                what,
                per_s: peak.form.per_s(sms, mhz),
                clock,
                source: peak.raw.source.clone(),
            })
        })
        .collect()
}

/// What `verify` prints for a record it writes: per roofed metric, each row's share of
/// its roof, the roof's value and source, and the clock it was taken at.
pub fn shares_said(metrics: &[Roofed], node: &Node, record: &Record) -> Vec<String> {
    let readings = readings(metrics, node, record);
    let mut out = Vec::new();
    for metric in metrics.iter().map(|m| &m.metric) {
        let rows: Vec<&RoofReading> = record
            .configs
            .iter()
            .filter_map(|c| readings.get(&(c.label.clone(), metric.clone())))
            .collect();
        let Some(first) = rows.first() else { continue };
        let shares = record
            .configs
            .iter()
            .filter_map(|c| {
                let r = readings.get(&(c.label.clone(), metric.clone()))?;
                let at = match r.clock {
                    ClockUsed::None => String::new(),
                    ClockUsed::Seen(m) => format!(" at {m} MHz seen"),
                    ClockUsed::DriverMax(m) => format!(" at {m} MHz (max; no reading)"),
                };
                Some(format!(
                    "{} {:.1}% of {} {}{at}",
                    c.label,
                    r.share() * 100.0,
                    sig(r.peak),
                    r.unit
                ))
            })
            .collect::<Vec<_>>()
            .join(", ");
        out.push(format!(
            "{metric} against the {} roof ({}, checked {}): {shares}",
            first.roof, first.source, first.checked
        ));
    }
    out
}

/// The rows of `record` above their roof by more than `band`, judged at the highest
/// clock each could have run at. `band` is the experiment's reproducibility tolerance
/// (`timing.reproducibility`, default 5%), the margin its numbers are compared with
/// anywhere else. One rule for `verify` (before a record is written) and for citations
/// (`Library::cite`).
pub fn above_roof(metrics: &[Roofed], band: f64, node: &Node, record: &Record) -> Vec<AboveRoof> {
    let mut out = Vec::new();
    for row in record
        .configs
        .iter()
        .filter(|c| c.status.problem().is_none())
    {
        for m in metrics {
            let (metric, roof_name) = (&m.metric, &m.roof);
            let (Some(peak), Ok(unit)) = (
                node.peaks.get(roof_name.as_str()),
                metric_fits_roof(roof_name, &m.unit),
            ) else {
                continue;
            };
            let Some(value) = row.number(metric) else {
                continue;
            };
            let Some((p, clock)) = peak_for(peak, &unit, &row_clock(record, row), true) else {
                continue;
            };
            if value > p * (1.0 + band) {
                out.push(AboveRoof {
                    node: record.node.clone(),
                    row: row.label.clone(),
                    metric: metric.clone(),
                    value,
                    unit: m.unit.clone(),
                    roof: roof_name.clone(),
                    peak: p,
                    clock,
                    source: peak.raw.source.clone(),
                    band,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
