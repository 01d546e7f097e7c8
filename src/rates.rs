//! Rates and their units, as written in glossary.toml's peaks (`4.8 TB/s`) and in an
//! experiment's metric units (`GB/s`, `TFLOP/s`, `B/cycle`): parsed by one allow-list, so
//! a metric and the roof it names are compared in one unit or refused as unlike.
//!
//! A unit is `<prefix><quantity>/<per>`: the quantity is bytes (`B`), floating-point
//! operations (`FLOP`) or warp exchanges (`warp exchanges`, one shuffle across a warp);
//! the prefix is decimal (`k M G T P`) or binary (`Ki Mi Gi Ti`); `per` is a time (`s`,
//! `ms`, `us`/`µs`, `ns`) or an SM's clock cycle (`cycle`, `clk`): a per-cycle rate is per
//! SM, the way the CUDA guide states throughputs.

use std::fmt;

/// What a rate counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Work {
    Bytes,
    Flop,
    WarpExchanges,
}

impl Work {
    pub fn name(self) -> &'static str {
        match self {
            Work::Bytes => "B",
            Work::Flop => "FLOP",
            Work::WarpExchanges => "warp exchanges",
        }
    }
}

/// Per second of wall time, or per clock cycle of one SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Per {
    Second,
    SmCycle,
}

/// A parsed rate unit: `value_in_unit * scale` is the rate in `work` per `per`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RateUnit {
    pub work: Work,
    pub per: Per,
    pub scale: f64,
}

/// Why a unit is not a rate this file knows.
#[derive(Debug, Clone, PartialEq)]
pub struct NotARate(pub String);

impl fmt::Display for NotARate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a rate unit: write <prefix><B|FLOP|warp exchanges>/<s|ms|us|ns|cycle> (prefix one of k M G T P Ki Mi Gi Ti, or none), e.g. `GB/s`, `TFLOP/s`, `B/cycle`",
            self.0
        )
    }
}

const PREFIXES: &[(&str, f64)] = &[
    ("Ki", 1024.0),
    ("Mi", 1048576.0),
    ("Gi", 1073741824.0),
    ("Ti", 1099511627776.0),
    ("k", 1e3),
    ("M", 1e6),
    ("G", 1e9),
    ("T", 1e12),
    ("P", 1e15),
    ("", 1.0),
];

const WORK: &[(&str, Work)] = &[
    ("B", Work::Bytes),
    ("FLOP", Work::Flop),
    ("warp exchanges", Work::WarpExchanges),
];

const PER: &[(&str, Per, f64)] = &[
    ("s", Per::Second, 1.0),
    ("ms", Per::Second, 1e3),
    ("us", Per::Second, 1e6),
    ("µs", Per::Second, 1e6),
    ("ns", Per::Second, 1e9),
    ("cycle", Per::SmCycle, 1.0),
    ("clk", Per::SmCycle, 1.0),
];

impl RateUnit {
    pub fn parse(unit: &str) -> Result<RateUnit, NotARate> {
        let bad = || NotARate(unit.to_string());
        let (top, bottom) = unit.trim().split_once('/').ok_or_else(bad)?;
        let (_, per, per_scale) = PER
            .iter()
            .find(|(name, _, _)| *name == bottom.trim())
            .ok_or_else(bad)?;
        for (prefix, factor) in PREFIXES {
            let Some(rest) = top.trim().strip_prefix(prefix) else {
                continue;
            };
            if let Some((_, work)) = WORK.iter().find(|(name, _)| *name == rest) {
                return Ok(RateUnit {
                    work: *work,
                    per: *per,
                    scale: factor * per_scale,
                });
            }
        }
        Err(bad())
    }

    /// `work/s` or `work/cycle`, the base this unit scales.
    pub fn base(&self) -> String {
        match self.per {
            Per::Second => format!("{}/s", self.work.name()),
            Per::SmCycle => format!("{}/cycle per SM", self.work.name()),
        }
    }
}

/// `"4.8 TB/s"`: a number and a rate unit, as a peak in glossary.toml gives it.
pub fn parse_rate(text: &str) -> Result<(f64, RateUnit), NotARate> {
    let t = text.trim();
    let (num, unit) = t.split_once(' ').ok_or_else(|| NotARate(t.to_string()))?;
    let value: f64 = num.parse().map_err(|_| NotARate(t.to_string()))?;
    if !(value.is_finite() && value > 0.0) {
        return Err(NotARate(t.to_string()));
    }
    Ok((value, RateUnit::parse(unit)?))
}

/// `"256 FLOP"`: a count of work, as a per-clock peak gives it.
pub fn parse_work(text: &str) -> Result<(f64, Work), NotARate> {
    let t = text.trim();
    let bad = || NotARate(t.to_string());
    let (num, work) = t.split_once(' ').ok_or_else(bad)?;
    let value: f64 = num.parse().map_err(|_| bad())?;
    if !(value.is_finite() && value > 0.0) {
        return Err(bad());
    }
    let (_, w) = WORK
        .iter()
        .find(|(name, _)| *name == work.trim())
        .ok_or_else(bad)?;
    Ok((value, *w))
}

