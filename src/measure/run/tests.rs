//! The record writer's rule (a failed run never replaces a good record) and derived
//! metrics, without a GPU.

use super::*;
use crate::measure::record::{GpuInfo, Timing};

fn experiment(dir: &Path) -> Experiment {
    let e = dir.join("scale");
    std::fs::create_dir_all(&e).unwrap();
    std::fs::write(
        e.join(EXPERIMENT_FILE),
        crate::measure::spec::scaffold::experiment_yaml("scale"),
    )
    .unwrap();
    std::fs::write(
        e.join("scale.cu"),
        crate::measure::spec::scaffold::EXPERIMENT_KERNEL,
    )
    .unwrap();
    Experiment::load(&e).unwrap()
}

fn row(label: &str, status: ConfigStatus, median: Option<f64>) -> ConfigRecord {
    ConfigRecord {
        label: label.into(),
        kernel: "scale".into(),
        status,
        params: [("n".to_string(), 1 << 24), ("block".to_string(), 128)].into(),
        block_size: 128,
        warps_per_sm: 64,
        timing: median.map(|m| Timing {
            samples_ms: vec![m; 3],
            median_ms: m,
            min_ms: m,
            max_ms: m,
            rsd: 0.0,
            sm_clock_mhz: None,
            throttled_samples: Some(0),
            unobserved_samples: 0,
            converged: true,
            host_median_ms: None,
            interval: None,
        }),
        ..Default::default()
    }
}

fn record(exp: &Experiment, configs: Vec<ConfigRecord>) -> Record {
    Record {
        schema: RECORD_SCHEMA,
        experiment: exp.id.clone(),
        node: "h200".into(),
        spec_digest: exp.digest.clone(),
        tool_version: "test".into(),
        captured_at: Utc::now(),
        gpu: GpuInfo::default(),
        compile_options: vec![],
        device: [("l2_bytes".to_string(), 62914560)].into(),
        partial: false,
        configs,
        extra: serde_json::Value::Null,
    }
}

fn paths(exp: &Experiment) -> (PathBuf, PathBuf) {
    (exp.record_path("h200"), exp.failed_record_path("h200"))
}

fn failed() -> ConfigStatus {
    ConfigStatus::Failed {
        reason:
            "`out`: 7 element(s) differ from the reference; first at index 3: got NaN, expected 1"
                .into(),
        wrong: Some(7),
        first_index: Some(3),
    }
}

#[test]
fn a_failed_check_leaves_the_good_record_and_says_what_failed() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path());
    let good = record(&exp, vec![row("block128", ConfigStatus::Passed, Some(1.0))]);
    let out = write_outcome(paths(&exp), good.clone(), false, vec![], None).unwrap();
    assert!(matches!(out, Outcome::Written { partial: false, .. }));
    let before = std::fs::read(exp.record_path("h200")).unwrap();

    let bad = record(
        &exp,
        vec![
            row("block128", ConfigStatus::Passed, Some(2.0)),
            row("block256", failed(), None),
        ],
    );
    let out = write_outcome(paths(&exp), bad.clone(), false, vec![], None).unwrap();
    let Outcome::Failed {
        error,
        failed_record,
        ..
    } = &out
    else {
        panic!("{out:?}")
    };
    assert!(
        error.starts_with("1 of 2 configs failed their check (block256)"),
        "{error}"
    );
    assert_eq!(
        std::fs::read(exp.record_path("h200")).unwrap(),
        before,
        "the good record is untouched"
    );
    let f = Record::load(failed_record.as_ref().unwrap()).unwrap();
    assert_eq!(f.configs[1].status, failed());
    let report = Report {
        node: "h200".into(),
        gpu: None,
        notes: vec![],
        experiments: vec![(exp.id.clone(), out)],
    };
    assert!(!report.all_passed());

    // --allow-partial writes the rows, marked; verify still does not pass.
    let out = write_outcome(paths(&exp), bad, true, vec![], None).unwrap();
    assert!(matches!(out, Outcome::Written { partial: true, .. }));
    let r = Record::load(&exp.record_path("h200")).unwrap();
    assert!(r.partial);
    let report = Report {
        node: "h200".into(),
        gpu: None,
        notes: vec![],
        experiments: vec![(exp.id.clone(), out)],
    };
    assert!(!report.all_passed());

    // A later passing run writes the record and removes the stale failure report.
    write_outcome(paths(&exp), good, false, vec![], None).unwrap();
    assert!(!exp.failed_record_path("h200").exists());
    assert!(!Record::load(&exp.record_path("h200")).unwrap().partial);
}

