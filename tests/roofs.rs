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
    let yaml = std::fs::read_to_string(&exp).unwrap();
    let roofed = yaml.replace(
        "unit: GB/s, heading: bandwidth,",
        "unit: GB/s, heading: bandwidth, roof: dram,",
    );
    assert_ne!(yaml, roofed, "the fixture's bandwidth metric moved");
    std::fs::write(&exp, roofed).unwrap();
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
}
