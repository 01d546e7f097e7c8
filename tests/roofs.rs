//! Roofs at `check`: a table citing a row its node's peaks make impossible is refused,
//! naming the row, its value, the roof and the peak's source, so lowering a peak in
//! glossary.toml under a recorded value is an error naming both. A role-named test node
//! with a throwaway key, built as a user builds.

mod support;
use support::fleet as fleet_fixture;

use std::path::Path;

use fleet_fixture::*;
use support::text;

const AT: &str = "2026-11-30T12:00:00Z";

/// The fleet fixture with day45-occupancy's bandwidth read against `dram`, a current
/// record from node-a, and node-a's DRAM peak set to `peak`.
fn site(peak: &str) -> tempfile::TempDir {
    site_with(peak, "[label, occupancy, gbps]", "")
}

fn site_with(peak: &str, columns: &str, claims: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fleet_project(root);
    copy_dir(&repo().join("templates"), &root.join("templates"));
    let exp = root.join("measurements/day45-occupancy/experiment.yaml");
    // The bandwidth metric reads the DRAM roof (the repository's experiment may already
    // say so).
    let yaml = std::fs::read_to_string(&exp).unwrap();
    if !yaml.contains("roof: dram") {
        let roofed = yaml.replace(
            "unit: GB/s, heading: bandwidth,",
            "unit: GB/s, heading: bandwidth, roof: dram,",
        );
        assert_ne!(yaml, roofed, "the fixture's bandwidth metric moved");
        std::fs::write(&exp, roofed).unwrap();
    }
    assert!(std::fs::read_to_string(&exp)
        .unwrap()
        .contains("roof: dram"));
    install_record(root, "day45-occupancy", "node-a", AT);
    set_peak(root, peak);
    let text = format!("---\ntitle: What is occupancy?\nname: occupancy\nsummary: Resident warps over the most an SM holds.\nmeasured:\n  - experiment: day45-occupancy\n    node: node-a\n    rows: [tlp1, tlp1-b1]\n    columns: {columns}\n    caption: Two rows.\n{claims}---\nBody.\n");
    let p = root.join("content/terms/occupancy.md");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
    dir
}

