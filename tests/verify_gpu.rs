//! `glossary verify` on the verification node, one test per feature of the experiment
//! format: 2D grids, f16 buffers, ncu metrics, and a failed reference check that leaves
//! the good record in place. Each skips, saying so, where there is no CUDA driver or the
//! GPU is not the h200 node.

mod support;

use std::path::Path;

use std::process::Output;
use support::keys::{key, node_key_name, node_public_key_line};
use support::{repo, run as glossary, text};

use glossary::measure::record::{ConfigStatus, Record};

const KERNELS: &str = r#"// f16 without headers: convert with PTX so NVRTC needs no include path.
__device__ float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ unsigned short f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }

extern "C" __global__ void add2d(const unsigned short* a, const unsigned short* b,
                                 unsigned short* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = f2h(h2f(a[y * w + x]) + h2f(b[y * w + x]));
}

// Wrong on purpose: skips the last row.
extern "C" __global__ void add2d_wrong(const unsigned short* a, const unsigned short* b,
                                       unsigned short* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h - 1) out[y * w + x] = f2h(h2f(a[y * w + x]) + h2f(b[y * w + x]));
}

extern "C" __global__ void add_flat(const unsigned short* a, const unsigned short* b,
                                    unsigned short* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f2h(h2f(a[i]) + h2f(b[i]));
}
"#;

fn experiment(kernel: &str) -> String {
    format!(
        r#"title: GPU feature test
kernels: [k.cu]
params: {{w: 1000, h: 700}}
axes:
  bx: [16, 32]
buffers:
  a: {{type: f16, length: w * h, fill: {{uniform: [-1, 1]}}}}
  b: {{type: f16, length: w * h, fill: {{normal: [0, 1]}}}}
  out: {{type: f16, length: w * h, output: true, tolerance: {{ulps: 1}}}}
launches:
  - kernel: {kernel}
    args: [a, b, out, {{i32: w}}, {{i32: h}}]
    grid: ["ceil_div(w, bx)", "ceil_div(h, 8)"]
    block: [bx, 8]
reference:
  launches:
    - kernel: add_flat
      args: [a, b, out, {{i32: w * h}}]
      grid: ceil_div(w * h, 256)
      block: 256
metrics:
  gelems: {{value: w * h / (median_ms * 1e6), unit: Gelem/s, decimals: 2}}
ncu_metrics: [dram__bytes_read.sum]
timing: {{warmup_ms: 5, min_samples: 5, max_samples: 50, time_cap_ms: 200, flush_l2: false}}
"#
    )
}

/// A project with the repository's config and one experiment; None (with a printed
/// reason) where this machine cannot run it.
fn site(kernel: &str) -> Option<tempfile::TempDir> {
    site_with(&experiment(kernel), KERNELS)
}

