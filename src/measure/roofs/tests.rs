//! Roofs without a GPU: a scaffold experiment whose bandwidth names `dram`, records made
//! by hand, node peaks parsed from TOML as glossary.toml writes them.

use super::*;
use crate::measure::record::{ConfigStatus, GpuInfo, Quantity, Timing, RECORD_SCHEMA};
use crate::measure::spec::{Experiment, EXPERIMENT_FILE};

fn experiment(dir: &std::path::Path, metrics: &str) -> Experiment {
    let e = dir.join("scale");
    std::fs::create_dir_all(&e).unwrap();
    let yaml = crate::measure::spec::scaffold::experiment_yaml("scale");
    let (head, _) = yaml.split_once("metrics:").unwrap();
    std::fs::write(
        e.join(EXPERIMENT_FILE),
        format!("{head}metrics:\n{metrics}"),
    )
    .unwrap();
    std::fs::write(
        e.join("scale.cu"),
        crate::measure::spec::scaffold::EXPERIMENT_KERNEL,
    )
    .unwrap();
    Experiment::load(&e).unwrap()
}

const METRICS: &str = "  gbps: {value: 8 * n / (median_ms * 1e6), unit: GB/s, roof: dram}\n  \
     tflops: {value: 2 * n / (median_ms * 1e9), unit: TFLOP/s, roof: fp32}\n";

pub(crate) fn node(peaks: &str) -> Node {
    let text = format!(
        "gpu = \"NVIDIA H200\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 132\n[peaks]\n{peaks}"
    );
    toml::from_str(&text).unwrap()
}

const PEAKS: &str =
    "dram = { rate = \"4.8 TB/s\", source = \"H200 product page\", checked = 2026-12-06 }\n\
    fp32 = { fma_lanes_per_sm = 128, source = \"Hopper whitepaper\", checked = 2026-12-06 }\n";

fn row(label: &str, gbps: f64, tflops: f64, clock: Option<u32>) -> ConfigRecord {
    ConfigRecord {
        label: label.into(),
        status: ConfigStatus::Passed,
        timing: Some(Timing {
            samples_ms: vec![1.0; 3],
            median_ms: 1.0,
            min_ms: 1.0,
            max_ms: 1.0,
            rsd: 0.0,
            sm_clock_mhz: clock,
            throttled_samples: clock.map(|_| 0),
            unobserved_samples: 0,
            converged: true,
            interval: None,
            host_median_ms: None,
        }),
        quantities: [
            ("gbps".to_string(), Quantity::metric(gbps, "GB/s", None, 0)),
            (
                "tflops".to_string(),
                Quantity::metric(tflops, "TFLOP/s", None, 2),
            ),
        ]
        .into(),
        ..Default::default()
    }
}

fn record(configs: Vec<ConfigRecord>) -> Record {
    Record {
        schema: RECORD_SCHEMA,
        experiment: "scale".into(),
        node: "h200".into(),
        spec_digest: String::new(),
        tool_version: "test".into(),
        captured_at: chrono::Utc::now(),
        gpu: GpuInfo {
            sm_count: 132,
            ..Default::default()
        },
        compile_options: vec![],
        device: [
            ("sm_count".to_string(), 132),
            ("clock_mhz".to_string(), 1980),
        ]
        .into(),
        partial: false,
        configs,
        extra: serde_json::Value::Null,
    }
}

#[test]
fn shares_are_taken_at_the_clock_the_row_ran_at_and_say_which() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path(), METRICS);
    let rec = record(vec![
        row("seen", 4200.0, 29.7, Some(1755)),
        row("blind", 4200.0, 29.7, None),
    ]);
    let r = readings(&exp.roofed(), &node(PEAKS), &rec);
    let dram = &r[&("seen".to_string(), "gbps".to_string())];
    // 4.8 TB/s in the metric's GB/s, whatever the clock.
    assert_eq!((dram.peak, dram.clock), (4800.0, ClockUsed::None));
    assert!((dram.share() - 0.875).abs() < 1e-12);
    let fp32 = &r[&("seen".to_string(), "tflops".to_string())];
    // 132 SMs x 128 lanes x 2 x 1755 MHz.
    assert!((fp32.peak - 132.0 * 256.0 * 1755e6 / 1e12).abs() < 1e-9);
    assert_eq!(fp32.clock, ClockUsed::Seen(1755));
    let blind = &r[&("blind".to_string(), "tflops".to_string())];
    assert!((blind.peak - 66.908_16).abs() < 1e-6, "{}", blind.peak);
    assert_eq!(blind.clock, ClockUsed::DriverMax(1980));
    assert!(blind.clock.phrase().contains("driver's maximum"));
}

