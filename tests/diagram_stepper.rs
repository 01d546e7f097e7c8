//! The `occupancy-stepper` diagram on a built page: every step drawn from the occupancy
//! model and the cited record, and the build errors a wrong preset or record gives.

mod support;

use glossary::content::Kind;
use glossary::occupancy::{compute, Arch, Launch};
use support::*;

fn build_ok(root: &std::path::Path, args: &[&str]) -> String {
    let o = run(root, args);
    assert!(
        o.status.success(),
        "{args:?} failed:\n{}{}",
        stdout(&o),
        stderr(&o)
    );
    // A drafts preview is written to site-drafts/.
    let dir = if args.contains(&"--drafts") {
        "site-drafts"
    } else {
        "site"
    };
    read(root, &format!("{dir}/terms/alpha/index.html"))
}

fn build_err(root: &std::path::Path) -> String {
    let o = run(root, &["build", "--drafts"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "build should fail:\n{}",
        stdout(&o)
    );
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// The `<li>` of step `n` (1-based), as a string.
fn step(page: &str, n: usize) -> &str {
    let start = page
        .find(&format!(r#"id="occupancy-stepper-step-{n}""#))
        .unwrap_or_else(|| panic!("step {n} missing in:\n{page}"));
    let end = page[start..].find("</li>").map(|e| start + e).unwrap();
    &page[start..end]
}

fn value<'a>(step: &'a str, term: &str) -> &'a str {
    let dt = format!("<dt>{term}</dt><dd>");
    let at = step
        .find(&dt)
        .unwrap_or_else(|| panic!("no `{term}` in:\n{step}"))
        + dt.len();
    &step[at..at + step[at..].find("</dd>").unwrap()]
}

#[test]
fn published_page_draws_every_step_with_model_and_record_numbers() {
    let site = valid_site();
    let root = site.path();
    sign_by_two(root, Kind::Term, "alpha");
    let page = build_ok(root, &["build"]);

    assert!(
        page.contains(r#"<figure class="stepper" id="occupancy-stepper" aria-label="Warp slots filling step by step." data-stepper>"#),
        "{page}"
    );
    assert!(page.contains("static/stepper.js"), "script not linked");
    assert!(page.contains("static/stepper.css"), "styles not linked");
    assert!(root.join("site/static/stepper.js").is_file());
    assert!(root.join("site/static/stepper.css").is_file());
    assert!(page.contains("<strong class=\"stepper-title\">Test dial</strong>"));

    // The fixture's record: `full` reserves nothing, `half` reserves 80 KiB per block.
    let (full, half) = (step(&page, 1), step(&page, 2));
    assert!(!page.contains(r#"id="occupancy-stepper-step-3""#));
    for (s, label, reserved, gbps) in [
        (full, "full", 0u64, "1200.0"),
        (half, "half", 80 * 1024, "800.0"),
    ] {
        let model = compute(
            Arch::Sm90,
            &Launch::new(512, 16).with_dynamic_shared_memory(reserved),
            None,
        )
        .unwrap();
        assert!(s.contains(&format!("<code>{label}</code>")), "{s}");
        assert_eq!(value(s, "Resident blocks"), model.blocks_per_sm.to_string());
        assert_eq!(
            value(s, "Resident warps"),
            format!("{} of 64", model.warps_per_sm)
        );
        assert_eq!(
            value(s, "Theoretical occupancy"),
            format!("{:.1}%", model.occupancy * 100.0)
        );
        assert_eq!(value(s, "Binding resource"), model.binding.label());
        assert_eq!(value(s, "Measured bandwidth"), format!("{gbps} GB/s"));
        // One rect per warp slot; the resident warps are filled, the rest outlined.
        assert_eq!(s.matches(r#"<rect class="slot "#).count(), 64);
        assert_eq!(
            s.matches(r#"<rect class="slot empty""#).count() as u32,
            64 - model.warps_per_sm
        );
    }
    assert_eq!(value(full, "Resident blocks"), "4");
    assert_eq!(value(half, "Resident blocks"), "2");
    assert_eq!(value(half, "Binding resource"), "shared memory");
    assert_eq!(value(half, "Shared memory reserved per block"), "80 KiB");
    assert!(
        half.contains(r#"data-status="Step 2 of 2: half."#),
        "{half}"
    );
}

#[test]
fn a_second_preset_is_a_new_file_not_new_code() {
    let site = valid_site();
    let root = site.path();
    write(
        root,
        "templates/diagrams/occupancy-stepper/half-first.yaml",
        "title: Backwards\ndescription: From half to full.\nsteps: [half, full]\n",
    );
    let alpha = read(root, "content/terms/alpha.md")
        .replace("preset: residency-dials", "preset: half-first");
    write(root, "content/terms/alpha.md", &alpha);
    let page = build_ok(root, &["build", "--drafts"]);
    assert!(page.contains("Backwards"));
    assert_eq!(value(step(&page, 1), "Resident blocks"), "2");
    assert_eq!(value(step(&page, 2), "Resident blocks"), "4");
}

#[test]
fn model_disagreeing_with_the_driver_is_a_build_error_naming_entry_and_step() {
    let site = valid_site();
    let root = site.path();
    // The driver's 2 blocks for `half` with no reservation: the model says 4.
    write_record(root, |r| r.configs[1].smem_reserved = 0);
    let err = build_err(root);
    assert!(err.contains("content/terms/alpha.md:"), "{err}");
    assert!(err.contains("diagram step `half`"), "{err}");
    assert!(err.contains("model gives 4 resident blocks"), "{err}");
    assert!(err.contains("driver recorded 2"), "{err}");
}

#[test]
fn a_step_the_record_lacks_is_a_build_error() {
    let site = valid_site();
    let root = site.path();
    write(
        root,
        STEPPER_PRESET_PATH,
        "title: T\ndescription: D\nsteps: [full, quarter]\n",
    );
    let err = build_err(root);
    assert!(err.contains("content/terms/alpha.md:"), "{err}");
    assert!(err.contains("has no configuration `quarter`"), "{err}");
}

#[test]
fn a_bad_preset_file_names_the_preset_file_and_line() {
    let site = valid_site();
    let root = site.path();
    write(
        root,
        STEPPER_PRESET_PATH,
        "title: T\ndescription: D\nsteps: [full]\ncolour: red\n",
    );
    let err = build_err(root);
    assert!(err.contains("content/terms/alpha.md:"), "{err}");
    assert!(err.contains("residency-dials.yaml:4"), "{err}");
    assert!(err.contains("colour"), "{err}");
}

#[test]
fn stale_record_draws_no_numbers_and_says_why() {
    let site = valid_site();
    let root = site.path();
    // Changing the kernel makes the record stale: the entry is refused, its draft shows
    // the figure with a note and no step.
    write(
        root,
        &format!("measurements/{EXPERIMENT}/kernel.cu"),
        "extern \"C\" __global__ void axpy() {}\n",
    );
    let page = build_ok(root, &["build", "--drafts"]);
    assert!(page.contains(r#"aria-label="Warp slots filling step by step.""#));
    assert!(
        page.contains("No current record of <code>axpy-test</code>"),
        "{page}"
    );
    assert!(page.contains("record is stale"), "{page}");
    assert!(!page.contains("stepper-step"), "{page}");
    assert!(!page.contains("<svg"), "{page}");
}

/// Writes the repository's own site with a day 45 record, for the browser test
/// (`tests/browser/tests/stepper.test.mjs`), into `$STEPPER_SITE_OUT`. A committed H200
/// record is used as it is; without one, a fixture record stands in, its residency taken
/// from the model and its bandwidths plainly fixture values (never written to the repo).
#[test]
#[ignore = "a fixture writer for the stepper browser test, not a test"]
fn write_stepper_browser_site() {
    let Ok(out) = std::env::var("STEPPER_SITE_OUT") else {
        panic!("set STEPPER_SITE_OUT to the (empty) folder to write the site into");
    };
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out).unwrap();
    std::fs::copy(repo().join("glossary.toml"), out.join("glossary.toml")).unwrap();
    for dir in ["content", "templates"] {
        copy_dir(&repo().join(dir), &out.join(dir));
    }
    let measurements = repo().join("measurements");
    if measurements
        .join("day45-occupancy/records/h200.json")
        .is_file()
    {
        copy_dir(&measurements, &out.join("measurements"));
    } else {
        write_day45_fixture(&out);
    }
}

fn write_day45_fixture(root: &std::path::Path) {
    use chrono::{TimeZone, Utc};
    use glossary::measure::record::*;
    use glossary::measure::Experiment;

    let dir = root.join("measurements/day45-occupancy");
    write(
        &dir,
        "experiment.yaml",
        "title: Day 45 occupancy (browser-test fixture)\nkernels: [axpy.cu]\ncompile_options: [\"--std=c++17\"]\nparams: {n: 1048576, block: 512, elements_per_thread: 1, blocks: 0}\nconfigs:\n  - {label: tlp1}\nbuffers:\n  x: {type: f32, length: n, fill: {uniform: [-1, 1]}}\n  out: {type: f32, length: n, output: true, tolerance: {ulps: 2}}\nlaunches:\n  - kernel: axpy\n    args: [x, out, {u64: n}]\n    grid: ceil_div(n, block)\n    block: block\n    target_blocks_per_sm: blocks\nreference: {config: tlp1}\nmetrics:\n  gbps: {value: 12 * n / (median_ms * 1e6), unit: GB/s, heading: bandwidth, decimals: 1}\n  loads_in_flight: {value: warps_per_sm * 2 * elements_per_thread, heading: loads in flight / SM, decimals: 0}\n",
    );
    write(
        &dir,
        "axpy.cu",
        "extern \"C\" __global__ void axpy(float a, const float* x, float* y) {}\n",
    );
    let exp = Experiment::load(&dir).unwrap();
    let labels = [
        "tlp1", "tlp1-b3", "tlp1-b2", "tlp1-b1", "ilp2-b2", "ilp2-b1", "ilp4", "ilp4-b2",
        "ilp4-b1", "ilp8-b1",
    ];
    let configs = labels
        .iter()
        .map(|label| {
            let (kind, blocks) = label.split_once("-b").unwrap_or((label, "4"));
            let blocks: u32 = blocks.parse().unwrap();
            let per_thread: u32 = kind
                .trim_start_matches(char::is_alphabetic)
                .parse()
                .unwrap();
            // The smallest whole-KiB reservation that leaves `blocks` resident.
            let reserved = (0..=226u32)
                .map(|k| k * 1024)
                .find(|&r| {
                    compute(
                        Arch::Sm90,
                        &Launch::new(512, 16).with_dynamic_shared_memory(r.into()),
                        None,
                    )
                    .unwrap()
                    .blocks_per_sm
                        == blocks
                })
                .unwrap();
            let warps = blocks * 16;
            let loads = warps * 32 * per_thread;
            // Fixture bandwidth: grows with loads in flight, so steps differ visibly.
            let gbps = 4000.0 * (f64::from(loads) / 2048.0).min(1.0) + f64::from(per_thread);
            let mut c = ConfigRecord {
                grid_size: 132 * 4,
                waves: 4.0 / f64::from(blocks),
                ..fixture_config(label, blocks, reserved, 1.0, gbps)
            };
            c.params
                .insert("elements_per_thread".into(), i64::from(per_thread));
            c.quantities.insert(
                "loads_in_flight".into(),
                Quantity::metric(f64::from(loads), "", Some("loads in flight / SM"), 0),
            );
            c
        })
        .collect();
    let record = Record {
        tool_version: "browser-test fixture, not a measurement".into(),
        captured_at: Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap(),
        compile_options: vec!["--gpu-architecture=sm_90".into()],
        ..fixture_record(&exp, "h200", "NVIDIA H200", 132, configs)
    };
    record.write_atomic(&exp.record_path("h200")).unwrap();
}
