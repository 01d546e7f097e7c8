//! Records: what `verify` measured on one node for one experiment, with provenance.
//! Stored at `measurements/<id>/records/<node>.json`.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::measure::verdict::Estimate;

/// 2: timed quantities carry intervals ([`Timing::interval`], [`Quantity::interval`]).
/// A schema-1 record has none; its claims are checked on medians alone, with a warning
/// to re-measure (see [`ConfigRecord::estimate`]).
pub const RECORD_SCHEMA: u32 = 2;

/// The first schema whose timed quantities carry intervals.
pub const SCHEMA_WITH_INTERVALS: u32 = 2;

/// What [`Timing::interval`] is, as the record says it.
pub const MEDIAN_INTERVAL_METHOD: &str =
    "median, order-statistic 95% CI (distribution-free, binomial)";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Record {
    pub schema: u32,
    pub experiment: String,
    pub node: String,
    /// The experiment digest at capture time; a differing current digest makes it stale.
    pub spec_digest: String,
    pub tool_version: String,
    pub captured_at: DateTime<Utc>,
    pub gpu: GpuInfo,
    /// The exact NVRTC options used, the architecture flag included (`{param}`s as
    /// written; each config's params say what they were).
    pub compile_options: Vec<String>,
    /// The device properties experiment expressions could read (`l2_bytes`, `sm_count`...),
    /// as read from the device.
    #[serde(default)]
    pub device: BTreeMap<String, i64>,
    /// True when written with `--allow-partial` although some configs failed (they are
    /// in `configs`, marked failed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    #[serde(default)]
    pub configs: Vec<ConfigRecord>,
    /// Provenance details: timing policy, seed, where ncu metrics came from...
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub extra: serde_json::Value,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct GpuInfo {
    pub name: String,
    pub uuid: String,
    pub compute_capability: String,
    pub sm_count: u32,
    pub driver_version: String,
    pub cuda_driver_api: String,
    pub nvrtc_version: String,
    #[serde(default)]
    pub l2_bytes: Option<u64>,
}

/// Per-SM and per-block limits from `cuDeviceGetAttribute`: what an occupancy model needs
/// to reproduce the driver's answers. Stored in `Record::extra` under `device_limits` (a
/// field of its own would break code that builds `GpuInfo` literally).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DeviceLimits {
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    pub registers_per_block: u32,
    pub shared_memory_per_sm: u32,
    pub shared_memory_per_block: u32,
    pub shared_memory_per_block_optin: u32,
    pub reserved_shared_memory_per_block: u32,
    /// The maximum SM clock (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`), in MHz.
    pub max_sm_clock_mhz: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum ConfigStatus {
    Passed,
    /// The outputs differed from the reference (or the kernel failed to launch): no
    /// timing is recorded.
    Failed {
        reason: String,
        /// Elements that differ, and the first of them, where outputs were compared.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wrong: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_index: Option<u64>,
    },
    /// An occupancy query for a launch that cannot exist (block too large, more shared
    /// memory than a block may have): recorded, not a failure.
    NotLaunchable {
        reason: String,
    },
}

impl ConfigStatus {
    pub fn failed(reason: impl Into<String>) -> ConfigStatus {
        ConfigStatus::Failed {
            reason: reason.into(),
            wrong: None,
            first_index: None,
        }
    }

    /// Why the row cannot be cited, if it cannot.
    pub fn problem(&self) -> Option<&str> {
        match self {
            ConfigStatus::Passed => None,
            ConfigStatus::Failed { reason, .. } | ConfigStatus::NotLaunchable { reason } => {
                Some(reason)
            }
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ConfigRecord {
    pub label: String,
    /// The timed launch's kernel.
    pub kernel: String,
    pub status: ConfigStatus,
    /// Every param and axis value of this configuration.
    #[serde(default)]
    pub params: BTreeMap<String, i64>,
    /// Threads per block (the product of `block`).
    pub block_size: u32,
    #[serde(default = "one3")]
    pub block: [u32; 3],
    #[serde(default = "one3")]
    pub grid: [u32; 3],
    /// Bytes of dynamic shared memory of the timed launch (given, or reserved and never
    /// read to dial occupancy down).
    pub smem_reserved: u32,
    /// Blocks in the grid.
    pub grid_size: u64,
    pub registers: u32,
    pub static_smem: u32,
    pub local_bytes: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    /// Theoretical occupancy, 0..1, from the driver.
    pub occupancy: f64,
    pub waves: f64,
    #[serde(default)]
    pub achieved_occupancy: Option<f64>,
    #[serde(default)]
    pub timing: Option<Timing>,
    /// Metrics (expressions of params, launch and time) and Nsight Compute metrics.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub quantities: BTreeMap<String, Quantity>,
}

fn one3() -> [u32; 3] {
    [1, 1, 1]
}

impl Default for ConfigRecord {
    /// An empty passed row; fixtures fill in what they need.
    fn default() -> ConfigRecord {
        ConfigRecord {
            label: String::new(),
            kernel: String::new(),
            status: ConfigStatus::Passed,
            params: BTreeMap::new(),
            block_size: 0,
            block: one3(),
            grid: one3(),
            smem_reserved: 0,
            grid_size: 0,
            registers: 0,
            static_smem: 0,
            local_bytes: 0,
            blocks_per_sm: 0,
            warps_per_sm: 0,
            occupancy: 0.0,
            waves: 0.0,
            achieved_occupancy: None,
            timing: None,
            quantities: BTreeMap::new(),
        }
    }
}

/// How a row's timed launch ran when it was not one plain launch a sample: its
/// thread-block cluster and how each sample ran it. Kept in `Record::extra` under
/// [`TIMED_LAUNCHES`], by label, for the rows that have one (a field of `ConfigRecord`
/// would break code that builds rows literally); a plain row has no entry, so its record
/// is as it always was.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct TimedLaunch {
    /// Thread-block cluster dimensions, launched with `cuLaunchKernelEx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<[u32; 3]>,
    /// Launches between a sample's two events.
    pub repeat: u32,
    /// True: those launches were captured once into a CUDA graph, launched once a sample.
    pub graph: bool,
}

/// The key of `Record::extra` that holds each non-plain row's [`TimedLaunch`].
pub const TIMED_LAUNCHES: &str = "timed_launches";

/// The key of `Record::extra` that holds, by row label, the clock-event reasons NVML
/// reported while the row's samples ran (`sw_power_cap`, `hw_thermal_slowdown`...; see
/// `run::clocks::REASONS`). Rows with none, and records from before NVML was read, have
/// no entry: a record without the key loads as it always did.
pub const CLOCK_EVENTS: &str = "clock_events";

/// A named measured or derived value with its unit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Quantity {
    /// None: not measured (then `not_measured` says why).
    pub value: Option<f64>,
    pub unit: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decimals: Option<usize>,
    /// "metric" (an expression of the experiment) or "ncu".
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_measured: Option<String>,
    /// True for a metric read from sampled time (directly or through another metric):
    /// its value is an estimate, and `interval` says how good. False: exact for the
    /// record (params, the device, the launch, an ncu counter).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed: bool,
    /// The interval of a timed metric; None when the time it reads has none (too few
    /// samples), or its expression has no interval (a divisor's interval spans zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Bounds>,
}

impl Quantity {
    /// A derived metric's value (fixtures, generated corpora).
    pub fn metric(value: f64, unit: &str, heading: Option<&str>, decimals: usize) -> Quantity {
        Quantity {
            value: Some(value),
            unit: unit.into(),
            heading: heading.map(str::to_string),
            decimals: Some(decimals),
            source: "metric".into(),
            not_measured: None,
            timed: false,
            interval: None,
        }
    }

    /// A metric of the time with its interval (fixtures, generated corpora).
    pub fn timed_metric(
        value: f64,
        interval: Bounds,
        unit: &str,
        heading: Option<&str>,
        decimals: usize,
    ) -> Quantity {
        Quantity {
            timed: true,
            interval: Some(interval),
            ..Quantity::metric(value, unit, heading, decimals)
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    pub samples_ms: Vec<f64>,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Relative standard deviation of the samples (0.005 = 0.5%).
    pub rsd: f64,
    #[serde(default)]
    pub sm_clock_mhz: Option<u32>,
    /// Samples whose batch saw the SM clock under the throttle floor. None: no clock
    /// reading covered any sample (no nvidia-smi, or it read nothing), so unknown, not 0.
    #[serde(default)]
    pub throttled_samples: Option<u32>,
    /// Samples whose batch no clock reading covered: neither throttled nor known not to be.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unobserved_samples: u32,
    /// False when the time cap stopped sampling before the spread fell under the bound.
    pub converged: bool,
    /// The median host (CPU) time, in ms, that enqueueing one sample's launches took: the
    /// launch calls' own cost, timed with the host's clock, not the GPU's events. None in
    /// records made before verify kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_median_ms: Option<f64>,
    /// The median's confidence interval, made from `samples_ms` once, at verify time
    /// (`run::stats::median_interval`). None in a schema-1 record, and with fewer than 6
    /// samples (no 95% order-statistic interval exists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<MedianInterval>,
}

/// The median's interval as a record keeps it: the sorted samples' `ranks` (1-based) that
/// bound it, their values, the confidence it was made for and the exact binomial coverage
/// of those ranks (at least the confidence).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MedianInterval {
    pub method: String,
    pub confidence: f64,
    pub coverage: f64,
    pub ranks: [u32; 2],
    pub lo: f64,
    pub hi: f64,
}

/// A derived quantity's interval: its expression evaluated over the intervals of the
/// timed quantities it reads (interval arithmetic; see `Expr::eval_interval`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
}

/// A cell of a measured table, with its unit so the renderer formats it one way everywhere.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValue {
    Text(String),
    Integer(i64),
    /// 0..1, shown as a percentage.
    Fraction(f64),
    Number {
        value: f64,
        decimals: usize,
    },
}

impl ColumnValue {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ColumnValue::Text(_) => None,
            ColumnValue::Integer(i) => Some(*i as f64),
            ColumnValue::Fraction(f) => Some(*f),
            ColumnValue::Number { value, .. } => Some(*value),
        }
    }

    pub fn display(&self) -> String {
        match self {
            ColumnValue::Text(s) => s.clone(),
            ColumnValue::Integer(i) => i.to_string(),
            ColumnValue::Fraction(f) => format!("{:.1}%", f * 100.0),
            ColumnValue::Number { value, decimals } => {
                let text = format!("{value:.decimals$}");
                // A value that rounds to nothing at the metric's digits but is not zero
                // (16 KiB of a 50 MiB L2 is 0.0003, not "0.000") keeps two significant
                // digits, so a table, a chart tick and prose never print a false zero.
                if *value != 0.0
                    && value.is_finite()
                    && text.bytes().all(|b| matches!(b, b'0' | b'.' | b'-'))
                {
                    let decimals = (-value.abs().log10().floor()) as usize + 1;
                    format!("{value:.decimals$}")
                } else {
                    text
                }
            }
        }
    }

    /// How [`ColumnValue::display`] shows a number: digits after the point, the factor
    /// from the value to what is shown, and the unit after it. None for text.
    fn shown_as(&self) -> Option<(usize, f64, &'static str)> {
        match self {
            ColumnValue::Text(_) => None,
            ColumnValue::Integer(_) => Some((0, 1.0, "")),
            ColumnValue::Fraction(_) => Some((1, 100.0, "%")),
            ColumnValue::Number { decimals, .. } => Some((*decimals, 1.0, "")),
        }
    }

    /// The value's 95% interval as every table and chart prints it after the value: ` ±h`,
    /// `h` the larger distance from the value to an end, in the value's own unit and
    /// digits. The one rule for intervals on a page (a chart draws the table's cell).
    ///
    /// `Narrow` when `h` rounds to zero at those digits: an interval narrower than the
    /// last digit shown prints no `±`, since `±0.000` would read as an exact number; the
    /// caller says so once under the table, with `h` in the digits it needs.
    pub fn interval_text(&self, lo: f64, hi: f64) -> IntervalText {
        let (Some(value), Some((decimals, scale, unit))) = (self.as_f64(), self.shown_as()) else {
            return IntervalText::None;
        };
        let half = (value - lo).max(hi - value) * scale;
        if !(half.is_finite() && half > 0.0) {
            return IntervalText::None;
        }
        let text = format!("{half:.decimals$}");
        if text.bytes().all(|b| b == b'0' || b == b'.') {
            return IntervalText::Narrow(half, unit);
        }
        IntervalText::Shown(format!(" ±{text}{unit}"))
    }
}

