//! The occupancy model against the driver: every point the H200 verification node recorded
//! with `cuOccupancyMaxActiveBlocksPerMultiprocessor` (measurements/occupancy-sweep), and the
//! Nsight Compute exports of the Day 45 kernels captured there.

use std::path::PathBuf;
use std::process::Command;

use glossary::measure::Record;
use glossary::occupancy::{compute, Arch, Launch};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn model_matches_every_point_of_the_h200_driver_sweep() {
    let record =
        Record::load(&repo().join("measurements/occupancy-sweep/records/h200.json")).unwrap();
    assert_eq!(record.gpu.compute_capability, "9.0");
    let arch = Arch::from_compute_capability(&record.gpu.compute_capability).unwrap();
    let points = &record.configs;
    assert!(points.len() > 1000, "only {} points", points.len());

    let mut mismatches = Vec::new();
    let mut compared = 0;
    for p in points {
        let launch = Launch::new(p.block_size, p.registers)
            .with_static_shared_memory(p.static_smem.into())
            .with_dynamic_shared_memory(p.smem_reserved.into());
        // The driver cannot launch these (e.g. a block needs more registers than a block may
        // have); the model must refuse them too rather than report a residency.
        let driver = match p.status {
            glossary::measure::record::ConfigStatus::Passed => Some(p.blocks_per_sm),
            _ => None,
        };
        let model = compute(arch, &launch, None).ok().map(|o| o.blocks_per_sm);
        let agree = match (driver, model) {
            (None, None) => true,
            (None, Some(m)) => m == 0,
            (Some(d), m) => m.unwrap_or(0) == d,
        };
        if !agree {
            mismatches.push(format!("{}: driver {driver:?}, model {model:?}", p.label));
        }
        compared += 1;
    }
    assert!(
        mismatches.is_empty(),
        "{} of {compared} points differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn reads_the_real_ncu_export_of_the_day45_kernels() {
    let csv = repo().join("tests/fixtures/ncu/day45-h200.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_glossary"))
        .args(["occupancy", "--json", "--from-ncu"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kernels = v["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 10, "one launch per Day 45 configuration");

    // The Day 45 record says which launches were dialled down by shared memory; the export's
    // interpretation must agree launch by launch.
    let record =
        Record::load(&repo().join("measurements/day45-occupancy/records/h200.json")).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for (k, cfg) in kernels.iter().zip(&record.configs) {
        assert_eq!(
            k["model_check"]["differences"],
            serde_json::json!([]),
            "{}: the model disagrees with ncu",
            cfg.label
        );
        let binding = k.to_string();
        let dialled = cfg.smem_reserved > 0;
        assert_eq!(
            binding.contains("\"binding\":\"shared_memory\""),
            dialled,
            "{}: {binding}",
            cfg.label
        );
    }
    assert!(text.contains("achieved"), "{text}");
}