#[test]
fn metrics_read_params_launch_and_time_and_say_why_they_are_missing() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path());
    let device = [("l2_bytes".to_string(), 62914560)].into();
    let mut ok = row("block128", ConfigStatus::Passed, Some(0.5));
    metrics::apply(&exp.spec, &device, &mut ok);
    let gbps = &ok.quantities["gbps"];
    assert_eq!(gbps.value, Some(8.0 * (1 << 24) as f64 / 0.5e6));
    assert_eq!(
        (gbps.unit.as_str(), gbps.heading.as_deref()),
        ("GB/s", Some("bandwidth"))
    );
    let mut bad = row("block256", failed(), None);
    metrics::apply(&exp.spec, &device, &mut bad);
    assert_eq!(bad.quantities["gbps"].value, None);
    assert_eq!(
        bad.quantities["gbps"].not_measured.as_deref(),
        Some("`median_ms` is not available for this config")
    );
}

#[test]
fn metrics_read_launches_per_sample_one_unless_the_row_says() {
    use crate::measure::spec::{ExprSrc, MetricSpec};
    let dir = tempfile::tempdir().unwrap();
    let mut exp = experiment(dir.path());
    exp.spec.metrics.insert(
        "us_per_launch".into(),
        MetricSpec {
            value: ExprSrc("median_ms * 1000 / launches_per_sample".into()),
            unit: "us".into(),
            heading: None,
            decimals: None,
            roof: None,
        },
    );
    let device = [("l2_bytes".to_string(), 62914560)].into();
    let mut once = row("block128", ConfigStatus::Passed, Some(0.5));
    metrics::apply(&exp.spec, &device, &mut once);
    assert_eq!(once.quantities["us_per_launch"].value, Some(500.0));
    let mut repeated = row("block256", ConfigStatus::Passed, Some(0.5));
    repeated.quantities.insert(
        "launches_per_sample".into(),
        Quantity {
            source: "launch".into(),
            ..Quantity::metric(100.0, "launches", None, 0)
        },
    );
    metrics::apply(&exp.spec, &device, &mut repeated);
    let q = &repeated.quantities["us_per_launch"];
    assert_eq!((q.value, q.timed), (Some(5.0), true));
}

#[test]
fn ncu_metrics_without_ncu_are_recorded_as_not_measured() {
    let dir = tempfile::tempdir().unwrap();
    let mut exp = experiment(dir.path());
    exp.spec.ncu_metrics = vec!["dram__bytes_read.sum".into()];
    let mut configs = vec![row("block128", ConfigStatus::Passed, Some(0.5))];
    mark_not_measured(
        &exp.spec,
        &mut configs,
        "not measured: ncu is not installed on this node",
    );
    let q = &configs[0].quantities["dram__bytes_read.sum"];
    assert_eq!((q.value, q.source.as_str()), (None, "ncu"));
    assert_eq!(configs[0].column("dram__bytes_read.sum"), None);
    assert!(record(&exp, configs).knows("dram__bytes_read.sum"));
}

