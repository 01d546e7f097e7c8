//! Test sites on disk: a small valid glossary built from parts, and helpers to run the
//! real binary on it and read what it wrote.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chrono::{NaiveDate, TimeZone, Utc};
use glossary::content::{EntryId, Kind};
use glossary::measure::record::{
    ConfigRecord, ConfigStatus, GpuInfo, Quantity, Record, Timing, RECORD_SCHEMA,
};
use glossary::measure::Experiment;
use glossary::review::Role;

mod files;
pub mod keys;
#[allow(unused_imports)] // each test crate uses a different subset
pub use files::{copy_dir, snapshot};

// The one fixture helper of the integration tests: this module builds sites from parts;
// `site` is a builder for review and check scenarios, `signed` the repository's small site
// signed by role-named fixture people, `fleet` a project measured by fixture nodes.
pub mod fleet;
pub mod signed;
pub mod site;
pub mod skip;
#[allow(unused_imports)]
pub use skip::skip;

pub const NODE: &str = "testnode";
pub const EXPERIMENT: &str = "axpy-test";

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_glossary"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn run(root: &Path, args: &[&str]) -> Output {
    bin()
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .expect("run glossary")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// What a run printed, stdout then stderr.
pub fn text(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

pub fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn config() -> String {
    format!(
        r#"title = "Test Glossary"
base_url = "https://glossary.test"
description = "A test site."

[nodes.{NODE}]
gpu = "Test GPU"
compute_capability = "9.0"
arch = "sm_90"
sm_count = 4
{}"#,
        keys::node_public_key_line(NODE)
    )
}

/// A site with the repo's templates and a config, but no content.
pub fn empty_site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "glossary.toml", &config());
    keys::write_people(dir.path());
    copy_dir(&repo().join("templates"), &dir.path().join("templates"));
    dir
}

pub fn term(title: &str, summary: &str, extra: &str, body: &str) -> String {
    format!("---\ntitle: {title}\nsummary: {summary}\n{extra}---\n{body}\n")
}

/// Experiment files for a tiny test experiment, and a record of it for `NODE` whose digest
/// matches. The numbers are fixture values for rendering tests, not measurements.
pub fn add_experiment_with_record(root: &Path) {
    write(
        root,
        &format!("measurements/{EXPERIMENT}/experiment.yaml"),
        "title: Test axpy\nkernels: [kernel.cu]\ncompile_options: [\"--std=c++17\"]\nparams: {n: 1048576, block: 512, elements_per_thread: 1, blocks: 0}\nconfigs:\n  - {label: full}\n  - {label: half, blocks: 2}\nbuffers:\n  x: {type: f32, length: n, fill: {uniform: [-1, 1]}}\n  out: {type: f32, length: n, output: true, tolerance: {ulps: 2}}\nlaunches:\n  - kernel: axpy\n    args: [x, out, {u64: n}]\n    grid: ceil_div(n, block)\n    block: block\n    target_blocks_per_sm: blocks\nreference: {config: full}\nmetrics:\n  gbps: {value: 12 * n / (median_ms * 1e6), unit: GB/s, heading: bandwidth, decimals: 1}\n  loads_in_flight: {value: warps_per_sm * 2 * elements_per_thread, heading: loads in flight / SM, decimals: 0}\n",
    );
    write(
        root,
        &format!("measurements/{EXPERIMENT}/kernel.cu"),
        "extern \"C\" __global__ void axpy(const float* x, float* y, unsigned long long n) { y[threadIdx.x] = x[threadIdx.x]; }\n",
    );
    write_record(root, |_| {});
}

