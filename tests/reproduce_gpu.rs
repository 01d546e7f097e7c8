//! `glossary reproduce` on a real GPU: a fixture whose published record came from a fast
//! kernel, reproduced with a deliberately slowed one, must say SLOWER and name the rows
//! that slowed. Skips, saying so, where there is no CUDA driver.
//!
//! The published record is a real `verify` run of the fast kernel on this GPU; the bundle
//! then pairs it with the slowed kernel's files. A node would never sign that pairing, so
//! the fixture node (a throwaway key) signs it here, as a test may and a node does not.

mod support;

use std::path::Path;

use support::{bin, text};

use glossary::measure::run::gpu;
use glossary::measure::Experiment;
use glossary::trust::Signer;

const EXPERIMENT: &str = r#"title: Reproduce fixture, one row slowed
kernels: [k.cu]
params: {n: 67108864, block: 256, spin: 0}
configs:
  - {label: plain, spin: 0}
  - {label: spun, spin: 1}
buffers:
  x: {type: f32, length: n, fill: {uniform: [-1, 1]}}
  out: {type: f32, length: n, output: true, tolerance: {ulps: 0}}
launches:
  - kernel: scale
    args: [x, out, {u64: n}, {i32: spin}]
    grid: ceil_div(n, block)
    block: block
reference: {config: plain}
timing: {warmup_ms: 20, min_samples: 20, max_samples: 200, time_cap_ms: 1500, flush_l2: true}
"#;

/// The kernel as published: `spin` changes nothing.
const FAST: &str = r#"extern "C" __global__ void scale(const float* x, float* out, unsigned long long n, int spin) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i];
}
"#;

/// The kernel as the reader gets it: with `spin`, every thread waits about 20 µs first, so
/// that row is many times slower; the result is the same.
const SLOWED: &str = r#"extern "C" __global__ void scale(const float* x, float* out, unsigned long long n, int spin) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (spin) {
        long long start = clock64();
        while (clock64() - start < 40000) { }
    }
    if (i < n) out[i] = 2.0f * x[i];
}
"#;

fn key_file(dir: &Path, name: &str, seed: u8) -> (std::path::PathBuf, Signer) {
    let signer = Signer::ed25519_from_seed(&[seed; 32], name).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, signer.private_openssh().unwrap()).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    (path, signer)
}

#[test]
fn a_slowed_kernel_reproduces_as_slower_naming_the_row() {
    if !gpu::driver_present() {
        eprintln!("skipped: no CUDA driver on this machine");
        return;
    }
    let this = gpu::Gpu::open().expect("open the GPU");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (node_key, node) = key_file(root, "fixture-node", 7);
    let (reader_key, _) = key_file(root, "reader", 8);
    std::fs::write(
        root.join("glossary.toml"),
        format!(
            "title = \"Reproduce fixture\"\nbase_url = \"https://fixture.test\"\n\n[nodes.fixture]\ngpu = \"{}\"\ncompute_capability = \"{}\"\narch = \"{}\"\nsm_count = {}\npublic_key = \"{}\"\n",
            this.info.name.trim(),
            this.info.compute_capability,
            this.arch,
            this.info.sm_count,
            node.public_key().to_openssh().unwrap()
        ),
    )
    .unwrap();
    drop(this);
    let exp = root.join("measurements/slowed");
    std::fs::create_dir_all(&exp).unwrap();
    std::fs::write(exp.join("experiment.yaml"), EXPERIMENT).unwrap();
    std::fs::write(exp.join("k.cu"), FAST).unwrap();
    let out = bin()
        .args(["verify", "--node", "fixture", "--no-ncu", "--key"])
        .arg(&node_key)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    // The slowed kernel in place of the fast one, and the fast run's record re-signed as
    // if it had been measured on it.
    std::fs::write(exp.join("k.cu"), SLOWED).unwrap();
    let slowed = Experiment::load(&exp).unwrap();
    let record_path = exp.join("records/fixture.json");
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
    record["spec_digest"] = slowed.digest.clone().into();
    let bytes = serde_json::to_vec_pretty(&record).unwrap();
    glossary::trust::node::write_signed(&record_path, &bytes, &node).unwrap();
    // A page that shows it, built as drafts so the bundle is written.
    let term = "---\ntitle: What is slowed?\nsummary: A fixture.\nmeasured:\n  - experiment: slowed\n    node: fixture\n    rows: [plain, spun]\n    columns: [label, median_ms]\n---\nBody.\n";
    std::fs::create_dir_all(root.join("content/terms")).unwrap();
    std::fs::write(root.join("content/terms/slowed.md"), term).unwrap();
    support::copy_dir(&support::repo().join("templates"), &root.join("templates"));
    let out = bin()
        .args(["build", "--drafts", "--out"])
        .arg(root.join("preview"))
        .arg("--root")
        .arg(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    // A downloaded bundle is read trusting the key the site's nodes.json lists.
    let list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("preview/nodes.json")).unwrap()).unwrap();
    let fingerprint = list["nodes"]["fixture"]["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();
    let out = bin()
        .arg("reproduce")
        .arg(root.join("preview/reproduce/slowed/fixture.json"))
        .args(["--trust-key", &fingerprint])
        .args(["--no-ncu", "--out"])
        .arg(root.join("contribution"))
        .arg("--key")
        .arg(&reader_key)
        .output()
        .unwrap();
    let said = text(&out);
    println!("{said}");
    assert!(out.status.success(), "{said}");
    let row = |label: &str| {
        said.lines()
            .find(|l| {
                l.starts_with(label)
                    && (l.contains("SAME")
                        || l.contains("SLOWER")
                        || l.contains("FASTER")
                        || l.contains("AMBIGUOUS"))
            })
            .unwrap_or_else(|| panic!("no row {label}: {said}"))
            .to_string()
    };
    assert!(row("spun").contains("SLOWER"), "{said}");
    assert!(!row("plain").contains("SLOWER"), "{said}");
    assert!(said.contains("SLOWER: spun"), "{said}");
    let contribution = root.join("contribution/slowed");
    let name = glossary::reproduce::default_name(record["gpu"]["name"].as_str().unwrap());
    assert!(
        contribution.join(format!("{name}.json")).is_file(),
        "{said}"
    );
    assert!(contribution.join(format!("{name}.json.sig")).is_file());
    let report = std::fs::read_to_string(contribution.join("report.md")).unwrap();
    assert!(
        report.contains("| spun |") && report.contains("SLOWER"),
        "{report}"
    );
}