#[test]
fn metrics_read_observed_clock_and_power_as_timed_names_without_an_interval() {
    use crate::measure::spec::{ExprSrc, MetricSpec};
    let dir = tempfile::tempdir().unwrap();
    let mut exp = experiment(dir.path());
    let metric = |v: &str| MetricSpec {
        value: ExprSrc(v.into()),
        unit: String::new(),
        heading: None,
        decimals: None,
        roof: None,
    };
    exp.spec.metrics.insert(
        "us_per_launch".into(),
        metric("median_ms * 1000 / launches_per_sample"),
    );
    exp.spec
        .metrics
        .insert("joules".into(), metric("power_w * median_ms / 1000"));
    exp.spec
        .metrics
        .insert("cycles".into(), metric("sm_clock_mhz * median_ms * 1000"));
    let device = [("l2_bytes".to_string(), 62914560)].into();

    let mut seen = row("block128", ConfigStatus::Passed, Some(0.5));
    if let Some(t) = seen.timing.as_mut() {
        t.sm_clock_mhz = Some(1980);
    }
    seen.quantities
        .insert(timed::POWER.into(), timed::power_quantity(600.0));
    seen.quantities.insert(
        "launches_per_sample".into(),
        Quantity {
            source: "launch".into(),
            ..Quantity::metric(100.0, "launches", None, 0)
        },
    );
    metrics::apply(&exp.spec, &device, &mut seen);
    let q = |name: &str| seen.quantities[name].clone();
    assert_eq!(q("us_per_launch").value, Some(5.0));
    assert_eq!(q("joules").value, Some(0.3));
    assert_eq!(q("cycles").value, Some(990_000.0));
    // Observations move between runs: timed, and with no interval to decide a claim by.
    for name in ["joules", "cycles"] {
        assert!(q(name).timed && q(name).interval.is_none(), "{name}");
        assert!(matches!(
            seen.estimate(name, RECORD_SCHEMA),
            Err(crate::measure::record::NoEstimate::NoInterval(_))
        ));
    }

    // No nvidia-smi reading: not measured, with why; never 0. One launch a sample.
    let mut blind = row("block256", ConfigStatus::Passed, Some(0.5));
    metrics::apply(&exp.spec, &device, &mut blind);
    assert_eq!(blind.quantities["us_per_launch"].value, Some(500.0));
    for (name, observed) in [("joules", "power_w"), ("cycles", "sm_clock_mhz")] {
        let m = &blind.quantities[name];
        assert_eq!(m.value, None, "{name}");
        let why = m.not_measured.as_deref().unwrap_or_default();
        assert!(
            why.contains(observed) && why.contains("no nvidia-smi reading"),
            "{why}"
        );
    }
}

#[test]
fn verify_refuses_a_row_above_its_roof_and_writes_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut exp = experiment(dir.path());
    exp.spec.metrics.get_mut("gbps").unwrap().roof = Some("dram".into());
    let profile: crate::config::Node = toml::from_str(
        "gpu = \"NVIDIA H200\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 132\n\
         [peaks]\ndram = { rate = \"4.8 TB/s\", source = \"H200 product page\", checked = 2026-12-06 }\n",
    )
    .unwrap();
    let device = [("l2_bytes".to_string(), 62914560)].into();
    // 2^24 floats in and out (8 bytes each) in 0.01 ms: 13,422 GB/s, nearly three
    // times the H200's 4.8 TB/s. A real run gets this from a byte count that is wrong.
    let mut fast = row("block128", ConfigStatus::Passed, Some(0.01));
    metrics::apply(&exp.spec, &device, &mut fast);
    let bad = record(&exp, vec![fast]);
    let roofed = exp.roofed();
    let limits = (roofed.as_slice(), exp.spec.timing.tolerance(), &profile);
    let err = write_checked(paths(&exp), bad, limits, false, vec![], None)
        .unwrap_err()
        .to_string();
    for part in [
        "row `block128`",
        "gbps = 13422 GB/s",
        "dram roof of 4800 GB/s",
        "H200 product page",
        "no record written",
    ] {
        assert!(err.contains(part), "{part} in {err}");
    }
    assert!(!exp.record_path("h200").exists());
    assert!(!exp.failed_record_path("h200").exists());
    // At 1 ms the same row is 134 GB/s, under its roof: written.
    let mut slow = row("block128", ConfigStatus::Passed, Some(1.0));
    metrics::apply(&exp.spec, &device, &mut slow);
    let out = write_checked(
        paths(&exp),
        record(&exp, vec![slow]),
        limits,
        false,
        vec![],
        None,
    )
    .unwrap();
    assert!(matches!(out, Outcome::Written { .. }));
}

#[test]
fn verify_prints_a_clock_only_for_rows_a_reading_covered_with_the_share_covered() {
    let summary = |clock: Option<u32>, unobserved: u32, throttled: Option<u32>| {
        let mut r = row("block128", ConfigStatus::Passed, Some(1.0));
        let t = r.timing.as_mut().unwrap();
        t.samples_ms = vec![1.0; 2000];
        t.sm_clock_mhz = clock;
        t.unobserved_samples = unobserved;
        t.throttled_samples = throttled;
        ConfigSummary::of(&r).clock_seen()
    };
    // The launch-overhead row of issue 51: 10 of 2,000 samples covered.
    assert_eq!(summary(Some(1980), 1990, Some(0)), "1980 MHz (1%)");
    assert_eq!(summary(Some(1980), 0, Some(0)), "1980 MHz (100%)");
    assert_eq!(
        summary(Some(1755), 0, Some(40)),
        "1755 MHz (100%) throttled"
    );
    // No reading covered the row: no clock is printed as seen.
    assert_eq!(summary(None, 2000, None), "-");
}
