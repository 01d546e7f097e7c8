//! Shared helpers for integration tests: fixture sites in temp dirs, signed the way the
//! build checks signatures, and running the real binary.
#![allow(dead_code)] // each test crate uses a different subset

use std::path::Path;
use std::process::{Command, Output};

pub use super::files::copy_dir;
use super::keys;

use glossary::pipeline::Project;
use glossary::review::Role;

pub use super::repo;

/// `tests/fixtures/sites/small` with the repository's templates, its fixture record and
/// every entry but `terms/unsigned-draft` signed by `author-a` and `reviewer-b`.
pub fn small_site(dest: &Path) {
    copy_dir(&repo().join("tests/fixtures/sites/small"), dest);
    copy_dir(&repo().join("templates"), &dest.join("templates"));
    // The fixture node's key is made per test process; its profile is the last table.
    let config = dest.join("glossary.toml");
    let mut text = std::fs::read_to_string(&config).expect("fixture glossary.toml");
    text.push_str(&keys::node_public_key_line("fixture-node"));
    std::fs::write(&config, text).expect("write glossary.toml");
    keys::write_people(dest);
    write_fixture_record(dest);
    sign_entries(dest, &["terms/unsigned-draft"]);
}

/// `tests/fixtures/sites/imported` with the repository's templates and people, every
/// entry signed by `author-a` and `reviewer-b`.
pub fn imported_site(dest: &Path) {
    copy_dir(&repo().join("tests/fixtures/sites/imported"), dest);
    copy_dir(&repo().join("templates"), &dest.join("templates"));
    keys::write_people(dest);
    sign_entries(dest, &[]);
}

/// The fixture experiment's record. Its numbers are test data for the made-up node
/// `fixture-node`; the digest is computed so the record is current.
pub fn write_fixture_record(root: &Path) {
    let dir = root.join("measurements/fixture-sweep");
    let exp = glossary::measure::Experiment::load(&dir).expect("fixture experiment loads");
    let config = |label: &str, blocks: u32, occupancy: f64, ms: f64, gbps: f64| {
        serde_json::json!({
            "label": label, "kernel": "copy", "status": {"state": "passed"},
            "params": {"n": 1048576, "block": 256, "elements_per_thread": 1, "blocks": 0},
            "block_size": 256, "smem_reserved": 0,
            "grid_size": 1024, "registers": 16, "static_smem": 0, "local_bytes": 0,
            "blocks_per_sm": blocks, "warps_per_sm": blocks * 8, "occupancy": occupancy,
            "waves": 1.0,
            "timing": {"samples_ms": [ms], "median_ms": ms, "min_ms": ms, "max_ms": ms,
                       "rsd": 0.0, "converged": true},
            "quantities": {
                "gbps": {"value": gbps, "unit": "GB/s", "heading": "bandwidth", "decimals": 1, "source": "metric"},
                "loads_in_flight": {"value": blocks * 8, "unit": "", "decimals": 0, "source": "metric"}
            }
        })
    };
    let record = serde_json::json!({
        "schema": 2,
        "experiment": "fixture-sweep",
        "node": "fixture-node",
        "spec_digest": exp.digest,
        "tool_version": "test",
        "captured_at": "2026-11-01T12:00:00Z",
        "gpu": {"name": "Fixture GPU", "uuid": "GPU-fixture", "compute_capability": "0.0",
                "sm_count": 2, "driver_version": "test", "cuda_driver_api": "test",
                "nvrtc_version": "test"},
        "compile_options": ["--gpu-architecture=sm_00"],
        "problem": {"elements": 1024, "bytes_per_launch": 8192},
        "configs": [
            config("full", 8, 1.0, 0.010, 400.0),
            config("half", 4, 0.5, 0.012, 300.0),
            config("quarter", 2, 0.25, 0.020, 200.0),
        ],
    });
    let path = exp.record_path("fixture-node");
    std::fs::create_dir_all(path.parent().expect("records dir")).expect("mkdir records");
    std::fs::write(&path, serde_json::to_string_pretty(&record).expect("json"))
        .expect("write record");
    keys::sign_record(&path, "fixture-node");
}

/// Sign every entry (except `skip`, as `terms/slug`) over what it shows now, as
/// `author-a` and `reviewer-b` with their throwaway keys.
pub fn sign_entries(root: &Path, skip: &[&str]) {
    let project = Project::load(root).expect("fixture project loads");
    let time = chrono::DateTime::parse_from_rfc3339("2026-11-02T12:00:00Z")
        .expect("time")
        .to_utc();
    for entry in &project.content.entries {
        if skip.contains(&entry.id.to_string().as_str()) {
            continue;
        }
        keys::sign_as(root, &entry.id, Role::Author, "author-a", time);
        keys::sign_as(root, &entry.id, Role::Reviewer, "reviewer-b", time);
    }
}

pub fn glossary(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_glossary"))
        .args(args)
        .output()
        .expect("run glossary")
}

pub fn build(root: &Path, extra: &[&str]) -> Output {
    let root = root.to_str().expect("utf-8 temp path");
    let mut args = vec!["build", "--root", root];
    args.extend_from_slice(extra);
    glossary(&args)
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[allow(unused_imports)] // each test crate uses a different subset
pub use super::stderr;