#[test]
fn verify_says_each_rows_share_of_its_roof_and_the_clock_taken() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path(), METRICS);
    let rec = record(vec![
        row("seen", 4200.0, 29.7, Some(1980)),
        row("blind", 2400.0, 29.7, None),
    ]);
    let said = shares_said(&exp.roofed(), &node(PEAKS), &rec);
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(
        said[0],
        "gbps against the dram roof (H200 product page, checked 2026-12-06): seen 87.5% of 4800 GB/s, blind 50.0% of 4800 GB/s"
    );
    assert!(
        said[1].contains("seen 44.4% of 66.91 TFLOP/s at 1980 MHz seen"),
        "{}",
        said[1]
    );
    assert!(
        said[1].contains("blind 44.4% of 66.91 TFLOP/s at 1980 MHz (max; no reading)"),
        "{}",
        said[1]
    );
}

#[test]
fn a_datasheet_rate_scales_from_its_clock_to_the_rows() {
    let peaks = "tensor_bf16 = { rate = \"989.4 TFLOP/s\", at_mhz = 1830, source = \"whitepaper\", checked = 2026-12-06 }\n";
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(
        dir.path(),
        "  tflops: {value: 2 * n / (median_ms * 1e9), unit: TFLOP/s, roof: tensor_bf16}\n",
    );
    let rec = record(vec![row("mma", 0.0, 646.7, Some(1980))]);
    let r =
        &readings(&exp.roofed(), &node(peaks), &rec)[&("mma".to_string(), "tflops".to_string())];
    assert!((r.peak - 989.4 * 1980.0 / 1830.0).abs() < 1e-9);
    // The figure: 60% of the hardware rate at the clock the row ran at.
    assert_eq!((r.share() * 100.0).round(), 60.0);
}

#[test]
fn a_row_above_its_roof_by_more_than_the_band_is_impossible() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path(), METRICS);
    let peaks = node(PEAKS);
    // 4.8 TB/s x 1.05 = 5040 GB/s: just under passes, just over is refused.
    let ok = record(vec![row("under", 5039.0, 10.0, Some(1980))]);
    assert_eq!(above_roof(&exp.roofed(), 0.05, &peaks, &ok), vec![]);
    let bad = record(vec![row("over", 5041.0, 10.0, Some(1980))]);
    let found = above_roof(&exp.roofed(), 0.05, &peaks, &bad);
    assert_eq!(found.len(), 1);
    let text = found[0].to_string();
    for part in [
        "row `over`",
        "gbps = 5041 GB/s",
        "dram roof of 4800 GB/s",
        "H200 product page",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    // A clock reading under the maximum never refuses a real row: judged at 1980 MHz,
    // 70 TFLOP/s is within 5% of 66.9; at the seen 1500 MHz it would not be.
    let slow = record(vec![row("slow", 100.0, 70.0, Some(1500))]);
    assert_eq!(above_roof(&exp.roofed(), 0.05, &peaks, &slow), vec![]);
    let fast = record(vec![row("fast", 100.0, 71.0, Some(1500))]);
    let f = above_roof(&exp.roofed(), 0.05, &peaks, &fast);
    assert!(f[0].to_string().contains("at 1980 MHz"), "{}", f[0]);
    // A node without the peak judges nothing (a roof it does not list).
    assert_eq!(above_roof(&exp.roofed(), 0.05, &node(""), &bad), vec![]);
}

#[test]
fn a_metric_unit_unlike_its_roof_is_refused_at_load_naming_file_and_line() {
    assert!(metric_fits_roof("dram", "TB/s").is_ok());
    assert!(metric_fits_roof("smem", "B/cycle").is_ok());
    let e = metric_fits_roof("dram", "TFLOP/s").unwrap_err();
    assert!(e.contains("counts B"), "{e}");
    assert!(metric_fits_roof("dram", "ms").is_err());
    assert!(metric_fits_roof("hbm", "GB/s")
        .unwrap_err()
        .contains("roofs are dram"));
    let dir = tempfile::tempdir().unwrap();
    let e = dir.path().join("scale");
    std::fs::create_dir_all(&e).unwrap();
    let yaml = crate::measure::spec::scaffold::experiment_yaml("scale");
    let (head, _) = yaml.split_once("metrics:").unwrap();
    let text = format!("{head}metrics:\n  gbps: {{value: 8 * n / (median_ms * 1e6), unit: GB/s, roof: dram}}\n  tf: {{value: 1 / median_ms, unit: TFLOP/s, roof: dram}}\n");
    let line = text.lines().position(|l| l.starts_with("  tf:")).unwrap() + 1;
    std::fs::write(e.join(EXPERIMENT_FILE), text).unwrap();
    std::fs::write(
        e.join("scale.cu"),
        crate::measure::spec::scaffold::EXPERIMENT_KERNEL,
    )
    .unwrap();
    let err = Experiment::load(&e).unwrap_err().to_string();
    assert!(err.contains(&format!("experiment.yaml:{line}")), "{err}");
    assert!(
        err.contains("metric `tf`") && err.contains("counts FLOP"),
        "{err}"
    );
}

