//! The one rule for deciding anything from measured numbers: a statement about an
//! estimate holds only when its whole interval agrees, fails when its whole interval
//! disagrees, and is ambiguous otherwise. Claims (`measure::claims`), `near_best()` in
//! prose (`render::values`), `glossary compare` and `verify`'s preview of the claims a new
//! run would flip all decide through these functions, so they cannot disagree.
//!
//! The API, for callers that build on it (`glossary reproduce` and the like):
//! - [`Estimate`]: a value with an interval `[lo, hi]` that contains it. A record's
//!   numbers become estimates through `ConfigRecord::estimate` (a median and its
//!   order-statistic interval, a metric of time and its interval through the metric's
//!   expression, or an exact value as a point interval).
//! - [`above`], [`below`]: a bound on one estimate, each giving a [`Verdict`] and, when
//!   not [`Verdict::Holds`], [`Verdict::advice`] says what threshold would hold.
//! - [`ratio`]: the conservative interval of A/B, `[A.lo / B.hi, A.hi / B.lo]` for
//!   positive A and B (interval division in general). Ratios of medians are never
//!   averaged; each is bounded from its two intervals.
//! - [`spread`]: the relative spread max/min - 1 of several estimates, as an interval
//!   (best case from the values' nearest ends, worst case from their farthest).
//! - [`change`]: old against new, as `glossary compare` reports it: [`Change::Same`]
//!   when the new/old ratio's whole interval lies within `1 ± tolerance`, `Slower` or
//!   `Faster` when it lies wholly outside the band, `Ambiguous` when it crosses one of
//!   the band's edges.
//! - [`DEFAULT_TOLERANCE`]: the band an experiment gets unless its `timing:` sets
//!   `reproducibility:`.
//! - [`margin`], [`clears_band`]: how far a holding bound's conservative end clears its
//!   threshold, and whether that is at least the reproducibility band. Two runs of one
//!   experiment may differ by up to the band and still be the SAME, so a claim that
//!   clears its threshold by less is *fragile*: the same GPU model elsewhere may not
//!   support it (issue 38: two L2 claims held by 1.9% and 3.7% on one H200 and failed on
//!   another).
//!
//! Every function is pure and deterministic; NaN anywhere fails (a number that is not a
//! number supports nothing).

use std::fmt;

/// The fewest samples with a 95% order-statistic interval for the median: with five,
/// even [min, max] covers the median only 1 - 2/32 = 93.75% of the time.
pub const MIN_SAMPLES_FOR_INTERVAL: usize = 6;

/// How far apart two runs of one experiment may be and still be the SAME, unless the
/// experiment sets `timing: {reproducibility: ...}`. Issue 31's data: rows moved up to
/// 3.4% between sessions on two H200s, within a run's spread of 0.2-1%; 5% keeps that
/// session-to-session drift SAME and still calls a 6% regression SLOWER.
pub const DEFAULT_TOLERANCE: f64 = 0.05;

/// A value and an interval containing it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Estimate {
    /// An exact value: its interval is the point itself.
    pub fn point(value: f64) -> Estimate {
        Estimate {
            value,
            lo: value,
            hi: value,
        }
    }

    /// A value with its interval; the interval is widened to contain the value, so a
    /// hand-edited record cannot make an estimate that excludes its own value.
    pub fn new(value: f64, lo: f64, hi: f64) -> Estimate {
        Estimate {
            value,
            lo: lo.min(value),
            hi: hi.max(value),
        }
    }

    pub fn is_point(&self) -> bool {
        self.lo == self.hi
    }

    fn is_nan(&self) -> bool {
        self.value.is_nan() || self.lo.is_nan() || self.hi.is_nan()
    }
}

impl fmt::Display for Estimate {
    /// `1.059 [1.051, 1.066]`, or the value alone for a point.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = f.precision().unwrap_or(3);
        if self.is_point() {
            write!(f, "{:.d$}", self.value)
        } else {
            write!(f, "{:.d$} [{:.d$}, {:.d$}]", self.value, self.lo, self.hi)
        }
    }
}