fn set_peak(root: &Path, peak: &str) {
    let path = root.join("glossary.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    let base = toml
        .split("\n[nodes.node-a.peaks]")
        .next()
        .unwrap()
        .to_string();
    std::fs::write(
        path,
        format!("{base}\n[nodes.node-a.peaks]\ndram = {{ rate = \"{peak}\", source = \"fixture datasheet\", checked = 2026-12-06 }}\n"),
    )
    .unwrap();
}

/// The recorded bandwidth of row `row` on node-a.
fn recorded(root: &Path, row: &str) -> f64 {
    let lib = glossary::measure::Library::load(&root.join("measurements")).unwrap();
    let rec = lib.record("day45-occupancy", "node-a").unwrap();
    rec.config(row).unwrap().quantities["gbps"].value.unwrap()
}

#[test]
fn check_refuses_a_table_whose_peaks_make_a_cited_row_impossible() {
    let s = site("4.8 TB/s");
    let root = s.path();
    let said = text(&glossary(root, &["check"]));
    assert!(!said.contains("above the dram roof"), "{said}");
    assert!(!said.contains("stale"), "{said}");

    // A peak lowered under what the record holds: the row is now impossible.
    let gbps = recorded(root, "tlp1");
    set_peak(root, &format!("{} GB/s", (gbps / 2.0).round()));
    let said = text(&glossary(root, &["check"]));
    for part in [
        "row `tlp1`",
        "gbps = ",
        "above the dram roof",
        "fixture datasheet",
        "glossary.toml [nodes.node-a.peaks] dram",
    ] {
        assert!(said.contains(part), "{part} in:\n{said}");
    }
    let out = glossary(root, &["build"]);
    assert!(
        !root.join("site/terms/occupancy/index.html").exists() || !out.status.success(),
        "an impossible row is never published"
    );
}

#[test]
fn a_table_shows_each_row_as_a_share_of_its_roof_and_says_of_what() {
    let s = site_with("4.8 TB/s", "[label, gbps, share(gbps)]", "");
    let root = s.path();
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html =
        std::fs::read_to_string(root.join("site-drafts/terms/occupancy/index.html")).unwrap();
    let share = recorded(root, "tlp1") / 4800.0 * 100.0;
    assert!(
        html.contains(&format!("{share:.1}%")),
        "{share:.1}% in {html}"
    );
    assert!(html.contains("of dram roof (%)"), "{html}");
    assert!(
        html.contains("the dram roof (DRAM bandwidth) is 4800 GB/s (source: fixture datasheet, checked 2026-12-06)"),
        "{html}"
    );
    // A share of a metric that names no roof is not a column.
    let s = site_with("4.8 TB/s", "[label, share(occupancy)]", "");
    let said = text(&glossary(s.path(), &["check"]));
    assert!(said.contains("share(occupancy)"), "{said}");
}

#[test]
fn share_and_bound_claims_are_checked_against_the_nodes_peaks() {
    let claims = "claims:\n  - says: \"the kernel is bound by DRAM\"\n    column: gbps\n    row: tlp1\n    bound: dram\n    above: 0.5\n";
    // Against a peak twice the recorded value the row is at 50%: not surely above 0.5.
    let s = site_with("4.8 TB/s", "[label, gbps]", claims);
    let root = s.path();
    let gbps = recorded(root, "tlp1");
    set_peak(root, &format!("{} GB/s", (gbps * 2.2).round()));
    let said = text(&glossary(root, &["check"]));
    assert!(
        said.contains("the kernel is bound by DRAM") && said.contains("of the dram roof"),
        "{said}"
    );
    // Against one a little above it, the row is at 90% of its only roof: bound by it.
    set_peak(root, &format!("{} GB/s", (gbps * 1.1).round()));
    let said = text(&glossary(root, &["check"]));
    assert!(!said.contains("the kernel is bound by DRAM"), "{said}");
    // `records history` judges it against the same peaks on every run (it once said such
    // a claim could not be checked there, having no peaks to read).
    let said = text(&glossary(root, &["records", "history", "day45-occupancy"]));
    let claim = said
        .split("\nclaim of ")
        .find(|b| b.contains("the kernel is bound by DRAM"))
        .unwrap_or_else(|| panic!("no block for the claim:\n{said}"));
    assert!(!claim.contains("cannot be checked"), "{claim}");
    assert!(claim.contains("holds by "), "{claim}");
}

#[test]
fn a_roofline_of_two_nodes_draws_each_nodes_roofs_and_points_in_its_colour() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fleet_project(root);
    copy_dir(&repo().join("templates"), &root.join("templates"));
    copy_dir(
        &repo().join("measurements/roofline"),
        &root.join("measurements/roofline"),
    );
    let _ = std::fs::remove_dir_all(root.join("measurements/roofline/records"));
    for node in ["node-a", "node-b"] {
        install_record(root, "roofline", node, AT);
    }
    let path = root.join("glossary.toml");
    let mut toml = std::fs::read_to_string(&path).unwrap();
    for (node, dram) in [("node-a", "4.8 TB/s"), ("node-b", "4.5 TB/s")] {
        toml.push_str(&format!(
            "\n[nodes.{node}.peaks]\ndram = {{ rate = \"{dram}\", source = \"fixture datasheet\", checked = 2026-12-06 }}\nfp32 = {{ fma_lanes_per_sm = 128, source = \"fixture whitepaper\", checked = 2026-12-06 }}\n"
        ));
    }
    std::fs::write(&path, toml).unwrap();
    let entry = "---\ntitle: What is the roofline model?\nname: roofline model\nsummary: A bound on throughput.\nmeasured:\n  - experiment: roofline\n    nodes: [node-a, node-b]\n    rows: [k1, k8, k512]\n    columns: [label, flop_per_byte, tflops]\n    chart: {x: flop_per_byte, y: tflops}\n---\nBody.\n";
    let p = root.join("content/terms/roofline.md");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, entry).unwrap();
    let out = glossary(root, &["build", "--drafts"]);
    assert!(out.status.success(), "{}", text(&out));
    let html = std::fs::read_to_string(root.join("site-drafts/terms/roofline/index.html")).unwrap();
    assert!(html.contains("roofline-chart"), "{html}");
    for class in [
        "roof-point roof-node-0",
        "roof-point roof-node-1",
        "roof-memory roof-node-1",
    ] {
        assert!(html.contains(class), "{class} in {html}");
    }
    // Each node's ridge: 66.9 TFLOP/s over its own DRAM bandwidth.
    assert!(
        html.contains("node-a ridge of fp32 and dram: 13.94 FLOP/B"),
        "{html}"
    );
    assert!(
        html.contains("node-b ridge of fp32 and dram: 14.87 FLOP/B"),
        "{html}"
    );
    assert!(html.contains("node-b k512: 128.00"), "{html}");
}