/// The physical limits a metric may be read against (`roof:` in an experiment, the keys
/// of `[nodes.NAME.peaks]` in glossary.toml): each name, what it counts and what it is.
pub const ROOFS: &[(&str, Work, &str)] = &[
    ("dram", Work::Bytes, "DRAM bandwidth"),
    ("l2", Work::Bytes, "L2 bandwidth"),
    ("smem", Work::Bytes, "shared-memory bandwidth"),
    ("fp32", Work::Flop, "FP32 FMA rate of the CUDA cores"),
    ("fp64", Work::Flop, "FP64 FMA rate"),
    (
        "tensor_bf16",
        Work::Flop,
        "dense BF16/FP16 tensor-core rate",
    ),
    ("tensor_fp8", Work::Flop, "dense FP8 tensor-core rate"),
    ("tensor_tf32", Work::Flop, "dense TF32 tensor-core rate"),
    ("shfl", Work::WarpExchanges, "warp-shuffle rate"),
];

/// What a roof counts and what it is; None for a name not in [`ROOFS`].
pub fn roof(name: &str) -> Option<(Work, &'static str)> {
    ROOFS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, w, what)| (*w, *what))
}

/// `dram, l2, ...`: the allowed names, for messages.
pub fn roof_names() -> String {
    ROOFS
        .iter()
        .map(|(n, _, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a metric in `unit` can be read against the roof `name` (the check at load of
/// experiment.yaml): the roof exists, and the unit is a rate of what the roof counts.
pub fn metric_fits_roof(name: &str, unit: &str) -> Result<RateUnit, String> {
    let (work, what) = roof(name)
        .ok_or_else(|| format!("roof `{name}` is not a roof; roofs are {}", roof_names()))?;
    let parsed = RateUnit::parse(unit).map_err(|e| format!("roof `{name}`: {e}"))?;
    if parsed.work != work {
        return Err(format!(
            "roof `{name}` ({what}) counts {}, but the metric's unit `{unit}` counts {}: a share of it would mean nothing",
            work.name(),
            parsed.work.name()
        ));
    }
    Ok(parsed)
}

/// `share(gbps)`, a table column: the row's `gbps` as a share of the roof that metric
/// names. The metric's name, for such a column.
pub fn share_column(column: &str) -> Option<&str> {
    column.strip_prefix("share(")?.strip_suffix(')')
}

/// How a peak is stated, parsed and checked at load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PeakForm {
    /// A rate that does not move with the SM clock (DRAM bandwidth): work per second.
    Fixed { per_s: f64 },
    /// A datasheet rate at a stated SM clock, work per second; it scales with the clock
    /// (the datasheet's figure is SMs x work per clock x that clock).
    AtClock { per_s: f64, mhz: f64 },
    /// Work per SM per clock cycle: the hardware's arithmetic, times SMs and the clock.
    PerClock { per_sm_per_cycle: f64 },
}

impl PeakForm {
    /// Work per second, the whole device, at `clock_mhz` with `sms` SMs.
    pub fn per_s(&self, sms: f64, clock_mhz: f64) -> f64 {
        match *self {
            PeakForm::Fixed { per_s } => per_s,
            PeakForm::AtClock { per_s, mhz } => per_s * clock_mhz / mhz,
            PeakForm::PerClock { per_sm_per_cycle } => per_sm_per_cycle * sms * clock_mhz * 1e6,
        }
    }

    /// Whether the rate moves with the SM clock (so a page must say which clock).
    pub fn follows_clock(&self) -> bool {
        !matches!(self, PeakForm::Fixed { .. })
    }

    /// The rate in `unit` (per second, or per SM per cycle) at `clock_mhz`.
    pub fn in_unit(&self, unit: &RateUnit, sms: f64, clock_mhz: f64) -> f64 {
        let per_s = self.per_s(sms, clock_mhz);
        match unit.per {
            Per::Second => per_s / unit.scale,
            Per::SmCycle => per_s / (sms * clock_mhz * 1e6) / unit.scale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_units_experiments_use_and_refuses_others() {
        let gb = RateUnit::parse("GB/s").unwrap();
        assert_eq!((gb.work, gb.per, gb.scale), (Work::Bytes, Per::Second, 1e9));
        let tf = RateUnit::parse("TFLOP/s").unwrap();
        assert_eq!((tf.work, tf.scale), (Work::Flop, 1e12));
        let cyc = RateUnit::parse("B/cycle").unwrap();
        assert_eq!((cyc.per, cyc.scale), (Per::SmCycle, 1.0));
        let wx = RateUnit::parse("warp exchanges/ns").unwrap();
        assert_eq!((wx.work, wx.scale), (Work::WarpExchanges, 1e9));
        assert_eq!(RateUnit::parse("GiB/s").unwrap().scale, 1073741824.0);
        for bad in ["GB", "ms", "%", "FLOP/B", "Gb/s", "XB/s", "GB/h", ""] {
            assert!(RateUnit::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_peaks_as_written_in_glossary_toml() {
        let (v, u) = parse_rate("4.8 TB/s").unwrap();
        assert_eq!((v, u.scale), (4.8, 1e12));
        assert!(parse_rate("4.8TB/s").is_err());
        assert!(parse_rate("-1 TB/s").is_err());
        assert_eq!(parse_work("256 FLOP").unwrap(), (256.0, Work::Flop));
        assert!(parse_work("256 flop").is_err());
    }
}