/// The three-way answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval is on the claimed side.
    Holds,
    /// The whole interval is on the other side (or a number is NaN).
    Fails,
    /// The interval straddles the threshold: the noise could put it on either side.
    Ambiguous,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "fails",
            Verdict::Ambiguous => "ambiguous",
        })
    }
}

/// Which side of a threshold a bound claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Above,
    Below,
}

/// `e > threshold`: holds when `lo > threshold`, fails when `hi <= threshold`.
pub fn above(e: Estimate, threshold: f64) -> Verdict {
    bound(e, Side::Above, threshold)
}

/// `e < threshold`: holds when `hi < threshold`, fails when `lo >= threshold`.
pub fn below(e: Estimate, threshold: f64) -> Verdict {
    bound(e, Side::Below, threshold)
}

/// `e <= limit` (a `within` claim's spread against its tolerance): holds when
/// `hi <= limit`, fails when `lo > limit`.
pub fn at_most(e: Estimate, limit: f64) -> Verdict {
    if e.is_nan() || limit.is_nan() {
        Verdict::Fails
    } else if e.hi <= limit {
        Verdict::Holds
    } else if e.lo > limit {
        Verdict::Fails
    } else {
        Verdict::Ambiguous
    }
}

/// `e >= limit`: holds when `lo >= limit`, fails when `hi < limit`.
pub fn at_least(e: Estimate, limit: f64) -> Verdict {
    at_most(
        Estimate {
            value: -e.value,
            lo: -e.hi,
            hi: -e.lo,
        },
        -limit,
    )
}

pub fn bound(e: Estimate, side: Side, threshold: f64) -> Verdict {
    if e.is_nan() || threshold.is_nan() {
        return Verdict::Fails;
    }
    let (all_on_side, none_on_side) = match side {
        Side::Above => (e.lo > threshold, e.hi <= threshold),
        Side::Below => (e.hi < threshold, e.lo >= threshold),
    };
    if all_on_side {
        Verdict::Holds
    } else if none_on_side {
        Verdict::Fails
    } else {
        Verdict::Ambiguous
    }
}

impl Verdict {
    /// What to say to an author whose bound did not hold: the threshold the interval
    /// supports, or that the value is on the other side.
    pub fn advice(self, e: Estimate, side: Side, decimals: usize) -> String {
        let (word, end) = match side {
            Side::Above => ("below", e.lo),
            Side::Below => ("above", e.hi),
        };
        match self {
            Verdict::Holds => String::new(),
            Verdict::Ambiguous => format!(
                "the interval straddles the threshold: state a threshold {word} {end:.decimals$}, or measure more"
            ),
            Verdict::Fails => {
                if e.is_nan() {
                    "not a number".into()
                } else {
                    format!(
                        "the whole interval is on the other side: a threshold {word} {end:.decimals$} would hold"
                    )
                }
            }
        }
    }
}

/// How far `e`'s conservative end clears `threshold` on `side`, relative to the
/// threshold: `(lo - t) / |t|` above, `(t - hi) / |t|` below. Negative when the bound
/// does not hold; infinite for a threshold of zero that holds (no band can move a
/// value across zero by a relative amount).
pub fn margin(e: Estimate, side: Side, threshold: f64) -> f64 {
    let gap = match side {
        Side::Above => e.lo - threshold,
        Side::Below => threshold - e.hi,
    };
    if e.is_nan() || threshold.is_nan() {
        f64::NAN
    } else if threshold == 0.0 {
        if gap > 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }
    } else {
        gap / threshold.abs()
    }
}

/// Whether a margin is at least the band two runs may differ by: the one rule for a
/// fragile claim, used by build, check, reproduce and `records history`. NaN never clears.
pub fn clears_band(margin: f64, band: f64) -> bool {
    margin >= band
}

