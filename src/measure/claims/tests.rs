//! Claims judged on synthetic records whose samples come from known distributions: a
//! claim inside the noise is ambiguous, one with a wide margin holds, and a history
//! where one run flips a claim refuses it naming that run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::*;
use crate::content::ClaimTest;
use crate::measure::history::{Run, RunState};
use crate::measure::record::{Bounds, ConfigRecord, Quantity, Timing, RECORD_SCHEMA};
use crate::measure::run::stats::{median_interval, summarize};

/// A seeded xorshift stream: deterministic samples, no dependency.
struct Rng(u64);
impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Normal by Box-Muller.
    fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let (u, v) = (self.uniform().max(1e-300), self.uniform());
        mean + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// A row timed at `n` samples of N(`mean_ms`, (`rsd` * mean)^2), with a bandwidth metric
/// of 1e6 bytes carrying the interval through `bytes / (median_ms * 1e6)`, as verify
/// makes it.
fn row(label: &str, mean_ms: f64, rsd: f64, n: usize, seed: u64) -> ConfigRecord {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let samples: Vec<f64> = (0..n).map(|_| rng.normal(mean_ms, rsd * mean_ms)).collect();
    let s = summarize(&samples).unwrap();
    let interval = median_interval(&samples);
    let gbps = |ms: f64| 1e6 / (ms * 1e6);
    let quantity = Quantity::timed_metric(
        gbps(s.median),
        interval
            .as_ref()
            .map(|i| Bounds {
                lo: gbps(i.hi),
                hi: gbps(i.lo),
            })
            .unwrap(),
        "GB/s",
        None,
        3,
    );
    ConfigRecord {
        label: label.into(),
        timing: Some(Timing {
            samples_ms: samples,
            median_ms: s.median,
            min_ms: s.min,
            max_ms: s.max,
            rsd: s.rsd,
            sm_clock_mhz: None,
            throttled_samples: Some(0),
            unobserved_samples: 0,
            converged: s.rsd <= 0.01,
            host_median_ms: None,
            interval,
        }),
        quantities: BTreeMap::from([("gbps".to_string(), quantity)]),
        ..Default::default()
    }
}

fn record(configs: Vec<ConfigRecord>, at: &str) -> Record {
    Record {
        schema: RECORD_SCHEMA,
        experiment: "e".into(),
        node: "h200".into(),
        spec_digest: "sha256:00".into(),
        tool_version: "test".into(),
        captured_at: DateTime::parse_from_rfc3339(at)
            .unwrap()
            .with_timezone(&Utc),
        gpu: Default::default(),
        compile_options: vec![],
        device: Default::default(),
        partial: false,
        configs,
        extra: serde_json::Value::Null,
    }
}

fn ratio_above(of: &str, to: &str, above: f64) -> ClaimTest {
    ClaimTest::Ratio {
        of: of.into(),
        to: to.into(),
        below: None,
        above: Some(above),
    }
}

/// Two rows 6% apart in time, each at 0.5% spread over 200 samples: the median ratio is
/// about 1.06 and its conservative interval about ±0.2%.
fn two_rows(seed: u64) -> Record {
    record(
        vec![
            row("slow", 1.06, 0.005, 200, seed),
            row("fast", 1.00, 0.005, 200, seed + 1),
        ],
        "2026-12-01T10:00:00Z",
    )
}

#[test]
fn a_claim_with_a_wide_margin_holds_and_one_inside_the_noise_is_ambiguous() {
    let r = two_rows(1);
    let wide = judge(&ratio_above("slow", "fast", 1.02), "median_ms", &r).unwrap();
    assert_eq!(wide.verdict, Verdict::Holds, "{wide:?}");
    // The median ratio itself, give or take 0.05%: inside the interval.
    let cfg = |l: &str| r.config(l).unwrap().timing.as_ref().unwrap().median_ms;
    let median_ratio = cfg("slow") / cfg("fast");
    let inside = judge(
        &ratio_above("slow", "fast", median_ratio * 0.9995),
        "median_ms",
        &r,
    )
    .unwrap();
    assert_eq!(inside.verdict, Verdict::Ambiguous, "{inside:?}");
    assert!(
        inside.advice.contains("state a threshold below") && inside.advice.contains("measure more"),
        "{}",
        inside.advice
    );
    assert!(inside.shown.contains("conservative"), "{}", inside.shown);
    // The advised threshold holds.
    let lo: f64 = inside
        .advice
        .rsplit("below ")
        .next()
        .and_then(|s| s.split(',').next())
        .unwrap()
        .parse()
        .unwrap();
    let advised = judge(&ratio_above("slow", "fast", lo - 0.001), "median_ms", &r).unwrap();
    assert_eq!(advised.verdict, Verdict::Holds);
    // And a claim the other way fails outright.
    let wrong = judge(&ratio_above("fast", "slow", 1.0), "median_ms", &r).unwrap();
    assert_eq!(wrong.verdict, Verdict::Fails);
}

