//! `glossary verify` and the records it leaves, run as a user runs them: the real binary
//! on a fixture project in a temp dir. Tests that need a GPU skip with a printed reason
//! where there is none; tests of the no-driver path skip where there is one.

mod support;

use support::{copy_dir, repo, run as glossary, text};

/// A project with the repository's config, templates and Day 45 experiment (its committed
/// H100 record included), and one term that cites that record.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::copy(repo().join("glossary.toml"), root.join("glossary.toml")).unwrap();
    copy_dir(&repo().join("templates"), &root.join("templates"));
    copy_dir(
        &repo().join("measurements/day45-occupancy"),
        &root.join("measurements/day45-occupancy"),
    );
    std::fs::create_dir_all(root.join("content/terms")).unwrap();
    std::fs::write(
        root.join("content/terms/occupancy.md"),
        "---\ntitle: What is occupancy?\nsummary: Resident warps over the most an SM holds.\nmeasured:\n  - experiment: day45-occupancy\n    node: h100\n    rows: [tlp1, ilp4-b1, tlp1-b1]\n    columns: [label, occupancy, loads_in_flight, median_ms, gbps]\n    caption: Three Day 45 rows.\n---\nBody.\n",
    )
    .unwrap();
    dir
}

/// [`fixture`] with the copied H100 record signed by a throwaway key that the copied
/// glossary.toml names as h100's: for tests of what a build does with a record it
/// accepts, whatever the signing state of the committed one. Not the node's key.
fn fixture_with_accepted_record() -> tempfile::TempDir {
    let dir = fixture();
    let root = dir.path();
    let key =
        glossary::trust::Signer::ed25519_from_seed(&[0x5e; 32], "test key, not h100's").unwrap();
    let config = std::fs::read_to_string(root.join("glossary.toml")).unwrap();
    let real = config
        .lines()
        .find(|l| l.starts_with("public_key = ") && l.contains("node h100"))
        .expect("h100's public_key line")
        .to_string();
    let test_line = format!(
        "public_key = \"{}\"",
        key.public_key().to_openssh().unwrap()
    );
    std::fs::write(
        root.join("glossary.toml"),
        config.replace(&real, &test_line),
    )
    .unwrap();
    let record = root.join("measurements/day45-occupancy/records/h100.json");
    let bytes = std::fs::read(&record).unwrap();
    glossary::trust::node::write_signed(&record, &bytes, &key).unwrap();
    dir
}

fn driver_present() -> bool {
    glossary::measure::run::gpu::driver_present()
}