/// A project whose `features` experiment is `yaml` with `k.cu` holding `kernels`.
fn site_with(yaml: &str, kernels: &str) -> Option<tempfile::TempDir> {
    if !glossary::measure::run::gpu::driver_present() {
        support::skip("no CUDA driver on this machine");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    // The repository's node profiles, with h200's public key swapped for a throwaway one:
    // verify signs what it writes, and the real node key never comes near a test.
    let config = std::fs::read_to_string(repo().join("glossary.toml")).unwrap();
    let config: String = config
        .lines()
        .map(|line| {
            if line.starts_with("public_key = ") && line.contains("node h200") {
                node_public_key_line("h200")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    assert!(
        config.contains(&node_public_key_line("h200")),
        "glossary.toml names h200's key"
    );
    std::fs::write(dir.path().join("glossary.toml"), config).unwrap();
    let exp = dir.path().join("measurements/features");
    std::fs::create_dir_all(&exp).unwrap();
    std::fs::write(exp.join("experiment.yaml"), yaml).unwrap();
    std::fs::write(exp.join("k.cu"), kernels).unwrap();
    Some(dir)
}

fn verify(root: &Path) -> Option<Output> {
    let node_key = key(&node_key_name("h200")).private;
    let node_key = node_key.to_str().expect("temp paths are UTF-8");
    let out = glossary(
        root,
        &[
            "verify", "--node", "h200", "--only", "features", "--key", node_key,
        ],
    );
    if text(&out).contains("this GPU is") {
        support::skip(&format!("this GPU is not the h200 node: {}", text(&out)));
        return None;
    }
    Some(out)
}

/// Verify the feature experiment and load its record (None: skipped, with the reason).
fn measured() -> Option<(tempfile::TempDir, Record, String)> {
    let site = site("add2d")?;
    let out = verify(site.path())?;
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let r = Record::load(&site.path().join("measurements/features/records/h200.json")).unwrap();
    Some((site, r, said))
}

#[test]
fn a_2d_grid_and_block_are_launched_as_written() {
    let Some((_site, r, _)) = measured() else {
        return;
    };
    let labels: Vec<&str> = r.configs.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["bx16", "bx32"]);
    let (a, b) = (&r.configs[0], &r.configs[1]);
    assert_eq!(
        (a.block, a.grid, a.block_size, a.grid_size),
        ([16, 8, 1], [63, 88, 1], 128, 63 * 88)
    );
    assert_eq!(
        (b.block, b.grid, b.block_size),
        ([32, 8, 1], [32, 88, 1], 256)
    );
    // Every element of the 1000 x 700 output matched the 1D reference: the 2D grid
    // covered it exactly once.
    assert!(r
        .configs
        .iter()
        .all(|c| c.status == ConfigStatus::Passed && c.timing.is_some()));
}

#[test]
fn f16_buffers_are_filled_from_the_seed_and_compared_in_ulps() {
    let Some((_site, r, said)) = measured() else {
        return;
    };
    for c in &r.configs {
        assert_eq!(c.status, ConfigStatus::Passed, "{said}");
        assert!(c.number("gelems").unwrap() > 0.0);
    }
    assert_eq!(r.extra["seed"], 1);
    assert!(r.device["l2_bytes"] > 0 && r.device["mem_bytes"] > 0);
}

#[test]
fn ncu_metrics_are_recorded_per_config_with_their_units() {
    let Some((_site, r, said)) = measured() else {
        return;
    };
    for c in &r.configs {
        let dram = &c.quantities["dram__bytes_read.sum"];
        if glossary::measure::run::ncu::available() {
            // Two 1.4 MB f16 inputs are read; ncu counts bytes from DRAM (some may hit
            // L2), so the value is positive and at most a few inputs' worth.
            let v = dram.value.unwrap_or_else(|| panic!("{dram:?} {said}"));
            assert!(v > 0.0 && v < 10.0 * 1.4e6, "{v}");
            assert_eq!(dram.unit, "byte", "{dram:?}");
            assert!(c.achieved_occupancy.is_some_and(|a| a > 0.0 && a <= 1.0));
        } else {
            eprintln!("ncu is not installed: checking the not-measured path instead");
            assert_eq!(dram.value, None);
            assert!(dram
                .not_measured
                .as_deref()
                .unwrap()
                .contains("ncu is not installed"));
        }
    }
    if glossary::measure::run::ncu::available() {
        assert_eq!(
            r.heading("dram__bytes_read.sum"),
            "dram__bytes_read.sum (byte)"
        );
    }
}

#[test]
fn a_failed_reference_check_leaves_the_old_record() {
    let Some(site) = site("add2d") else { return };
    let Some(out) = verify(site.path()) else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    let record = site.path().join("measurements/features/records/h200.json");
    let before = std::fs::read(&record).unwrap();

    let yaml = site.path().join("measurements/features/experiment.yaml");
    std::fs::write(&yaml, experiment("add2d_wrong")).unwrap();
    let out = verify(site.path()).unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("FAILED, record not replaced: 2 of 2 configs failed their check"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(&record).unwrap(),
        before,
        "the good record is untouched"
    );
    let failed = Record::load(
        &site
            .path()
            .join("measurements/features/records/h200.failed.json"),
    )
    .unwrap();
    for c in &failed.configs {
        let ConfigStatus::Failed {
            wrong,
            first_index,
            reason,
        } = &c.status
        else {
            panic!("{c:?}")
        };
        // The last row (1000 elements) is left poisoned.
        assert_eq!(
            (*wrong, *first_index),
            (Some(1000), Some(699 * 1000)),
            "{reason}"
        );
        assert!(c.timing.is_none(), "a failed config gets no timing");
    }
}

#[test]
fn buffers_larger_than_the_gpu_are_refused_before_anything_runs() {
    let Some(site) = site("add2d") else { return };
    let yaml = site.path().join("measurements/features/experiment.yaml");
    // An unused f64 buffer of 2^35 elements: 256 GiB, more than any H200 has.
    let written = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        written.replace(
            "buffers:\n",
            "buffers:\n  big: {type: f64, length: 1 << 35}\n",
        ),
    )
    .unwrap();
    let Some(out) = verify(site.path()) else {
        return;
    };
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("experiment.yaml:6:1: config `bx16` (and 1 more): the buffers need 274882106944 bytes (256.00 GiB), more than the GPU's"), "{said}");
    assert!(
        !site.path().join("measurements/features/records").exists(),
        "nothing ran, nothing was written"
    );
}

/// Kernels for the launch shapes of issue 40: a cluster launch (each block writes its
/// rank in the cluster, read from the hardware), a chase over a `cycle` fill.
const SHAPES: &str = r#"
extern "C" __global__ void rank_in_cluster(unsigned* out) {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    if (threadIdx.x == 0) out[blockIdx.x] = r;
}

extern "C" __global__ void rank_reference(unsigned* out, unsigned cs, unsigned blocks) {
    for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x) out[b] = b % cs;
}