/// A passed config of a 512-thread, 16-register axpy kernel with `blocks` resident per SM
/// and `reserved` bytes of unused dynamic shared memory, timed at `ms` and `gbps`. Callers
/// adjust other fields with struct update syntax. Fixture values, not measurements.
pub fn fixture_config(label: &str, blocks: u32, reserved: u32, ms: f64, gbps: f64) -> ConfigRecord {
    ConfigRecord {
        label: label.into(),
        kernel: "axpy".into(),
        status: ConfigStatus::Passed,
        params: [
            ("n".to_string(), 1 << 20),
            ("block".to_string(), 512),
            ("elements_per_thread".to_string(), 1),
            ("blocks".to_string(), i64::from(blocks)),
        ]
        .into(),
        block_size: 512,
        block: [512, 1, 1],
        grid: [1024, 1, 1],
        smem_reserved: reserved,
        grid_size: 1024,
        registers: 16,
        static_smem: 0,
        local_bytes: 0,
        blocks_per_sm: blocks,
        warps_per_sm: blocks * 16,
        occupancy: f64::from(blocks) * 16.0 / 64.0,
        waves: 1024.0 / (f64::from(blocks) * 4.0),
        achieved_occupancy: None,
        timing: Some(Timing {
            samples_ms: vec![ms; 10],
            median_ms: ms,
            min_ms: ms,
            max_ms: ms,
            rsd: 0.001,
            sm_clock_mhz: None,
            throttled_samples: Some(0),
            unobserved_samples: 0,
            converged: true,
            host_median_ms: None,
            interval: glossary::measure::run::stats::median_interval(&[ms; 10]),
        }),
        quantities: [
            (
                "gbps".to_string(),
                Quantity::metric(gbps, "GB/s", Some("bandwidth"), 1),
            ),
            (
                "loads_in_flight".to_string(),
                Quantity::metric(f64::from(blocks * 32), "", Some("loads in flight / SM"), 0),
            ),
        ]
        .into(),
    }
}

/// A record of `exp` on `node` (a GPU named `gpu` with `sm_count` SMs) that is current for
/// the experiment as it is on disk. Callers adjust other fields with struct update syntax.
pub fn fixture_record(
    exp: &Experiment,
    node: &str,
    gpu: &str,
    sm_count: u32,
    configs: Vec<ConfigRecord>,
) -> Record {
    Record {
        schema: RECORD_SCHEMA,
        experiment: exp.id.clone(),
        node: node.into(),
        spec_digest: exp.digest.clone(),
        tool_version: "test fixture, not a measurement".into(),
        captured_at: Utc.with_ymd_and_hms(2026, 11, 2, 12, 0, 0).unwrap(),
        gpu: GpuInfo {
            name: gpu.into(),
            uuid: "GPU-test".into(),
            compute_capability: "9.0".into(),
            sm_count,
            driver_version: "580.0".into(),
            cuda_driver_api: "13.0".into(),
            nvrtc_version: "13.0".into(),
            l2_bytes: None,
        },
        compile_options: vec!["--std=c++17".into(), "--gpu-architecture=sm_90".into()],
        device: [("l2_bytes".to_string(), 62914560)].into(),
        partial: false,
        configs,
        extra: serde_json::Value::Null,
    }
}

/// (Re)write the test record, letting the caller adjust it first.
pub fn write_record(root: &Path, adjust: impl FnOnce(&mut Record)) {
    let exp = Experiment::load(&root.join("measurements").join(EXPERIMENT)).unwrap();
    // `reserved` is the unused dynamic shared memory that sets `blocks`: the diagram
    // checks the occupancy model against this driver count, so the two must agree.
    let configs = vec![
        fixture_config("full", 4, 0, 1.0, 1200.0),
        // 80 KiB + the driver's 1 KiB per block: two fit in sm_90's 228 KiB.
        fixture_config("half", 2, 80 * 1024, 1.5, 800.0),
    ];
    let mut record = Record {
        tool_version: "test".into(),
        ..fixture_record(&exp, NODE, "Test GPU", 4, configs)
    };
    adjust(&mut record);
    record.write_atomic(&exp.record_path(NODE)).unwrap();
    keys::sign_record(&exp.record_path(NODE), NODE);
}

/// The test site's own `residency-dials` preset: the repository's names the day 45
/// labels, and the test record has `full` and `half`.
pub const STEPPER_PRESET_PATH: &str = "templates/diagrams/occupancy-stepper/residency-dials.yaml";
pub const STEPPER_PRESET: &str =
    "title: Test dial\ndescription: Half the blocks leave.\nsteps: [full, half]\n";