#[test]
fn peaks_are_checked_as_glossary_toml_is_read() {
    let bad = |peaks: &str| {
        let text = format!(
            "gpu = \"G\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 1\n[peaks]\n{peaks}"
        );
        toml::from_str::<Node>(&text).unwrap_err().to_string()
    };
    let e = bad("hbm = { rate = \"4.8 TB/s\", source = \"x\", checked = 2026-12-06 }");
    assert!(e.contains("not a roof") && e.contains("line 6"), "{e}");
    assert!(bad("dram = { rate = \"4.8 TB/s\", checked = 2026-12-06 }").contains("source"));
    assert!(bad("dram = { rate = \"4.8 TB/s\", source = \"x\" }").contains("checked"));
    assert!(
        bad("dram = { rate = \"4.8 TB\", source = \"x\", checked = 2026-12-06 }")
            .contains("not a rate unit")
    );
    assert!(bad("fp32 = { rate = \"1 TFLOP/s\", fma_lanes_per_sm = 128, source = \"x\", checked = 2026-12-06 }")
        .contains("exactly one"));
    assert!(bad(
        "dram = { rate = \"4.8 TB/s\", source = \"x\", checked = 2026-12-06, sparse = true }"
    )
    .contains("sparse"));
}

#[test]
fn a_peak_that_counts_other_work_than_its_roof_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("glossary.toml"),
    )
    .unwrap();
    text.push_str("\n[nodes.t4.peaks]\ndram = { fma_lanes_per_sm = 64, source = \"x\", checked = 2026-12-06 }\n");
    std::fs::write(dir.path().join("glossary.toml"), text).unwrap();
    let e = crate::config::Config::load(dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("[nodes.t4.peaks] dram") && e.contains("counts B") && e.contains("counts FLOP"),
        "{e}"
    );
}

mod claims {
    use super::*;
    use crate::content::ClaimTest;
    use crate::measure::claims::{judge, judge_roofed, Roofing};
    use crate::measure::verdict::Verdict;

    fn share(row: &str, below: Option<f64>, above: Option<f64>) -> ClaimTest {
        ClaimTest::Share {
            row: row.into(),
            below,
            above,
        }
    }

    fn bound(row: &str, roof: &str, threshold: f64) -> ClaimTest {
        ClaimTest::Bound {
            row: row.into(),
            roof: roof.into(),
            threshold,
        }
    }

    #[test]
    fn a_share_claim_reads_the_row_against_its_roof_at_its_clock() {
        let dir = tempfile::tempdir().unwrap();
        let exp = experiment(dir.path(), METRICS);
        let node = node(PEAKS);
        let roofed = exp.roofed();
        let roofing = Roofing {
            metrics: &roofed,
            node: &node,
        };
        let rec = record(vec![row("k1", 4200.0, 1.0, Some(1980))]);
        let j = judge_roofed(&share("k1", None, Some(0.8)), "gbps", &rec, Some(&roofing)).unwrap();
        assert_eq!(j.verdict, Verdict::Holds, "{}", j.shown);
        assert!(
            j.shown.contains(
                "87.5% of the dram roof, 4800.0000 GB/s (H200 product page, checked 2026-12-06)"
            ),
            "{}",
            j.shown
        );
        let j = judge_roofed(&share("k1", Some(0.8), None), "gbps", &rec, Some(&roofing)).unwrap();
        assert_eq!(j.verdict, Verdict::Fails, "{}", j.shown);
        // The FP32 roof follows the clock: the page says which.
        let j = judge_roofed(
            &share("k1", Some(0.1), None),
            "tflops",
            &rec,
            Some(&roofing),
        )
        .unwrap();
        assert!(
            j.shown.contains("at 1980 MHz, the SM clock seen"),
            "{}",
            j.shown
        );
        // Without the node's peaks a share cannot be checked: an error, never a pass.
        assert!(judge(&share("k1", None, Some(0.8)), "gbps", &rec).is_err());
    }