/// What [`ColumnValue::interval_text`] makes of an interval.
#[derive(Debug, Clone, PartialEq)]
pub enum IntervalText {
    /// Nothing to print: text, or no width.
    None,
    /// ` ±h`, to put after the value.
    Shown(String),
    /// Narrower than the last digit shown: the half-width as shown (scaled, with its unit).
    Narrow(f64, &'static str),
}

/// `h` with one significant digit, for an interval narrower than the table's digits
/// (`0.0003`): as many decimals as that digit needs.
pub fn one_significant(h: f64) -> String {
    if !(h.is_finite() && h > 0.0) {
        return "0".to_string();
    }
    let decimals = (-h.log10().floor()).max(0.0) as usize;
    format!("{h:.decimals$}")
}

/// Names every record has, with their headings (unit in parentheses). Params, metrics and
/// ncu metrics come from the record itself.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("label", "label"),
    ("kernel", "kernel"),
    ("block_size", "block size (threads)"),
    ("grid_size", "grid (blocks)"),
    ("smem_reserved", "dynamic smem (B)"),
    ("static_smem", "static smem (B)"),
    ("local_bytes", "local memory (B)"),
    ("blocks_per_sm", "blocks / SM"),
    ("warps_per_sm", "warps / SM"),
    ("occupancy", "occupancy (%)"),
    ("achieved_occupancy", "achieved occupancy (%)"),
    ("registers", "registers / thread"),
    ("waves", "waves"),
    ("median_ms", "median (ms)"),
    ("min_ms", "min (ms)"),
    ("max_ms", "max (ms)"),
    ("rsd", "spread (rsd, %)"),
];

