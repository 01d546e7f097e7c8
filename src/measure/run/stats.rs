//! Sample statistics and the stopping rule: pure functions over sample streams, so the
//! rule that decides how long a configuration is timed is tested without a GPU.

use crate::measure::record::{MedianInterval, MEDIAN_INTERVAL_METHOD};
use crate::measure::spec::TimingPolicy;

/// The confidence the median's interval is made for.
pub const CONFIDENCE: f64 = 0.95;

pub use crate::measure::verdict::MIN_SAMPLES_FOR_INTERVAL;

/// The order-statistic interval for the median of `samples`: [x_(k), x_(n+1-k)] (1-based
/// ranks of the sorted samples) with the largest k whose coverage, 1 - 2 P(B <= k - 1) for
/// B ~ Binomial(n, 1/2), is at least [`CONFIDENCE`]. Distribution-free (it assumes only
/// independent samples of one distribution), deterministic, and its rank k never falls
/// as n grows, so removing samples never raises it. None below
/// [`MIN_SAMPLES_FOR_INTERVAL`] samples, or for a non-finite sample.
pub fn median_interval(samples: &[f64]) -> Option<MedianInterval> {
    let n = samples.len();
    if n < MIN_SAMPLES_FOR_INTERVAL || samples.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let (k, tail) = median_rank(n)?;
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(MedianInterval {
        method: MEDIAN_INTERVAL_METHOD.to_string(),
        confidence: CONFIDENCE,
        coverage: 1.0 - 2.0 * tail,
        ranks: [k as u32, (n + 1 - k) as u32],
        lo: sorted[k - 1],
        hi: sorted[n - k],
    })
}

/// For n samples: the largest rank k with P(B <= k - 1) <= (1 - CONFIDENCE) / 2, and that
/// tail probability. The binomial terms are summed in log space (2^-n underflows past
/// n = 1074); terms too small for an f64 add nothing to the tail anyway.
pub fn median_rank(n: usize) -> Option<(usize, f64)> {
    let alpha_half = (1.0 - CONFIDENCE) / 2.0;
    let mut log_pmf = -(n as f64) * std::f64::consts::LN_2; // P(B = 0)
    let mut cdf = 0.0; // P(B <= j - 1) before adding term j
    let mut best = None;
    for j in 0..=n / 2 {
        let next = cdf + log_pmf.exp();
        if next > alpha_half {
            break;
        }
        cdf = next;
        // cdf is now P(B <= j): rank k = j + 1 has tail P(B <= k - 1) = cdf.
        best = Some((j + 1, cdf));
        log_pmf += ((n - j) as f64).ln() - ((j + 1) as f64).ln();
    }
    best
}

/// Summary of one configuration's samples, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// Sample standard deviation over the mean (0.005 = 0.5%).
    pub rsd: f64,
}

/// None for an empty stream or one holding a non-finite value.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let mean = sorted.iter().sum::<f64>() / n as f64;
    let rsd = if n < 2 || mean == 0.0 {
        f64::INFINITY
    } else {
        let var = sorted.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        var.sqrt() / mean
    };
    Some(Summary {
        median,
        min: sorted[0],
        max: sorted[n - 1],
        mean,
        rsd,
    })
}

/// What the timing loop does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Sample,
    /// `converged`: the spread fell under the bound with at least the minimum samples.
    Stop {
        converged: bool,
    },
}