#[test]
fn metrics_of_time_are_judged_on_their_intervals_too() {
    let r = two_rows(2);
    // Bandwidth is 1/time: fast / slow is about 1.06 in bandwidth.
    let holds = judge(&ratio_above("fast", "slow", 1.03), "gbps", &r).unwrap();
    assert_eq!(holds.verdict, Verdict::Holds, "{holds:?}");
    let v = r.config("fast").unwrap().quantities["gbps"].value.unwrap();
    let at_value = ClaimTest::Value {
        row: "fast".into(),
        below: None,
        above: Some(v),
    };
    assert_eq!(
        judge(&at_value, "gbps", &r).unwrap().verdict,
        Verdict::Ambiguous
    );
}

#[test]
fn noisy_rows_make_a_small_margin_ambiguous_where_quiet_rows_hold_it() {
    // The same 3% difference in means: at 0.2% spread the claim holds, at 8% spread over
    // 30 samples the intervals overlap and it is ambiguous.
    let claim = ratio_above("a", "b", 1.01);
    let quiet = record(
        vec![row("a", 1.03, 0.002, 100, 7), row("b", 1.0, 0.002, 100, 8)],
        "2026-12-01T10:00:00Z",
    );
    assert_eq!(
        judge(&claim, "median_ms", &quiet).unwrap().verdict,
        Verdict::Holds
    );
    let noisy = record(
        vec![row("a", 1.03, 0.08, 30, 7), row("b", 1.0, 0.08, 30, 8)],
        "2026-12-01T10:00:00Z",
    );
    let j = judge(&claim, "median_ms", &noisy).unwrap();
    assert_eq!(j.verdict, Verdict::Ambiguous, "{j:?}");
    assert!(
        j.notes.iter().any(|n| n.contains("without converging")),
        "an unconverged row is said: {:?}",
        j.notes
    );
}

#[test]
fn a_within_claim_holds_fails_or_is_ambiguous_on_the_spread_interval() {
    let r = record(
        vec![
            row("a", 1.00, 0.005, 200, 3),
            row("b", 1.001, 0.005, 200, 4),
            row("c", 1.30, 0.005, 200, 5),
        ],
        "2026-12-01T10:00:00Z",
    );
    let within = |rows: &[&str], tolerance| ClaimTest::Within {
        rows: rows.iter().map(|s| s.to_string()).collect(),
        tolerance,
    };
    assert_eq!(
        judge(&within(&["a", "b"], 0.02), "median_ms", &r)
            .unwrap()
            .verdict,
        Verdict::Holds
    );
    assert_eq!(
        judge(&within(&["a", "c"], 0.02), "median_ms", &r)
            .unwrap()
            .verdict,
        Verdict::Fails
    );
    // The spread of a and b is about 0.1% with an interval of a few tenths of a percent.
    let j = judge(&within(&["a", "b"], 0.001), "median_ms", &r).unwrap();
    assert_eq!(j.verdict, Verdict::Ambiguous, "{j:?}");
    assert!(j.advice.contains("within:"), "{}", j.advice);
}

#[test]
fn a_legacy_record_is_read_as_points_with_a_note_to_re_measure() {
    let mut r = two_rows(9);
    r.schema = 1;
    for c in &mut r.configs {
        c.timing.as_mut().unwrap().interval = None;
        c.quantities.get_mut("gbps").unwrap().interval = None;
    }
    let j = judge(&ratio_above("slow", "fast", 1.02), "median_ms", &r).unwrap();
    assert_eq!(j.verdict, Verdict::Holds);
    assert!(
        j.notes.iter().any(|n| n.contains("re-measure")),
        "{:?}",
        j.notes
    );
    // A schema-2 record without an interval is not read as a point: it cannot hold.
    r.schema = RECORD_SCHEMA;
    let e = judge(&ratio_above("slow", "fast", 1.02), "median_ms", &r).unwrap_err();
    assert!(e.contains("has no interval"), "{e}");
}

fn kept(r: Record, file: &str) -> Run {
    Run {
        path: PathBuf::from("measurements/e/records/history/h200").join(file),
        digest: format!("sha256:{file}"),
        state: RunState::Kept(Arc::new(r)),
    }
}