/// Built-in names that come from sampling, and so inherit a sampling caveat.
pub const TIMING_NAMES: &[&str] = &["median_ms", "min_ms", "max_ms", "rsd"];

pub fn built_in_heading(name: &str) -> Option<&'static str> {
    BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

/// `heading (unit)`, or the heading alone for a unitless quantity.
pub fn with_unit(heading: &str, unit: &str) -> String {
    if unit.is_empty() {
        heading.to_string()
    } else {
        format!("{heading} ({unit})")
    }
}

impl ConfigRecord {
    /// The value of a named quantity, or None when this config has none (timing of a
    /// failed config, an ncu metric without ncu, a name it does not have).
    pub fn column(&self, name: &str) -> Option<ColumnValue> {
        use ColumnValue::*;
        let t = self.timing.as_ref();
        let ms = |v: f64| Number {
            value: v,
            decimals: 3,
        };
        Some(match name {
            "label" => Text(self.label.clone()),
            "kernel" => Text(self.kernel.clone()),
            "block_size" => Integer(self.block_size.into()),
            "grid_size" => Integer(self.grid_size as i64),
            "smem_reserved" => Integer(self.smem_reserved.into()),
            "static_smem" => Integer(self.static_smem.into()),
            "local_bytes" => Integer(self.local_bytes.into()),
            "blocks_per_sm" => Integer(self.blocks_per_sm.into()),
            "warps_per_sm" => Integer(self.warps_per_sm.into()),
            "occupancy" => Fraction(self.occupancy),
            "achieved_occupancy" => Fraction(self.achieved_occupancy?),
            "registers" => Integer(self.registers.into()),
            "waves" => Number {
                value: self.waves,
                decimals: 2,
            },
            "median_ms" => ms(t?.median_ms),
            "min_ms" => ms(t?.min_ms),
            "max_ms" => ms(t?.max_ms),
            "rsd" => Fraction(t?.rsd),
            _ => {
                if let Some(p) = self.params.get(name) {
                    return Some(Integer(*p));
                }
                let q = self.quantities.get(name)?;
                let value = q.value?;
                match q.decimals {
                    Some(0) if value.abs() < 9.0e15 => Integer(value.round() as i64),
                    d => Number {
                        value,
                        decimals: d.unwrap_or(2),
                    },
                }
            }
        })
    }

