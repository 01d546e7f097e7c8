//! A small glossary site in a temp dir, and the real binary to run on it.
// Each test file uses a different part of this helper.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chrono::{Duration, Local, NaiveDate};

use super::files::copy_dir;
pub use super::keys;

/// The one verification node fixture sites trust. Named so nobody mistakes its records for
/// measurements of real hardware.
pub const NODE: &str = "fixture-node";
pub const NODE_GPU: &str = "Fixture GPU";

pub struct Site {
    dir: tempfile::TempDir,
}

/// What a run of the binary printed, and whether it succeeded.
pub struct Run {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(out: Output) -> Run {
        Run {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ok: {}\n--- stdout\n{}--- stderr\n{}",
            self.ok, self.stdout, self.stderr
        )
    }
}

pub fn today() -> NaiveDate {
    Local::now().date_naive()
}

pub fn days_ago(n: i64) -> NaiveDate {
    today() - Duration::days(n)
}

impl Site {
    /// glossary.toml (with `extra_toml` appended), the repository's templates, no entries.
    pub fn new(extra_toml: &str) -> Site {
        let dir = tempfile::tempdir().expect("temp dir");
        let site = Site { dir };
        site.write(
            "glossary.toml",
            &format!(
                "title = \"Fixture Glossary\"\nbase_url = \"https://glossary.test\"\n{extra_toml}\n\
                 [nodes.{NODE}]\ngpu = \"{NODE_GPU}\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 4\n{}",
                keys::node_public_key_line(NODE)
            ),
        );
        keys::write_people(site.root());
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("templates"),
            &site.path("templates"),
        );
        site
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
    }

    /// A term whose one source was checked `source_checked`, citing `experiment` (if any)
    /// in a measured table of its `label` and `block_size` columns.
    pub fn term(&self, slug: &str, source_checked: NaiveDate, experiment: Option<&str>) {
        let measured = match experiment {
            Some(exp) => format!(
                "measured:\n  - experiment: {exp}\n    node: {NODE}\n    rows: [b256]\n    columns: [label, block_size]\n"
            ),
            None => String::new(),
        };
        self.write(
            &format!("content/terms/{slug}.md"),
            &format!(
                "---\ntitle: What is {slug}?\nname: {slug}\nsummary: A one-line definition of {slug}.\n\
                 sources:\n  - title: A source about {slug}\n    url: https://docs.example.test/{slug}\n    checked: {source_checked}\n\
                 {measured}---\nThe first paragraph about {slug}.\n\nThe second paragraph.\n"
            ),
        );
    }

    /// A minimal experiment: a title, one kernel file, compile options.
    pub fn experiment(&self, id: &str) {
        self.write(
            &format!("measurements/{id}/experiment.yaml"),
            "title: A fixture experiment\nkernels: [copy.cu]\ncompile_options: [\"--std=c++17\"]\nparams: {n: 1024, block: 512, elements_per_thread: 1, blocks: 0}\nconfigs:\n  - {label: b256}\nbuffers:\n  x: {type: f32, length: n, fill: {uniform: [-1, 1]}}\n  out: {type: f32, length: n, output: true, tolerance: {ulps: 2}}\nlaunches:\n  - kernel: copy\n    args: [x, out, {i32: n}]\n    grid: ceil_div(n, block)\n    block: block\n    target_blocks_per_sm: blocks\nreference: {config: b256}\nmetrics:\n  gbps: {value: 12 * n / (median_ms * 1e6), unit: GB/s, heading: bandwidth, decimals: 1}\n  loads_in_flight: {value: warps_per_sm * 2 * elements_per_thread, heading: loads in flight / SM, decimals: 0}\n",
        );
        self.write(
            &format!("measurements/{id}/copy.cu"),
            "extern \"C\" __global__ void copy(const float* in, float* out, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = in[i];\n}\n",
        );
    }

    /// A record of `id` on the fixture node, captured at `captured_at` (RFC 3339), that is
    /// current for the experiment as it is on disk.
    pub fn record(&self, id: &str, captured_at: &str) {
        let exp = glossary::measure::Experiment::load(&self.path(&format!("measurements/{id}")))
            .expect("fixture experiment loads");
        let record = serde_json::json!({
            "schema": 1,
            "experiment": id,
            "node": NODE,
            "spec_digest": exp.digest,
            "tool_version": "fixture",
            "captured_at": captured_at,
            "gpu": {
                "name": NODE_GPU,
                "uuid": "GPU-fixture",
                "compute_capability": "9.0",
                "sm_count": 4,
                "driver_version": "fixture",
                "cuda_driver_api": "fixture",
                "nvrtc_version": "fixture"
            },
            "compile_options": ["--std=c++17", "--gpu-architecture=sm_90"],
            "configs": [{
                "label": "b256",
                "kernel": "copy",
                "status": { "state": "passed" },
                "params": { "n": 1024, "block": 256, "elements_per_thread": 1, "blocks": 0 },
                "block_size": 256,
                "smem_reserved": 0,
                "grid_size": 4,
                "registers": 8,
                "static_smem": 0,
                "local_bytes": 0,
                "blocks_per_sm": 8,
                "warps_per_sm": 64,
                "occupancy": 1.0,
                "waves": 0.25,
                "quantities": {
                    "loads_in_flight": { "value": 128.0, "unit": "", "decimals": 0, "source": "metric" }
                }
            }]
        });
        self.write(
            &format!("measurements/{id}/records/{NODE}.json"),
            &serde_json::to_string_pretty(&record).expect("json"),
        );
        keys::sign_record(
            &self.path(&format!("measurements/{id}/records/{NODE}.json")),
            NODE,
        );
    }

    /// Run `glossary ARGS --root SITE`, with git blind to the machine's own settings.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(
            self.command(args)
                .output()
                .expect("the glossary binary runs"),
        )
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_glossary"));
        c.args(args)
            .arg("--root")
            .arg(self.root())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.path(".no-global-gitconfig"))
            .env("HOME", self.root())
            .env(
                "GIT_CEILING_DIRECTORIES",
                self.root().parent().unwrap_or(self.root()),
            );
        c
    }

    /// Like [`Site::run`], failing the test if the command fails.
    pub fn ok(&self, args: &[&str]) -> Run {
        let r = self.run(args);
        assert!(r.ok, "glossary {args:?} failed:\n{r:?}");
        r
    }
}