    #[test]
    fn a_bound_claim_holds_only_above_its_threshold_and_on_the_nearest_roof() {
        let dir = tempfile::tempdir().unwrap();
        let exp = experiment(dir.path(), METRICS);
        let node = node(PEAKS);
        let roofed = exp.roofed();
        let roofing = Roofing {
            metrics: &roofed,
            node: &node,
        };
        let j = |test: &ClaimTest, column: &str, rec: &Record| {
            judge_roofed(test, column, rec, Some(&roofing)).unwrap()
        };
        // 87.5% of DRAM, 10% of FP32: bound by DRAM.
        let memory = record(vec![row("k1", 4200.0, 6.69, Some(1980))]);
        assert_eq!(
            j(&bound("k1", "dram", 0.7), "gbps", &memory).verdict,
            Verdict::Holds
        );
        // Under the stated threshold: not bound by it.
        let low = j(&bound("k1", "dram", 0.9), "gbps", &memory);
        assert_eq!(low.verdict, Verdict::Fails, "{}", low.shown);
        // The roofline row: 88% of DRAM, 44% of FP32 is DRAM's, not FP32's.
        let k8 = record(vec![row("k8", 4224.0, 29.7, Some(1980))]);
        let wrong = j(&bound("k8", "fp32", 0.4), "tflops", &k8);
        assert_eq!(wrong.verdict, Verdict::Fails, "{}", wrong.shown);
        assert!(wrong.advice.contains("the dram roof"), "{}", wrong.advice);
        // The bound names the column that reads it.
        assert!(judge_roofed(&bound("k8", "fp32", 0.4), "gbps", &k8, Some(&roofing)).is_err());
        // Latency: every roof far away.
        let far = record(vec![row("lat", 200.0, 0.5, Some(1980))]);
        assert_eq!(
            j(&bound("lat", "latency", 0.2), "gbps", &far).verdict,
            Verdict::Holds
        );
        assert_eq!(
            j(&bound("k1", "latency", 0.2), "gbps", &memory).verdict,
            Verdict::Fails
        );
    }

    #[test]
    fn a_claim_on_a_throttled_row_says_so_with_the_reasons_seen() {
        use crate::measure::record::Bounds;
        let mut r = row("k1", 0.0, 0.0, Some(1755));
        r.quantities.insert(
            "gbps".into(),
            Quantity::timed_metric(
                4200.0,
                Bounds {
                    lo: 4190.0,
                    hi: 4210.0,
                },
                "GB/s",
                None,
                0,
            ),
        );
        r.timing.as_mut().unwrap().throttled_samples = Some(2);
        let mut rec = record(vec![r]);
        let test = ClaimTest::Value {
            row: "k1".into(),
            below: None,
            above: Some(4000.0),
        };
        let j = judge(&test, "gbps", &rec).unwrap();
        assert_eq!(
            j.notes,
            vec!["row `k1` ran throttled (2 of 3 samples)".to_string()]
        );
        rec.extra = serde_json::json!({"clock_events": {"k1": ["sw_power_cap"]}});
        let j = judge(&test, "gbps", &rec).unwrap();
        assert_eq!(
            j.notes,
            vec!["row `k1` ran throttled (2 of 3 samples; sw_power_cap)".to_string()]
        );
    }

    #[test]
    fn share_and_bound_claims_are_checked_as_front_matter_is_read() {
        let claim = |extra: &str| {
            serde_yaml::from_str::<crate::content::Claim>(&format!(
                "says: x\ncolumn: gbps\nrow: k1\n{extra}"
            ))
            .unwrap()
            .test()
        };
        assert!(matches!(
            claim("share: true\nabove: 0.8"),
            Ok(ClaimTest::Share { .. })
        ));
        assert!(claim("share: true\nabove: 80")
            .unwrap_err()
            .contains("between 0 and 1"));
        assert!(claim("share: true").unwrap_err().contains("needs `below`"));
        assert!(matches!(
            claim("bound: dram\nabove: 0.7"),
            Ok(ClaimTest::Bound { .. })
        ));
        assert!(claim("bound: dram\nbelow: 0.7")
            .unwrap_err()
            .contains("takes `above`"));
        assert!(claim("bound: hbm\nabove: 0.7")
            .unwrap_err()
            .contains("names no roof"));
        assert!(claim("bound: latency\nabove: 0.2")
            .unwrap_err()
            .contains("takes `below`"));
        assert!(claim("bound: dram\nshare: true\nabove: 0.7")
            .unwrap_err()
            .contains("not both"));
    }
}