    /// A number by name, for claims and prose.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.column(name).and_then(|v| v.as_f64())
    }

    /// A number by name with its interval, for everything that decides from numbers
    /// (claims, `near_best`, `compare`): the median with its order-statistic interval, a
    /// metric of time with its interval through the expression, anything exact (params,
    /// the launch, ncu counters, metrics of those) as a point. `schema` is the record's:
    /// a schema-1 record has no intervals, and its numbers are read as points
    /// ([`Estimated::legacy`] says so, for a "re-measure" warning).
    pub fn estimate(&self, name: &str, schema: u32) -> Result<Estimated, NoEstimate> {
        let legacy = schema < SCHEMA_WITH_INTERVALS;
        let value = self.number(name).ok_or(NoEstimate::Missing)?;
        let point = |legacy, timed| Estimated {
            estimate: Estimate::point(value),
            legacy,
            timed,
        };
        let timed = |interval: Option<(f64, f64)>, why: String| match (interval, legacy) {
            (_, true) => Ok(point(true, true)),
            (Some((lo, hi)), false) => Ok(Estimated {
                estimate: Estimate::new(value, lo, hi),
                legacy: false,
                timed: true,
            }),
            (None, false) => Err(NoEstimate::NoInterval(why)),
        };
        let few = |t: &Timing| {
            format!(
                "{} samples give no 95% interval for the median (at least {} do)",
                t.samples_ms.len(),
                crate::measure::verdict::MIN_SAMPLES_FOR_INTERVAL
            )
        };
        match name {
            "median_ms" => {
                let t = self.timing.as_ref().ok_or(NoEstimate::Missing)?;
                timed(t.interval.as_ref().map(|i| (i.lo, i.hi)), few(t))
            }
            n if TIMING_NAMES.contains(&n) => timed(
                None,
                format!("`{n}` is a statistic of one run's samples with no interval; compare medians (median_ms, or a metric of it)"),
            ),
            _ => match self.quantities.get(name) {
                Some(q) if q.timed => timed(
                    q.interval.map(|b| (b.lo, b.hi)),
                    match &self.timing {
                        Some(t) if t.interval.is_none() => few(t),
                        _ => format!("`{name}`'s expression gives no interval (it reads a time statistic other than the median, or divides by an interval that spans zero)"),
                    },
                ),
                _ => Ok(point(false, false)),
            },
        }
    }

    /// The share of this row's samples a clock reading covered (0..1); None for a row
    /// without samples.
    pub fn clock_coverage(&self) -> Option<f64> {
        let t = self.timing.as_ref()?;
        let n = t.samples_ms.len();
        (n > 0).then(|| 1.0 - f64::from(t.unobserved_samples).min(n as f64) / n as f64)
    }

    /// True when a clock reading saw some of this row's samples throttled: the clock under
    /// the floor, or a reason that pulls it down (`run::clocks::judge`).
    pub fn throttled(&self) -> bool {
        self.timing
            .as_ref()
            .and_then(|t| t.throttled_samples)
            .is_some_and(|n| n > 0)
    }

    /// True when this row's sampling stopped at the time cap (or the sample limit)
    /// before its spread fell under `max_rsd`.
    pub fn unconverged(&self) -> bool {
        self.timing.as_ref().is_some_and(|t| !t.converged)
    }
}