/// Interval division: the conservative ratio A/B. For positive A and B this is
/// `[A.lo / B.hi, A.hi / B.lo]`. None when B's interval contains zero (the ratio is
/// unbounded) or a number is NaN.
pub fn ratio(a: Estimate, b: Estimate) -> Option<Estimate> {
    if a.is_nan() || b.is_nan() || (b.lo <= 0.0 && b.hi >= 0.0) {
        return None;
    }
    let corners = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi];
    let lo = corners.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = corners.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Estimate::new(a.value / b.value, lo, hi))
}

/// The relative spread `max / min - 1` of several positive estimates, as an interval:
/// `lo` the smallest spread their intervals allow (largest `lo` over smallest `hi`, 0 when
/// the intervals overlap), `hi` the largest (largest `hi` over smallest `lo`). None for
/// fewer than two, a NaN, or a value at or under zero.
pub fn spread(values: &[Estimate]) -> Option<Estimate> {
    if values.len() < 2 || values.iter().any(|e| e.is_nan() || e.lo <= 0.0) {
        return None;
    }
    let max = |f: fn(&Estimate) -> f64| values.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
    let min = |f: fn(&Estimate) -> f64| values.iter().map(f).fold(f64::INFINITY, f64::min);
    let value = max(|e| e.value) / min(|e| e.value) - 1.0;
    let lo = (max(|e| e.lo) / min(|e| e.hi) - 1.0).max(0.0);
    let hi = max(|e| e.hi) / min(|e| e.lo) - 1.0;
    Some(Estimate::new(value, lo, hi))
}

/// Old against new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Change {
    /// The new/old ratio lies within the tolerance band, interval and all.
    Same,
    /// Wholly beyond the band on the side where lower is better (less time).
    Faster,
    /// Wholly beyond it on the other side.
    Slower,
    /// The ratio's interval crosses one of the band's edges.
    Ambiguous,
    /// What is not timed differs: the driver's answers (registers, blocks per SM,
    /// occupancy, launch status) are not the same, or a counter (ncu) is beyond its band.
    Different,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Change::Same => "SAME",
            Change::Faster => "FASTER",
            Change::Slower => "SLOWER",
            Change::Ambiguous => "AMBIGUOUS",
            Change::Different => "DIFFERENT",
        })
    }
}