/// The valid test site: four terms, a lesson and a guide; nothing signed yet.
pub fn valid_site() -> tempfile::TempDir {
    let dir = empty_site();
    let root = dir.path();
    add_experiment_with_record(root);
    write(root, STEPPER_PRESET_PATH, STEPPER_PRESET);
    let measured = format!(
        "measured:\n  - experiment: {EXPERIMENT}\n    node: {NODE}\n    rows: [full, half]\n    columns: [label, occupancy, median_ms, gbps]\n    caption: Two test rows.\n"
    );
    let diagram = format!(
        "diagram:\n  kind: occupancy-stepper\n  preset: residency-dials\n  experiment: {EXPERIMENT}\n  node: {NODE}\n  alt: \"Warp slots filling step by step.\"\n"
    );
    let sources = "sources:\n  - title: CUDA Programming Guide\n    url: https://docs.nvidia.com/cuda/\n    checked: 2026-11-01\n";
    write(
        root,
        "content/terms/alpha.md",
        &term(
            "What is alpha?",
            "Alpha is the first test term.",
            &format!("name: alpha\nrelated: [beta, gamma]\n{sources}{measured}{diagram}"),
            "Alpha runs at {{ value(row=\"full\", column=\"gbps\") }} GB/s, {{ ratio(column=\"gbps\", of=\"half\", to=\"full\") }} of which half keeps.\n\nSee [beta](../beta/) and [gamma](../gamma/).\n\n## Details\n\nMore.",
        ),
    );
    for (slug, related) in [("beta", "alpha"), ("gamma", "alpha"), ("delta", "alpha")] {
        write(
            root,
            &format!("content/terms/{slug}.md"),
            &term(
                &format!("What is {slug}?"),
                &format!("{slug} is a test term."),
                &format!("name: {slug}\nrelated: [{related}]\n{sources}"),
                &format!("Body of {slug}, which mentions [alpha](../alpha/)."),
            ),
        );
    }
    write(
        root,
        "content/lessons/day-1-basics.md",
        "---\ntitle: Basics\nday: 1\nsummary: The first lesson.\nterms:\n  - {slug: alpha, note: \"where alpha is introduced\"}\n  - beta\n---\nThis lesson uses [alpha](../../terms/alpha/) and [beta](../../terms/beta/).\n",
    );
    write(
        root,
        "content/guides/reading-alpha.md",
        "---\ntitle: Reading alpha\nsummary: How to read alpha.\nterms: [alpha]\n---\nRead [alpha](../../terms/alpha/#details) carefully.\n",
    );
    dir
}

pub fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// Sign as `author-a` and `reviewer-b`: two different people, over the current text.
pub fn sign_by_two(root: &Path, kind: Kind, slug: &str) {
    sign(root, kind, slug, Some("author-a"), Some("reviewer-b"));
}

/// The valid site's four terms and its lesson signed by two people; its guide left as it is.
pub fn sign_terms_and_lesson(root: &Path) {
    for slug in ["alpha", "beta", "gamma", "delta"] {
        sign_by_two(root, Kind::Term, slug);
    }
    sign_by_two(root, Kind::Lesson, "day-1-basics");
}

/// Every entry of [`valid_site`] signed by two people, so that all of them publish.
pub fn sign_valid_site(root: &Path) {
    sign_terms_and_lesson(root);
    sign_by_two(root, Kind::Guide, "reading-alpha");
}

/// Sign `id` as the given people (registered fixture ids), over what it shows now, with
/// their throwaway keys. `None` leaves that role unsigned. Goes through the library's own
/// signing path, as `review sign` does.
pub fn sign(root: &Path, kind: Kind, slug: &str, author: Option<&str>, reviewer: Option<&str>) {
    let id = EntryId::new(kind, slug);
    let at = |d: u32| Utc.with_ymd_and_hms(2026, 11, d, 12, 0, 0).unwrap();
    if let Some(a) = author {
        keys::sign_as(root, &id, Role::Author, a, at(3));
    }
    if let Some(r) = reviewer {
        if author == Some(r) {
            // `review sign` refuses this; a hand-edited file may still hold it.
            keys::sign_unchecked(root, &id, Role::Reviewer, r, at(4));
        } else {
            keys::sign_as(root, &id, Role::Reviewer, r, at(4));
        }
    }
}