/// A number and its interval, from [`ConfigRecord::estimate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimated {
    pub estimate: Estimate,
    /// Read as a point from a schema-1 record, which predates intervals: re-measure.
    pub legacy: bool,
    /// A time or a metric of time: sampled, so it moves between runs by up to the
    /// experiment's reproducibility band. False for exact values (params, the launch,
    /// the driver's answers, ncu counters, metrics of those).
    pub timed: bool,
}

/// Why [`ConfigRecord::estimate`] has no estimate.
#[derive(Debug, Clone, PartialEq)]
pub enum NoEstimate {
    /// The row has no value of that name.
    Missing,
    /// A value of the time without an interval, and why.
    NoInterval(String),
}

impl Record {
    pub fn load(path: &Path) -> Result<Record> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Record::parse(path, &text)
    }

    /// A record file's text, as [`Record::load`] reads it; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Record> {
        serde_json::from_str(text).map_err(|e| {
            Error::content(
                path,
                Some(crate::error::Location {
                    line: e.line(),
                    column: e.column(),
                }),
                format!("record does not parse: {e}"),
            )
        })
    }

    pub fn config(&self, label: &str) -> Option<&ConfigRecord> {
        self.configs.iter().find(|c| c.label == label)
    }

    /// The clock-event reasons seen while row `label`'s samples ran ([`CLOCK_EVENTS`]);
    /// empty for a row with none and for a record from before they were read.
    pub fn clock_events(&self, label: &str) -> Vec<String> {
        self.extra
            .get(CLOCK_EVENTS)
            .and_then(|m| m.get(label))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    /// How row `label`'s timed launch ran, where it was not one plain launch a sample
    /// (a cluster, `repeat`, `graph`); None for a plain one.
    pub fn timed_launch(&self, label: &str) -> Option<TimedLaunch> {
        self.extra
            .get(TIMED_LAUNCHES)
            .and_then(|m| m.get(label))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// Whether `name` is a quantity of this record: built in, a param, a metric or an
    /// ncu metric of some config.
    pub fn knows(&self, name: &str) -> bool {
        built_in_heading(name).is_some()
            || self
                .configs
                .iter()
                .any(|c| c.params.contains_key(name) || c.quantities.contains_key(name))
    }

    /// A column's heading with its unit.
    pub fn heading(&self, name: &str) -> String {
        if let Some(h) = built_in_heading(name) {
            return h.to_string();
        }
        for c in &self.configs {
            if let Some(q) = c.quantities.get(name) {
                return with_unit(q.heading.as_deref().unwrap_or(name), &q.unit);
            }
        }
        name.replace('_', " ")
    }

    /// The provenance line printed under every table cut from this record.
    pub fn provenance(&self) -> String {
        format!(
            "{gpu} (compute capability {cc}, {sms} SMs), driver {drv}, CUDA driver API {api}, NVRTC {nvrtc}, options {opts}, captured {date} by glossary {tool}",
            gpu = self.gpu.name,
            cc = self.gpu.compute_capability,
            sms = self.gpu.sm_count,
            drv = self.gpu.driver_version,
            api = self.gpu.cuda_driver_api,
            nvrtc = self.gpu.nvrtc_version,
            opts = self.compile_options.join(" "),
            date = self.captured_at.format("%Y-%m-%d %H:%M UTC"),
            tool = self.tool_version,
        )
    }

    /// The bytes `write_atomic` writes (and a node signs).
    pub fn to_file_bytes(&self) -> Result<Vec<u8>> {
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Other(format!("record {}: {e}", self.experiment)))?;
        json.push('\n');
        Ok(json.into_bytes())
    }

    /// Write atomically with the node's signature beside it (`<node>.json.sig`).
    pub fn write_signed(&self, path: &Path, signer: &crate::trust::Signer) -> Result<()> {
        crate::trust::node::write_signed(path, &self.to_file_bytes()?, signer)
            .map_err(|e| Error::Other(e.to_string()))
    }

    /// Write atomically: a temporary file in the same folder, then a rename, so a crash
    /// or a failed run never leaves a half-written record in place of a good one.
    pub fn write_atomic(&self, path: &Path) -> Result<()> {
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        json.push('\n');
        crate::atomic::write_file(path, json.as_bytes(), crate::atomic::Durability::Synced)
    }
}