extern "C" __global__ void chase(const unsigned* next, unsigned* out, unsigned steps) {
    unsigned i = 0, sum = 0;
    for (unsigned s = 0; s < steps; ++s) { i = next[i]; sum += i; }
    out[0] = i; out[1] = sum;
}

// What a walk of `nodes` steps over one cycle must give: back at node 0, having visited
// every node's index once (stride x (0 + 1 + ... + nodes - 1)).
extern "C" __global__ void chase_expected(unsigned* out, unsigned nodes, unsigned stride) {
    out[0] = 0;
    out[1] = stride * (nodes * (nodes - 1) / 2);
}
"#;

#[test]
fn a_cluster_launch_timed_as_a_graph_of_ten_runs_as_written() {
    let yaml = r#"title: clusters and graphs
kernels: [k.cu]
params: {blocks: 64}
axes:
  cs: [2, 4]
buffers:
  out: {type: u32, length: blocks, output: true}
launches:
  - kernel: rank_in_cluster
    args: [out]
    grid: blocks
    block: 32
    cluster: cs
    repeat: 10
    graph: floor_div(cs, 4)
reference:
  launches:
    - kernel: rank_reference
      args: [out, {u32: cs}, {u32: blocks}]
      grid: 1
      block: 64
metrics:
  us_per_launch: {value: median_ms * 1e3 / launches_per_sample, unit: us, decimals: 2}
  clusters: {value: max_active_clusters, decimals: 0}
timing: {warmup_ms: 5, min_samples: 5, max_samples: 50, time_cap_ms: 200, flush_l2: false}
"#;
    let Some(site) = site_with(yaml, SHAPES) else {
        return;
    };
    let Some(out) = verify(site.path()) else {
        return;
    };
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let r = Record::load(&site.path().join("measurements/features/records/h200.json")).unwrap();
    for (label, cs, graph) in [("cs2", 2, false), ("cs4", 4, true)] {
        let c = r.configs.iter().find(|c| c.label == label).expect(label);
        // The hardware's own cluster rank matched blockIdx.x mod cs: the launch had clusters.
        assert!(
            matches!(c.status, ConfigStatus::Passed),
            "{label}: {:?}",
            c.status
        );
        let t = r
            .timed_launch(label)
            .expect("a non-plain row records its launch");
        assert_eq!(
            (t.cluster, t.repeat, t.graph),
            (Some([cs, 1, 1]), 10, graph)
        );
        let clusters = c.quantities["clusters"]
            .value
            .expect("the driver's cluster count");
        assert!(clusters >= 1.0, "{label}: {clusters}");
        assert!(c.quantities["us_per_launch"].value.is_some_and(|v| v > 0.0));
    }
}

#[test]
fn a_chase_over_a_cycle_fill_visits_every_node() {
    // 1000 nodes, 1000 steps: a single cycle returns to node 0 after exactly that many,
    // having visited every node once; the reference writes what that must sum to.
    let yaml = r#"title: chase
kernels: [k.cu]
params: {nodes: 1000, stride: 32}
buffers:
  next: {type: u32, length: nodes * stride, fill: {cycle: stride}}
  out: {type: u32, length: 2, output: true}
launches:
  - kernel: chase
    args: [next, out, {u32: nodes}]
    grid: 1
    block: 1
reference:
  launches:
    - kernel: chase_expected
      args: [out, {u32: nodes}, {u32: stride}]
      grid: 1
      block: 1
timing: {warmup_ms: 5, min_samples: 5, max_samples: 50, time_cap_ms: 200, flush_l2: false}
"#;
    let Some(site) = site_with(yaml, SHAPES) else {
        return;
    };
    let Some(out) = verify(site.path()) else {
        return;
    };
    assert!(out.status.success(), "{}", text(&out));
    let r = Record::load(&site.path().join("measurements/features/records/h200.json")).unwrap();
    assert!(matches!(r.configs[0].status, ConfigStatus::Passed));
}