/// The stopping rule: sample until there are at least `min_samples` and their relative
/// standard deviation is under `max_rsd`, or until `max_samples` or the time cap.
pub fn next_step(samples: &[f64], elapsed_ms: f64, policy: &TimingPolicy) -> Next {
    let converged = samples.len() >= policy.min_samples
        && summarize(samples).is_some_and(|s| s.rsd <= policy.max_rsd);
    if converged {
        Next::Stop { converged: true }
    } else if samples.len() >= policy.max_samples || elapsed_ms >= policy.time_cap_ms {
        Next::Stop { converged: false }
    } else {
        Next::Sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> TimingPolicy {
        TimingPolicy {
            min_samples: 10,
            max_samples: 100,
            max_rsd: 0.005,
            time_cap_ms: 1000.0,
            ..TimingPolicy::default()
        }
    }

    /// Feed a stream one sample at a time, as the timing loop does, with each sample
    /// costing `ms_per_sample` of wall time; return how many were taken and the verdict.
    fn run(stream: impl Iterator<Item = f64>, ms_per_sample: f64) -> (usize, bool) {
        let p = policy();
        let mut taken = Vec::new();
        for s in stream {
            taken.push(s);
            if let Next::Stop { converged } =
                next_step(&taken, taken.len() as f64 * ms_per_sample, &p)
            {
                return (taken.len(), converged);
            }
        }
        panic!("stream ended before the rule stopped");
    }

    #[test]
    fn summary_of_odd_and_even_streams() {
        let s = summarize(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.mean), (2.0, 1.0, 3.0, 2.0));
        assert!((s.rsd - 0.5).abs() < 1e-12);
        assert_eq!(summarize(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert!(summarize(&[]).is_none());
        assert!(summarize(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn a_steady_stream_stops_at_the_minimum_count() {
        let steady = (0..).map(|i| 1.0 + 0.001 * ((i % 3) as f64 - 1.0));
        assert_eq!(run(steady, 1.0), (10, true));
    }

    #[test]
    fn a_noisy_start_is_sampled_past_the_minimum_until_the_spread_settles() {
        let noisy = (0..).map(|i| {
            if i < 5 {
                1.0 + 0.02 * (i % 2) as f64
            } else {
                1.0
            }
        });
        let (n, converged) = run(noisy, 1.0);
        assert!(converged);
        assert!(n > 10, "stopped after {n}");
        let mut samples: Vec<f64> = (0..n)
            .map(|i| {
                if i < 5 {
                    1.0 + 0.02 * (i % 2) as f64
                } else {
                    1.0
                }
            })
            .collect();
        assert!(summarize(&samples).unwrap().rsd <= 0.005);
        samples.pop();
        assert!(
            summarize(&samples).unwrap().rsd > 0.005,
            "did not stop at the first chance"
        );
    }

    #[test]
    fn a_stream_that_never_settles_stops_at_max_samples_unconverged() {
        let alternating = (0..).map(|i| if i % 2 == 0 { 1.0 } else { 1.2 });
        assert_eq!(run(alternating, 1.0), (100, false));
    }

    #[test]
    fn the_time_cap_stops_a_slow_unsettled_stream() {
        let alternating = (0..).map(|i| if i % 2 == 0 { 1.0 } else { 1.2 });
        assert_eq!(run(alternating, 100.0), (10, false));
    }

    #[test]
    fn the_median_interval_is_the_binomial_order_statistic_interval() {
        // n = 6: only [min, max] reaches 95% (1 - 2/64); n = 5 has none.
        assert_eq!(median_rank(6).map(|r| r.0), Some(1));
        assert!(median_rank(5).is_none());
        assert!(median_interval(&[1.0; 5]).is_none());
        // Textbook values: n = 20 gives ranks 6 and 15 (coverage 0.9586), n = 100 ranks
        // 40 and 61 (0.9648).
        let (k, tail) = median_rank(20).unwrap();
        assert_eq!(k, 6);
        assert!((1.0 - 2.0 * tail - 0.9586).abs() < 1e-4);
        assert_eq!(median_rank(100).unwrap().0, 40);
        let samples: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let i = median_interval(&samples).unwrap();
        assert_eq!((i.lo, i.hi, i.ranks), (6.0, 15.0, [6, 15]));
        assert!(i.coverage >= CONFIDENCE && i.method.contains("order-statistic"));
        // Large n does not underflow.
        assert!(median_rank(5000).unwrap().0 > 2400);
    }

    #[test]
    fn fewer_samples_from_one_distribution_give_wider_intervals() {
        // Seeded uniform draws: the interval's width shrinks about as 1/sqrt(n), so a
        // quarter of the samples gives close to twice the width, on average over draws.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut draw = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let width = |s: &[f64]| median_interval(s).map(|i| i.hi - i.lo).unwrap();
        let (mut full, mut quarter) = (0.0, 0.0);
        for _ in 0..50 {
            let samples: Vec<f64> = (0..400).map(|_| draw()).collect();
            full += width(&samples);
            quarter += width(&samples[..100]);
        }
        assert!(quarter > 1.7 * full, "quarter {quarter}, full {full}");
    }

    proptest::proptest! {
        /// The rank k never falls as n grows, and its coverage is always at least 95%.
        #[test]
        fn the_rank_never_falls_as_samples_are_added(n in 6usize..3000) {
            let (k, tail) = median_rank(n).unwrap();
            let (k1, _) = median_rank(n + 1).unwrap();
            proptest::prop_assert!(k1 >= k && k1 <= k + 1);
            proptest::prop_assert!(1.0 - 2.0 * tail >= CONFIDENCE);
        }

        /// Removing samples never narrows the interval: removing any sample strictly
        /// inside it (between its two bounding order statistics) leaves an interval
        /// that contains the old one; removing a sample at or outside a bound moves the
        /// median's estimate, as it should (a run that loses its fast samples is slower),
        /// so it is not held to containment: no rank interval could be.
        #[test]
        fn removing_samples_inside_the_interval_never_narrows_it(
            samples in proptest::collection::vec(0.0f64..10.0, 6..300),
            picks in proptest::collection::vec(0usize..1000, 1..40),
        ) {
            let mut kept = samples.clone();
            let mut before = median_interval(&kept).unwrap();
            for p in picks {
                let inside: Vec<usize> = (0..kept.len())
                    .filter(|&i| kept[i] > before.lo && kept[i] < before.hi)
                    .collect();
                if inside.is_empty() || kept.len() <= MIN_SAMPLES_FOR_INTERVAL {
                    break;
                }
                kept.remove(inside[p % inside.len()]);
                let after = median_interval(&kept).unwrap();
                proptest::prop_assert!(
                    after.lo <= before.lo && after.hi >= before.hi,
                    "{:?} narrowed to {:?}", (before.lo, before.hi), (after.lo, after.hi)
                );
                before = after;
            }
        }
    }
}