/// A record of experiment `e` on node `h200`, GPU `uuid`, holding `configs` (JSON, as a
/// record file holds them): for tests that need a record of a given shape.
#[cfg(test)]
pub(crate) fn test_record(uuid: &str, configs: serde_json::Value) -> Record {
    serde_json::from_value(serde_json::json!({
        "schema": 2, "experiment": "e", "node": "h200", "spec_digest": "sha256:00",
        "tool_version": "0", "captured_at": "2026-12-04T00:00:00Z",
        "gpu": {"name": "NVIDIA H200", "uuid": uuid, "compute_capability": "9.0",
                "sm_count": 132, "driver_version": "580", "cuda_driver_api": "13.0",
                "nvrtc_version": "13.0"},
        "compile_options": [],
        "configs": configs,
    }))
    .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_value_is_never_shown_as_zero() {
        let n = |value: f64, decimals: usize| ColumnValue::Number { value, decimals };
        assert_eq!(n(16.0 / 51200.0, 3).display(), "0.00031");
        assert_eq!(n(-0.0004, 2).display(), "-0.00040");
        assert_eq!(n(0.0, 3).display(), "0.000");
        assert_eq!(n(0.016, 3).display(), "0.016");
        assert_eq!(n(1139.4, 0).display(), "1139");
    }

    #[test]
    fn an_interval_prints_in_the_values_digits_or_not_at_all_when_narrower() {
        let n = |value: f64, decimals: usize| ColumnValue::Number { value, decimals };
        // Wide enough for the digits shown: the larger side, in those digits.
        assert_eq!(
            n(7.582, 3).interval_text(7.571, 7.590),
            IntervalText::Shown(" ±0.011".into())
        );
        // Narrower than the last digit: no "±0.000", the width kept for the note.
        match n(7.582, 3).interval_text(7.5818, 7.5823) {
            IntervalText::Narrow(h, "") => {
                assert!((h - 0.0003).abs() < 1e-9, "{h}");
                assert_eq!(one_significant(h), "0.0003");
            }
            other => panic!("{other:?}"),
        }
        // Half a unit of the last digit rounds up and shows.
        assert_eq!(
            n(1200.0, 1).interval_text(1199.9, 1200.0),
            IntervalText::Shown(" ±0.1".into())
        );
        // A fraction is shown in percent, and so is its interval.
        assert_eq!(
            ColumnValue::Fraction(0.5).interval_text(0.48, 0.51),
            IntervalText::Shown(" ±2.0%".into())
        );
        assert_eq!(
            ColumnValue::Integer(12).interval_text(12.0, 12.0),
            IntervalText::None
        );
        assert_eq!(
            ColumnValue::Text("x".into()).interval_text(0.0, 1.0),
            IntervalText::None
        );
        assert_eq!(one_significant(0.04), "0.04");
        assert_eq!(one_significant(3.0), "3");
    }

    fn record(median: f64) -> Record {
        Record {
            schema: RECORD_SCHEMA,
            experiment: "e".into(),
            node: "h200".into(),
            spec_digest: "sha256:00".into(),
            tool_version: "0.1.0".into(),
            captured_at: DateTime::parse_from_rfc3339("2026-11-30T16:24:47Z")
                .unwrap()
                .with_timezone(&Utc),
            gpu: GpuInfo::default(),
            compile_options: vec!["--gpu-architecture=sm_90".into()],
            device: BTreeMap::from([("l2_bytes".to_string(), 62914560)]),
            partial: false,
            configs: vec![ConfigRecord {
                label: "tlp1".into(),
                kernel: "k".into(),
                status: ConfigStatus::Passed,
                params: BTreeMap::from([("elements_per_thread".to_string(), 1)]),
                block_size: 512,
                block: [512, 1, 1],
                grid: [8, 1, 1],
                smem_reserved: 0,
                grid_size: 8,
                registers: 10,
                static_smem: 0,
                local_bytes: 0,
                blocks_per_sm: 4,
                warps_per_sm: 64,
                occupancy: 1.0,
                waves: 0.5,
                achieved_occupancy: Some(0.69),
                timing: Some(Timing {
                    samples_ms: vec![median, median],
                    median_ms: median,
                    min_ms: median,
                    max_ms: median,
                    rsd: 0.0,
                    sm_clock_mhz: Some(1980),
                    throttled_samples: Some(0),
                    unobserved_samples: 0,
                    converged: true,
                    host_median_ms: None,
                    interval: None,
                }),
                quantities: BTreeMap::from([(
                    "gbps".to_string(),
                    Quantity {
                        value: Some(1.0),
                        unit: "GB/s".into(),
                        heading: Some("bandwidth".into()),
                        decimals: Some(1),
                        source: "metric".into(),
                        not_measured: None,
                        timed: false,
                        interval: None,
                    },
                )]),
            }],
            extra: serde_json::json!({"device_limits": DeviceLimits::default()}),
        }
    }

    #[test]
    fn a_rows_timed_launch_is_read_from_extra_and_absent_for_a_plain_row() {
        let mut r = record(0.5);
        assert_eq!(r.timed_launch("tlp1"), None);
        let shape = TimedLaunch {
            cluster: Some([2, 1, 1]),
            repeat: 100,
            graph: true,
        };
        r.extra[TIMED_LAUNCHES] = serde_json::json!({ "tlp1": shape });
        assert_eq!(r.timed_launch("tlp1"), Some(shape));
        assert_eq!(r.timed_launch("other"), None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h200.json");
        r.write_atomic(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"timed_launches\""), "{text}");
        assert_eq!(
            Record::load(&path).unwrap().timed_launch("tlp1"),
            Some(shape)
        );
    }

    #[test]
    fn quantities_are_read_by_name_with_units_in_headings() {
        let r = record(0.5);
        let c = &r.configs[0];
        assert_eq!(c.number("gbps"), Some(1.0));
        assert_eq!(c.number("elements_per_thread"), Some(1.0));
        assert_eq!(c.number("median_ms"), Some(0.5));
        assert_eq!(c.column("gbps").unwrap().display(), "1.0");
        assert_eq!(r.heading("gbps"), "bandwidth (GB/s)");
        assert_eq!(r.heading("median_ms"), "median (ms)");
        assert_eq!(r.heading("elements_per_thread"), "elements per thread");
        assert!(r.knows("gbps") && r.knows("elements_per_thread") && r.knows("occupancy"));
        assert!(!r.knows("dram__bytes_read.sum"));
    }

    #[test]
    fn a_record_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records/h200.json");
        record(0.5).write_atomic(&path).unwrap();
        assert_eq!(Record::load(&path).unwrap(), record(0.5));
    }

    #[test]
    fn rewriting_replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h200.json");
        record(0.5).write_atomic(&path).unwrap();
        record(0.25).write_atomic(&path).unwrap();
        assert_eq!(Record::load(&path).unwrap(), record(0.25));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_truncated_record_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h200.json");
        record(0.5).write_atomic(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        let e = Record::load(&path).unwrap_err().to_string();
        assert!(
            e.contains("h200.json:") && e.contains("record does not parse"),
            "{e}"
        );
    }
}