/// Compare two estimates of one time (lower is better): the conservative new/old ratio
/// and its [`Change`] against the band `[1 - tolerance, 1 + tolerance]`. A ratio that
/// cannot be made (an old interval at zero, a NaN) is ambiguous.
pub fn change(old: Estimate, new: Estimate, tolerance: f64) -> (Change, Option<Estimate>) {
    let Some(r) = ratio(new, old) else {
        return (Change::Ambiguous, None);
    };
    let (low, high) = (1.0 - tolerance, 1.0 + tolerance);
    let verdict = if r.lo >= low && r.hi <= high {
        Change::Same
    } else if r.lo > high {
        Change::Slower
    } else if r.hi < low {
        Change::Faster
    } else {
        Change::Ambiguous
    };
    (verdict, Some(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(value: f64, lo: f64, hi: f64) -> Estimate {
        Estimate::new(value, lo, hi)
    }

    #[test]
    fn a_bound_holds_fails_or_is_ambiguous_by_the_whole_interval() {
        assert_eq!(above(e(1.1, 1.05, 1.15), 1.0), Verdict::Holds);
        assert_eq!(above(e(1.1, 0.99, 1.15), 1.0), Verdict::Ambiguous);
        assert_eq!(above(e(0.9, 0.8, 1.0), 1.0), Verdict::Fails);
        assert_eq!(below(e(0.9, 0.8, 0.95), 1.0), Verdict::Holds);
        assert_eq!(below(e(0.9, 0.8, 1.01), 1.0), Verdict::Ambiguous);
        assert_eq!(below(e(1.0, 1.0, 1.2), 1.0), Verdict::Fails);
        // A point is an ordinary comparison.
        assert_eq!(above(Estimate::point(2.0), 1.0), Verdict::Holds);
        assert_eq!(above(Estimate::point(1.0), 1.0), Verdict::Fails);
        assert_eq!(above(Estimate::point(f64::NAN), 1.0), Verdict::Fails);
    }

    #[test]
    fn advice_names_the_threshold_the_interval_supports() {
        let r = e(1.059, 1.051, 1.066);
        let v = above(r, 1.06);
        assert_eq!(v, Verdict::Ambiguous);
        assert_eq!(
            v.advice(r, Side::Above, 3),
            "the interval straddles the threshold: state a threshold below 1.051, or measure more"
        );
        assert!(below(r, 1.06)
            .advice(r, Side::Below, 3)
            .contains("above 1.066"));
    }

    #[test]
    fn a_margin_is_the_conservative_end_past_the_threshold_relative_to_it() {
        // Issue 38's L2 claim: cyc16/cyc1024 conservative [2.037, ...] against `above: 2`.
        let r = e(2.04, 2.037, 2.043);
        let m = margin(r, Side::Above, 2.0);
        assert!((m - 0.0185).abs() < 1e-9, "{m}");
        assert!(
            !clears_band(m, DEFAULT_TOLERANCE),
            "a 1.85% margin is fragile"
        );
        assert!(clears_band(margin(r, Side::Above, 1.9), DEFAULT_TOLERANCE));
        // Below: the interval's top end counts.
        let hit = e(66.1, 65.0, 67.0);
        assert!((margin(hit, Side::Below, 75.0) - 8.0 / 75.0).abs() < 1e-12);
        assert!(margin(hit, Side::Below, 66.5) < 0.0);
        assert!(!clears_band(f64::NAN, 0.05));
        assert_eq!(
            margin(Estimate::point(1.0), Side::Above, 0.0),
            f64::INFINITY
        );
        // A spread of at most 3% against a 10% tolerance: the spread is the estimate and
        // the tolerance its threshold, as for any bound below.
        let s = e(0.02, 0.0, 0.03);
        assert!((margin(s, Side::Below, 0.10) - 0.7).abs() < 1e-12);
    }

    #[test]
    fn a_ratio_is_bounded_by_the_far_ends_of_both_intervals() {
        let r = ratio(e(2.0, 1.9, 2.1), e(1.0, 0.95, 1.05)).unwrap();
        assert_eq!(r.value, 2.0);
        assert!((r.lo - 1.9 / 1.05).abs() < 1e-12 && (r.hi - 2.1 / 0.95).abs() < 1e-12);
        assert!(ratio(e(1.0, 0.9, 1.1), e(0.0, -0.1, 0.1)).is_none());
    }

    #[test]
    fn a_spread_is_zero_at_best_when_intervals_overlap() {
        let s = spread(&[e(1.0, 0.98, 1.02), e(1.01, 0.99, 1.03)]).unwrap();
        assert_eq!(s.lo, 0.0);
        assert!((s.hi - (1.03 / 0.98 - 1.0)).abs() < 1e-12);
        let s = spread(&[e(1.0, 0.99, 1.01), e(2.0, 1.98, 2.02)]).unwrap();
        assert!((s.lo - (1.98 / 1.01 - 1.0)).abs() < 1e-12);
        assert!(spread(&[e(1.0, 0.9, 1.1)]).is_none());
    }

    #[test]
    fn change_is_same_inside_the_band_and_ambiguous_across_its_edge() {
        let old = e(1.0, 0.99, 1.01);
        assert_eq!(change(old, e(1.02, 1.01, 1.03), 0.05).0, Change::Same);
        assert_eq!(change(old, e(1.10, 1.09, 1.11), 0.05).0, Change::Slower);
        assert_eq!(change(old, e(0.90, 0.89, 0.91), 0.05).0, Change::Faster);
        // 1.05 [1.03, 1.07] / [0.99, 1.01]: the band's edge 1.05 is inside.
        assert_eq!(change(old, e(1.05, 1.03, 1.07), 0.05).0, Change::Ambiguous);
        assert_eq!(
            change(old, e(f64::NAN, 1.0, 1.0), 0.05).0,
            Change::Ambiguous
        );
    }
}