#[test]
fn a_history_where_one_run_flips_a_claim_refuses_it_naming_the_run() {
    let claim = ratio_above("slow", "fast", 1.03);
    // The latest and one earlier run hold (6% apart); a run in between measured the slow
    // row only 2% slower, as another session on another H200 might.
    let flipped = record(
        vec![
            row("slow", 1.02, 0.005, 200, 11),
            row("fast", 1.00, 0.005, 200, 12),
        ],
        "2026-11-20T08:00:00Z",
    );
    // A citation: the latest record and the kept runs.
    let citation = |history: Vec<Run>| (two_rows(1), history);
    let good = citation(vec![kept(two_rows(5), "20261110T080000.000Z.json")]);
    assert!(check_claim(&claim, "median_ms", &good.0, &good.1).is_ok());
    let bad = citation(vec![
        kept(two_rows(5), "20261110T080000.000Z.json"),
        kept(flipped, "20261120T080000.000Z.json"),
    ]);
    let e = check_claim(&claim, "median_ms", &bad.0, &bad.1).unwrap_err();
    assert!(
        e.contains("holds on the latest record but fails on run captured 2026-11-20 08:00:00 UTC (20261120T080000.000Z.json)"),
        "{e}"
    );
    // A run that cannot be trusted is not skipped.
    let unsigned = citation(vec![Run {
        path: PathBuf::from("measurements/e/records/history/h200/20261110T080000.000Z.json"),
        digest: String::new(),
        state: RunState::Bad("not signed by node h200: there is no ....sig".into()),
    }]);
    let e = check_claim(&claim, "median_ms", &unsigned.0, &unsigned.1).unwrap_err();
    assert!(e.contains("history run") && e.contains("not signed"), "{e}");
    // A run of an earlier version of the experiment is not held to today's claims.
    let mut old_version = citation(vec![]);
    let mut r = record(
        vec![
            row("slow", 1.0, 0.005, 200, 1),
            row("fast", 1.0, 0.005, 200, 2),
        ],
        "2026-11-01T08:00:00Z",
    );
    r.spec_digest = "sha256:11".into();
    old_version.1 = vec![Run {
        path: PathBuf::from("x.json"),
        digest: String::new(),
        state: RunState::OtherVersion(Arc::new(r)),
    }];
    assert!(check_claim(&claim, "median_ms", &old_version.0, &old_version.1).is_ok());
}

#[test]
fn notes_name_only_rows_unconverged_in_the_latest_record() {
    // An earlier run whose `slow` row hit the time cap (8% spread, unconverged) and a
    // latest record where both rows converged: the claim holds on both, and its notes
    // are the latest record's, which has nothing to say.
    let claim = ratio_above("slow", "fast", 1.01);
    let mut earlier = two_rows(5);
    earlier.configs[0] = row("slow", 1.30, 0.08, 400, 21);
    assert!(earlier.configs[0].unconverged());
    let history = vec![kept(earlier.clone(), "20261110T080000.000Z.json")];
    let notes = check_claim(&claim, "median_ms", &two_rows(1), &history)
        .unwrap()
        .notes;
    assert!(notes.is_empty(), "{notes:?}");
    // The same unconverged run as the latest record is named.
    let notes = check_claim(&claim, "median_ms", &earlier, &[])
        .unwrap()
        .notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("row `slow`") && n.contains("without converging")),
        "{notes:?}"
    );
}

#[test]
fn a_claim_that_holds_by_less_than_the_band_is_fragile_on_the_run_that_is_tightest() {
    // slow/fast is about 1.06 [1.058, 1.062]: `above 1.02` clears by about 3.7%, inside a
    // 5% band; `above 1.0` clears by about 5.8%.
    let tight = ratio_above("slow", "fast", 1.02);
    let wide = ratio_above("slow", "fast", 1.0);
    let history = vec![kept(two_rows(5), "20261110T080000.000Z.json")];
    let s = check_claim(&tight, "median_ms", &two_rows(1), &history).unwrap();
    assert!(s.timed);
    assert!(s.margin > 0.03 && s.margin < 0.05, "{s:?}");
    let why = s.fragile(0.05).expect("fragile inside a 5% band");
    assert!(
        why.contains("less than the experiment's 5% reproducibility band"),
        "{why}"
    );
    assert!(why.contains("fragile_ok"), "{why}");
    // The same claim under a 2% band clears it; the wide one clears 5%.
    assert_eq!(s.fragile(0.02), None);
    let s = check_claim(&wide, "median_ms", &two_rows(1), &history).unwrap();
    assert_eq!(s.fragile(0.05), None, "{s:?}");
    // The rule on one run, as reproduce applies it.
    let j = judge(&tight, "median_ms", &two_rows(1)).unwrap();
    assert!(j.fragile(0.05).is_some());
    // The tightest run is named: a history run 4% apart is tighter than the latest.
    let closer = record(
        vec![
            row("slow", 1.04, 0.005, 200, 21),
            row("fast", 1.00, 0.005, 200, 22),
        ],
        "2026-11-20T08:00:00Z",
    );
    let s = check_claim(
        &wide,
        "median_ms",
        &two_rows(1),
        &[kept(closer, "20261120T080000.000Z.json")],
    )
    .unwrap();
    assert!(
        s.tightest_run.contains("20261120T080000.000Z.json"),
        "{s:?}"
    );
    assert!(s.fragile(0.05).is_some(), "{s:?}");
}

#[test]
fn an_exact_value_is_not_held_to_the_timing_band() {
    // A driver's or counter's value is a point: the same on every run of the model.
    let mut r = two_rows(1);
    r.configs[0]
        .quantities
        .insert("conflicts".into(), Quantity::metric(31.0, "", None, 0));
    let claim = ClaimTest::Value {
        row: "slow".into(),
        below: None,
        above: Some(30.9),
    };
    let j = judge(&claim, "conflicts", &r).unwrap();
    assert_eq!(j.verdict, Verdict::Holds);
    assert!(!j.timed && j.margin < 0.01, "{j:?}");
    assert_eq!(j.fragile(0.05), None);
}
