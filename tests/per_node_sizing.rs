//! One experiment sized per node: its problem size is an expression over the device's
//! memory, L2 size and SM count (read from the GPU on the node and kept in the record; from
//! the node's profile for a dry run without one), so the same file fits the 16 GB T4 and
//! the 141 GB H200 of glossary.toml. A fixed size that only the H200 holds is refused on
//! the T4 before anything runs, naming the file.

use std::path::{Path, PathBuf};
use std::process::Command;

use glossary::config::Config;
use glossary::measure::spec::plan::device_from_profile;
use glossary::measure::Experiment;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn glossary(root: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_glossary"))
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// A project with the repository's node profiles and the scaffold experiment, its size
/// set by `n`.
fn project(n: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::copy(repo().join("glossary.toml"), root.join("glossary.toml")).unwrap();
    let (ok, said) = glossary(root, &["new", "experiment", "sized"]);
    assert!(ok, "{said}");
    let path = root.join("measurements/sized/experiment.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let old = "  n: 1 << 24";
    assert!(text.contains(old), "the scaffold changed:\n{text}");
    std::fs::write(&path, text.replacen(old, &format!("  n: {n}"), 1)).unwrap();
    dir
}

fn planned_n(root: &Path, node: &str) -> Result<i64, String> {
    let config = Config::load(root).unwrap();
    let exp = Experiment::load(&root.join("measurements/sized")).unwrap();
    let plans = exp
        .plan(&device_from_profile(config.node(node).unwrap()))
        .map_err(|e| e.to_string())?;
    Ok(plans[0].params["n"])
}

#[test]
fn a_size_over_device_memory_and_l2_fits_both_the_t4_and_the_h200() {
    // Two f32 buffers filling at most a quarter of memory, and at least 8x the L2 so the
    // run streams from DRAM on either GPU.
    let site = project("max(min(mem_bytes / 32, 1 << 32), 8 * l2_bytes / 4)");
    let root = site.path();
    let config = Config::load(root).unwrap();
    let mut seen = Vec::new();
    for node in ["t4", "h200"] {
        let profile = config.node(node).unwrap();
        let n = planned_n(root, node).unwrap();
        let mem = profile.mem_bytes.unwrap() as i64;
        let l2 = profile.l2_bytes.unwrap() as i64;
        assert_eq!(n, (mem / 32).min(1 << 32).max(8 * l2 / 4), "{node}");
        assert!(
            2 * 4 * n <= mem / 4,
            "{node}: {n} elements do not fit a quarter of memory"
        );
        assert!(4 * n >= 8 * l2, "{node}");
        let (ok, said) = glossary(
            root,
            &["verify", "--node", node, "--only", "sized", "--dry-run"],
        );
        assert!(ok, "{node}: {said}");
        seen.push(n);
    }
    assert!(
        seen[1] > 8 * seen[0],
        "the H200 run is not sized for its memory: {seen:?}"
    );
}

#[test]
fn a_fixed_size_only_the_h200_holds_is_refused_on_the_t4_naming_the_file() {
    // 2^32 floats per buffer: 32 GiB for two, more than a T4 has.
    let site = project("1 << 32");
    let root = site.path();
    assert!(planned_n(root, "h200").is_ok());
    let why = planned_n(root, "t4").unwrap_err();
    assert!(
        why.contains("more than the GPU's 16106127360 bytes"),
        "{why}"
    );
    let (ok, said) = glossary(
        root,
        &["verify", "--node", "t4", "--only", "sized", "--dry-run"],
    );
    assert!(!ok, "{said}");
    assert!(
        said.contains("measurements/sized/experiment.yaml:"),
        "{said}"
    );
    assert!(
        said.contains("the buffers need 34359738368 bytes (32.00 GiB)"),
        "{said}"
    );
}