#[test]
fn verify_without_a_driver_says_so_and_does_not_panic() {
    if driver_present() {
        support::skip("a CUDA driver is present on this machine");
        return;
    }
    let site = fixture();
    let out = glossary(site.path(), &["verify", "--node", "h200"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("no CUDA driver found (libcuda is not loadable): verify must run on the verification node"),
        "{said}"
    );
    assert!(!said.contains("panicked"), "{said}");
}

#[test]
fn verify_refuses_a_node_that_is_not_in_the_config() {
    let site = fixture();
    let out = glossary(site.path(), &["verify", "--node", "a100"]);
    let said = text(&out);
    assert!(!out.status.success());
    assert!(
        said.contains("unknown node `a100` (glossary.toml defines: h100, h200, t4)"),
        "{said}"
    );
}

#[test]
fn dry_run_without_a_driver_validates_the_experiments() {
    if driver_present() {
        support::skip("a CUDA driver is present on this machine");
        return;
    }
    let site = fixture();
    let out = glossary(
        site.path(),
        &["verify", "--node", "h200", "--dry-run", "--json"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let day45 = &report["experiments"][0];
    assert_eq!(day45[0], "day45-occupancy");
    assert_eq!(day45[1]["outcome"], "planned");
    assert_eq!(day45[1]["configs"].as_array().unwrap().len(), 16);
}

#[test]
fn a_broken_experiment_file_is_reported_with_file_and_line() {
    let site = fixture();
    let exp = site
        .path()
        .join("measurements/day45-occupancy/experiment.yaml");
    let text_before = std::fs::read_to_string(&exp).unwrap();
    let broken = text_before.replacen(
        "grid: ceil_div(n, block * elements_per_thread)",
        "grid: ceil_div(n, block * elements_per_threads)",
        1,
    );
    std::fs::write(&exp, &broken).unwrap();
    let (line, column) = broken
        .lines()
        .enumerate()
        .find_map(|(i, l)| {
            Some((
                i + 1,
                l.find("ceil_div(n, block * elements_per_threads)")? + 1,
            ))
        })
        .unwrap();
    let out = glossary(site.path(), &["verify", "--node", "h200", "--dry-run"]);
    let said = text(&out);
    assert!(!out.status.success());
    assert!(
        said.contains(&format!(
            "experiment.yaml:{line}:{column}: config `tlp1` (and 5 more): kernel `axpy_ept1`: grid: unknown name `elements_per_threads` in `ceil_div(n, block * elements_per_threads)`"
        )),
        "{said}"
    );
}

#[test]
fn the_committed_record_is_current_and_editing_the_kernel_makes_it_stale() {
    let site = fixture();
    let out = glossary(site.path(), &["check"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("stale"), "{said}");
    // A record counts only with the node's signature beside it, made by `verify` on the
    // node with the key whose public half is in glossary.toml.
    let sig = repo().join("measurements/day45-occupancy/records/h100.json.sig");
    if !sig.is_file() {
        assert!(
            said.contains(
                "measurement day45-occupancy/h100: record not signed by node h100: there is no"
            ),
            "{said}"
        );
        eprintln!("the committed H100 record is not signed yet: the staleness check below needs a signed record");
        return;
    }
    assert!(!said.contains("not signed"), "{said}");

    let kernel = site.path().join("measurements/day45-occupancy/axpy.cu");
    let mut src = std::fs::read_to_string(&kernel).unwrap();
    src.push_str("// an edit after the measurement\n");
    std::fs::write(&kernel, src).unwrap();
    let out = glossary(
        site.path(),
        &[
            "build",
            "--out",
            &site.path().join("preview").to_string_lossy(),
        ],
    );
    let said = text(&out);
    assert!(
        said.contains("refused terms/occupancy")
            && said.contains("measurement day45-occupancy/h100: record is stale: the experiment changed since it was measured"),
        "{said}"
    );
}

#[test]
fn the_committed_h200_records_say_where_they_came_from() {
    use glossary::measure::record::{ConfigStatus, Record};
    let r = Record::load(&repo().join("measurements/day45-occupancy/records/h200.json")).unwrap();
    assert_eq!(
        (r.node.as_str(), r.gpu.name.as_str()),
        ("h200", "NVIDIA H200")
    );
    assert_eq!(r.gpu.compute_capability, "9.0");
    assert!(r
        .compile_options
        .iter()
        .any(|o| o == "--gpu-architecture=sm_90"));
    assert_eq!(r.configs.len(), 10);
    for c in &r.configs {
        assert_eq!(c.status, ConfigStatus::Passed, "{}", c.label);
        let t = c.timing.as_ref().unwrap();
        assert!(t.samples_ms.len() >= 30, "{}", c.label);
        // The loads-in-flight metric is resident warps times loads before first use.
        let loads = c.number("loads_in_flight").unwrap() as u32;
        assert_eq!(loads % c.warps_per_sm, 0, "{}", c.label);
        assert!(c.number("gbps").unwrap() > 0.0, "{}", c.label);
    }
    assert_eq!(
        r.device["l2_bytes"], 62914560,
        "the record keeps the L2 size"
    );
    let sweep =
        Record::load(&repo().join("measurements/occupancy-sweep/records/h200.json")).unwrap();
    assert_eq!(sweep.configs.len(), 13 * 11 * 9);
    assert!(
        sweep.extra["device_limits"]["shared_memory_per_sm"]
            .as_u64()
            .unwrap()
            > 0
    );
}

/// On the verification node: the whole Day 45 verify, dry run (compile and dial).
#[test]
fn gpu_dry_run_resolves_every_day45_config() {
    if !driver_present() {
        support::skip("no CUDA driver on this machine");
        return;
    }
    let site = fixture();
    let out = glossary(
        site.path(),
        &["verify", "--node", "h200", "--dry-run", "--json"],
    );
    let said = text(&out);
    if said.contains("this GPU is") {
        support::skip(&format!("this GPU is not the h200 node: {said}"));
        return;
    }
    assert!(out.status.success(), "{said}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for c in report["experiments"][0][1]["configs"].as_array().unwrap() {
        assert!(c["blocks_per_sm"].as_u64().unwrap() >= 1, "{c}");
    }
}

#[test]
fn a_new_experiment_is_accepted_by_a_dry_run() {
    let site = fixture();
    let out = glossary(site.path(), &["new", "experiment", "scale"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = glossary(
        site.path(),
        &[
            "verify",
            "--node",
            "h200",
            "--dry-run",
            "--only",
            "scale",
            "--json",
        ],
    );
    let said = text(&out);
    if said.contains("this GPU is") {
        support::skip(&format!("this GPU is not the h200 node: {said}"));
        return;
    }
    assert!(out.status.success(), "{said}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let labels: Vec<&str> = report["experiments"][0][1]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["block128", "block256"]);
    let again = glossary(site.path(), &["new", "experiment", "scale"]);
    assert!(!again.status.success() && text(&again).contains("already exists"));
}

#[test]
fn columns_read_any_recorded_quantity_with_its_unit_and_unknown_ones_are_errors() {
    let site = fixture_with_accepted_record();
    let term = site.path().join("content/terms/occupancy.md");
    std::fs::write(
        &term,
        "---\ntitle: What is occupancy?\nsummary: Resident warps over the most an SM holds.\nmeasured:\n  - experiment: day45-occupancy\n    node: h100\n    rows: [tlp1, ilp4]\n    columns: [label, elements_per_thread, dram__bytes_read.sum, loads_in_flight, gbps]\nclaims:\n  - says: ilp4 moves more bytes per second\n    column: gbps\n    ratio: [ilp4, tlp1]\n    above: 1.1\n---\nBody {{ value(row=\"tlp1\", column=\"dram__bytes_read.sum\") }}.\n",
    )
    .unwrap();
    let out = glossary(
        site.path(),
        &[
            "build",
            "--drafts",
            "--out",
            &site.path().join("preview").to_string_lossy(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let page =
        std::fs::read_to_string(site.path().join("preview/terms/occupancy/index.html")).unwrap();
    for heading in [
        "elements per thread",
        "dram__bytes_read.sum (byte)",
        "loads in flight / SM",
        "bandwidth (GB/s)",
    ] {
        assert!(
            page.contains(&format!(">{heading}</th>")),
            "{heading}: {page}"
        );
    }

    let text_before = std::fs::read_to_string(&term).unwrap();
    std::fs::write(
        &term,
        text_before
            .replace(
                "loads_in_flight, gbps]",
                "loads_in_flight, gbps, l2_hit_rate]",
            )
            .replace("    column: gbps\n", "    column: bandwidth\n"),
    )
    .unwrap();
    let out = glossary(site.path(), &["check"]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("occupancy.md:8:1: unknown column `l2_hit_rate` in measured table `day45-occupancy`: neither the experiment nor its h100 record has it"), "{said}");
    assert!(said.contains("occupancy.md:11:1: claim \"ilp4 moves more bytes per second\": unknown column `bandwidth`"), "{said}");
}

/// [`fixture`] with the repository's 1,287-config occupancy sweep beside Day 45.
fn fixture_with_sweep() -> tempfile::TempDir {
    let dir = fixture();
    copy_dir(
        &repo().join("measurements/occupancy-sweep"),
        &dir.path().join("measurements/occupancy-sweep"),
    );
    dir
}

#[test]
fn a_dry_run_summarises_each_experiment_in_two_lines_and_says_a_shared_note_once() {
    if driver_present() {
        support::skip("a CUDA driver is present on this machine");
        return;
    }
    let site = fixture_with_sweep();
    let out = glossary(site.path(), &["verify", "--node", "h200", "--dry-run"]);
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", text(&out));
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 5, "{said}");
    assert!(
        lines[0].starts_with("day45-occupancy: dry run, 16 configs"),
        "{said}"
    );
    assert_eq!(
        lines[2],
        "occupancy-sweep: dry run, 1287 configs (axes max_registers 13 x block 11 x smem 9)"
    );
    assert!(
        lines[3].ends_with("(1287 labels)") && lines[3].len() < 120,
        "{said}"
    );
    assert!(
        lines[4].starts_with("note: no CUDA driver on this machine"),
        "{said}"
    );
    assert_eq!(said.matches("no CUDA driver").count(), 1, "{said}");
}

#[test]
fn verify_only_takes_several_experiments_repeated_or_comma_separated() {
    if driver_present() {
        support::skip("a CUDA driver is present on this machine");
        return;
    }
    let site = fixture_with_sweep();
    let out = glossary(site.path(), &["new", "experiment", "scale"]);
    assert!(out.status.success(), "{}", text(&out));
    let ids = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["verify", "--node", "h200", "--dry-run", "--json"];
        all.extend(args);
        let out = glossary(site.path(), &all);
        assert!(out.status.success(), "{}", text(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["experiments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[0].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(&["--only", "scale", "--only", "day45-occupancy"]),
        ["day45-occupancy", "scale"]
    );
    assert_eq!(
        ids(&["--only", "scale,occupancy-sweep"]),
        ["occupancy-sweep", "scale"]
    );
    assert_eq!(ids(&[]).len(), 3);
    // Every unknown id is named, at once.
    let out = glossary(
        site.path(),
        &[
            "verify",
            "--node",
            "h200",
            "--dry-run",
            "--only",
            "nope,scale",
            "--only",
            "gone",
        ],
    );
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("no experiment `nope`") && said.contains("no experiment `gone`"),
        "{said}"
    );
}
