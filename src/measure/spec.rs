//! Experiment files: `measurements/<id>/experiment.yaml` and the kernel sources beside it.
//!
//! An experiment is parsed and validated once, here; `verify` and the site builder then
//! trust it. Every error names the file and, where it can be found, the line.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Location, Result};

pub const EXPERIMENT_FILE: &str = "experiment.yaml";

/// An experiment as found on disk: its parsed spec and the digest of everything that
/// determines its numbers. A record whose digest differs from this is stale.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub id: String,
    pub dir: PathBuf,
    pub spec: ExperimentSpec,
    /// sha256 over the experiment file and each kernel source, in the order listed.
    pub digest: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    pub title: String,
    /// Kernel source files beside the experiment file, compiled together by NVRTC.
    pub kernels: Vec<String>,
    /// NVRTC options; `--gpu-architecture` for the device is added at run time.
    #[serde(default)]
    pub compile_options: Vec<String>,
    /// What `verify` does with the compiled kernels.
    pub measure: Measure,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(try_from = "MeasureFields", into = "MeasureFields")]
pub enum Measure {
    /// Check each configuration against a CPU reference, then time it.
    Timed(TimedSpec),
    /// Ask the driver for resident blocks per SM over a grid of launch shapes; launch nothing.
    OccupancySweep(SweepSpec),
}

/// `measure:` as written: a map with exactly one of its keys (the YAML library wants tags
/// for enums, which read worse than a key).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct MeasureFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timed: Option<TimedSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    occupancy_sweep: Option<SweepSpec>,
}

impl TryFrom<MeasureFields> for Measure {
    type Error = String;
    fn try_from(m: MeasureFields) -> std::result::Result<Measure, String> {
        match (m.timed, m.occupancy_sweep) {
            (Some(t), None) => Ok(Measure::Timed(t)),
            (None, Some(s)) => Ok(Measure::OccupancySweep(s)),
            _ => Err("`measure` needs exactly one of `timed` or `occupancy_sweep`".into()),
        }
    }
}

impl From<Measure> for MeasureFields {
    fn from(m: Measure) -> MeasureFields {
        match m {
            Measure::Timed(t) => MeasureFields {
                timed: Some(t),
                occupancy_sweep: None,
            },
            Measure::OccupancySweep(s) => MeasureFields {
                timed: None,
                occupancy_sweep: Some(s),
            },
        }
    }
}

/// The computations `verify` knows how to feed and check. The kernel's parameter list is
/// fixed by the workload, so any kernel named in a config must take exactly these.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    /// `out[i] = a * x[i] + y[i]` over fp32; kernel parameters
    /// `(float a, const float* x, const float* y, float* out, unsigned long long n)`.
    Axpy,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TimedSpec {
    pub workload: Workload,
    /// Problem size in elements.
    pub elements: u64,
    /// Bytes one element moves through device memory per launch (axpy: read x and y, write
    /// out: 12). Bytes per launch, and so GB/s, follow from it.
    pub bytes_per_element: u64,
    /// Seed of the input generator, so every run checks the same inputs.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Preferred shared-memory carveout in percent of the maximum, set on every kernel so
    /// that the L1/shared split is the same for every row. None leaves the driver's choice.
    #[serde(default)]
    pub carveout_percent: Option<u32>,
    #[serde(default)]
    pub timing: TimingPolicy,
    pub configs: Vec<ConfigSpec>,
}

/// How long and how often to time: the NVBench / `do_bench` recipe, as data.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TimingPolicy {
    /// Untimed launches for at least this long before the first sample.
    #[serde(default = "default_warmup_ms")]
    pub warmup_ms: f64,
    #[serde(default = "default_min_samples")]
    pub min_samples: usize,
    #[serde(default = "default_max_samples")]
    pub max_samples: usize,
    /// Stop once the relative standard deviation of the samples is under this.
    #[serde(default = "default_max_rsd")]
    pub max_rsd: f64,
    /// Stop sampling one configuration after this much wall time, converged or not.
    #[serde(default = "default_time_cap_ms")]
    pub time_cap_ms: f64,
    /// Overwrite a buffer larger than L2 before each sample so none starts with warm cache.
    #[serde(default = "default_true")]
    pub flush_l2: bool,
}

impl Default for TimingPolicy {
    fn default() -> Self {
        TimingPolicy {
            warmup_ms: default_warmup_ms(),
            min_samples: default_min_samples(),
            max_samples: default_max_samples(),
            max_rsd: default_max_rsd(),
            time_cap_ms: default_time_cap_ms(),
            flush_l2: true,
        }
    }
}

fn default_seed() -> u64 {
    45
}
fn default_warmup_ms() -> f64 {
    50.0
}
fn default_min_samples() -> usize {
    20
}
fn default_max_samples() -> usize {
    1000
}
fn default_max_rsd() -> f64 {
    0.005
}
fn default_time_cap_ms() -> f64 {
    3000.0
}
fn default_true() -> bool {
    true
}

/// One row of a timed experiment.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigSpec {
    pub label: String,
    /// The `extern "C"` kernel function to launch.
    pub kernel: String,
    pub block_size: u32,
    pub elements_per_thread: u32,
    /// Independent loads one thread issues before it first uses a loaded value; times
    /// resident warps, this is the loads in flight per SM.
    pub loads_before_first_use: u32,
    /// Resident blocks per SM to dial down to, by reserving never-read dynamic shared
    /// memory. None launches with no reservation.
    #[serde(default)]
    pub target_blocks_per_sm: Option<u32>,
}

/// The grid an occupancy sweep covers. Every combination is asked of the driver.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// The `extern "C"` kernel compiled once per register cap.
    pub kernel: String,
    /// Register caps passed as `--maxrregcount`; the record keeps what the driver reports.
    pub registers: Vec<u32>,
    pub block_sizes: Vec<u32>,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_smem: Vec<u32>,
}

impl Experiment {
    pub fn load(dir: &Path) -> Result<Experiment> {
        let id = dir
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let path = dir.join(EXPERIMENT_FILE);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let text = String::from_utf8_lossy(&bytes);
        let spec = ExperimentSpec::parse(&path, &text)?;
        let mut hasher = Sha256::new();
        hash_part(&mut hasher, EXPERIMENT_FILE, &bytes);
        for k in &spec.kernels {
            let kpath = dir.join(k);
            let kbytes = std::fs::read(&kpath).map_err(|e| Error::io(&kpath, e))?;
            hash_part(&mut hasher, k, &kbytes);
        }
        Ok(Experiment {
            id,
            dir: dir.to_path_buf(),
            spec,
            digest: format!("sha256:{}", hex::encode(hasher.finalize())),
        })
    }

    pub fn records_dir(&self) -> PathBuf {
        self.dir.join("records")
    }

    pub fn record_path(&self, node: &str) -> PathBuf {
        self.records_dir().join(format!("{node}.json"))
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(EXPERIMENT_FILE)
    }

    /// The kernel sources, concatenated in the order listed, as NVRTC compiles them.
    pub fn kernel_source(&self) -> Result<String> {
        let mut src = String::new();
        for k in &self.spec.kernels {
            let p = self.dir.join(k);
            let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
            if text.contains('\0') {
                return Err(Error::content(
                    &p,
                    None,
                    "kernel source contains a NUL byte",
                ));
            }
            src.push_str(&text);
            src.push('\n');
        }
        Ok(src)
    }
}

impl ExperimentSpec {
    /// Parse and validate `text`, the contents of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<ExperimentSpec> {
        let spec: ExperimentSpec = serde_yaml::from_str(text).map_err(|e| {
            let at = e.location().map(|l| Location {
                line: l.line(),
                column: l.column(),
            });
            Error::content(path, at, e.to_string())
        })?;
        let problems = spec.problems();
        let errors = problems
            .into_iter()
            .map(|p| {
                let at = p.near.and_then(|n| line_of(text, n));
                Error::content(path, at, p.message)
            })
            .collect();
        Error::collect(errors)?;
        Ok(spec)
    }

    /// Every rule the file breaks, each with a text to look for to find its line.
    fn problems<'a>(&'a self) -> Vec<Problem<'a>> {
        let mut out: Vec<(Option<&str>, String)> = Vec::new();
        let mut bad = |near: Option<&'a str>, message: String| out.push((near, message));
        if self.kernels.is_empty() {
            bad(Some("kernels"), "`kernels` lists no source file".into());
        }
        for k in &self.kernels {
            if k.is_empty() || k.contains('/') || k.contains('\\') || k.starts_with('.') {
                bad(
                    Some(k),
                    format!("kernel `{k}` must be a file name beside the experiment file"),
                );
            }
        }
        for o in &self.compile_options {
            if o.starts_with("--gpu-architecture") || o.starts_with("-arch") {
                bad(
                    Some(o),
                    format!("compile option `{o}`: the architecture is taken from the device at run time"),
                );
            }
            if o.starts_with("--maxrregcount") || o.starts_with("-maxrregcount") {
                bad(
                    Some(o),
                    format!("compile option `{o}`: register caps belong to an occupancy sweep's `registers`"),
                );
            }
        }
        match &self.measure {
            Measure::Timed(t) => t.problems(&mut bad),
            Measure::OccupancySweep(s) => s.problems(&mut bad),
        }
        out.into_iter()
            .map(|(near, message)| Problem { near, message })
            .collect()
    }

    pub fn timed(&self) -> Option<&TimedSpec> {
        match &self.measure {
            Measure::Timed(t) => Some(t),
            Measure::OccupancySweep(_) => None,
        }
    }
}

struct Problem<'a> {
    near: Option<&'a str>,
    message: String,
}

type Complain<'s, 'a> = dyn FnMut(Option<&'a str>, String) + 's;

impl TimedSpec {
    fn problems<'a>(&'a self, bad: &mut Complain<'_, 'a>) {
        if self.elements == 0 {
            bad(Some("elements"), "`elements` must be at least 1".into());
        }
        // Inputs live on the host too (for the CPU reference): keep them addressable.
        if self.elements > (1u64 << 32) {
            bad(Some("elements"), "`elements` must be at most 2^32".into());
        }
        if self.bytes_per_element == 0 {
            bad(
                Some("bytes_per_element"),
                "`bytes_per_element` must be at least 1".into(),
            );
        }
        if let Some(c) = self.carveout_percent {
            if c > 100 {
                bad(
                    Some("carveout_percent"),
                    format!("`carveout_percent` {c} is over 100"),
                );
            }
        }
        let t = &self.timing;
        if !(t.max_rsd > 0.0 && t.max_rsd < 1.0) {
            bad(
                Some("max_rsd"),
                format!("`max_rsd` {} must be between 0 and 1", t.max_rsd),
            );
        }
        if t.min_samples < 3 {
            bad(
                Some("min_samples"),
                "`min_samples` must be at least 3".into(),
            );
        }
        if t.max_samples < t.min_samples {
            bad(
                Some("max_samples"),
                "`max_samples` is below `min_samples`".into(),
            );
        }
        if t.time_cap_ms.is_nan() || t.time_cap_ms <= 0.0 {
            bad(Some("time_cap_ms"), "`time_cap_ms` must be positive".into());
        }
        if t.warmup_ms.is_nan() || t.warmup_ms < 0.0 {
            bad(Some("warmup_ms"), "`warmup_ms` must not be negative".into());
        }
        if self.configs.is_empty() {
            bad(Some("configs"), "`configs` lists no configuration".into());
        }
        let mut seen = HashSet::new();
        for c in &self.configs {
            let near = Some(c.label.as_str());
            if !is_label(&c.label) {
                bad(
                    near,
                    format!(
                        "label `{}` must be lowercase letters, digits and '-'",
                        c.label
                    ),
                );
            }
            if !seen.insert(c.label.as_str()) {
                bad(near, format!("label `{}` is used twice", c.label));
            }
            if !is_identifier(&c.kernel) {
                bad(
                    near,
                    format!("{}: kernel `{}` is not a C identifier", c.label, c.kernel),
                );
            }
            if c.block_size == 0 || c.block_size > 1024 || c.block_size % 32 != 0 {
                bad(
                    near,
                    format!(
                        "{}: block_size {} must be a multiple of 32 from 32 to 1024",
                        c.label, c.block_size
                    ),
                );
            }
            if c.elements_per_thread == 0 {
                bad(
                    near,
                    format!("{}: elements_per_thread must be at least 1", c.label),
                );
            }
            if c.loads_before_first_use == 0 {
                bad(
                    near,
                    format!("{}: loads_before_first_use must be at least 1", c.label),
                );
            }
            if c.target_blocks_per_sm == Some(0) {
                bad(
                    near,
                    format!("{}: target_blocks_per_sm must be at least 1", c.label),
                );
            }
        }
    }
}

impl SweepSpec {
    fn problems<'a>(&'a self, bad: &mut Complain<'_, 'a>) {
        if !is_identifier(&self.kernel) {
            bad(
                Some("kernel"),
                format!("kernel `{}` is not a C identifier", self.kernel),
            );
        }
        let lists = [
            ("registers", &self.registers, 1u32, 255u32),
            ("block_sizes", &self.block_sizes, 1, 1024),
            ("dynamic_smem", &self.dynamic_smem, 0, u32::MAX),
        ];
        for (name, list, lo, hi) in lists {
            if list.is_empty() {
                bad(Some(name), format!("`{name}` is empty"));
            }
            for v in list.iter() {
                if *v < lo || *v > hi {
                    bad(Some(name), format!("`{name}`: {v} is outside {lo}..={hi}"));
                }
            }
            let distinct: HashSet<_> = list.iter().collect();
            if distinct.len() != list.len() {
                bad(Some(name), format!("`{name}` lists a value twice"));
            }
        }
    }
}

fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The 1-based line of the first line that holds `needle` as a whole word, column 1.
fn line_of(text: &str, needle: &str) -> Option<Location> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.lines().enumerate().find_map(|(i, line)| {
        let found = line.match_indices(needle).any(|(at, _)| {
            let before = line[..at].chars().next_back();
            let after = line[at + needle.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        });
        found.then_some(Location {
            line: i + 1,
            column: 1,
        })
    })
}

/// Length-prefixed so that moving bytes between files changes the digest.
fn hash_part(hasher: &mut Sha256, name: &str, bytes: &[u8]) {
    hasher.update((name.len() as u64).to_le_bytes());
    hasher.update(name.as_bytes());
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "\
title: t
kernels: [k.cu]
compile_options: [--std=c++17]
measure:
  timed:
    workload: axpy
    elements: 1024
    bytes_per_element: 12
    configs:
      - label: one
        kernel: axpy_ept1
        block_size: 256
        elements_per_thread: 1
        loads_before_first_use: 2
      - label: two
        kernel: axpy_ept2
        block_size: 256
        elements_per_thread: 2
        loads_before_first_use: 4
        target_blocks_per_sm: 2
";

    fn parse(text: &str) -> Result<ExperimentSpec> {
        ExperimentSpec::parse(Path::new("m/x/experiment.yaml"), text)
    }

    #[test]
    fn parses_a_timed_experiment_with_default_timing() {
        let spec = parse(GOOD).unwrap();
        let t = spec.timed().unwrap();
        assert_eq!(t.configs.len(), 2);
        assert_eq!(t.timing.max_rsd, 0.005);
        assert!(t.timing.flush_l2);
        assert_eq!(t.configs[1].target_blocks_per_sm, Some(2));
    }

    #[test]
    fn unknown_field_names_file_and_line() {
        let text = GOOD.replace(
            "        block_size: 256\n        elements_per_thread: 2",
            "        block_size: 256\n        blocksize: 3\n        elements_per_thread: 2",
        );
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.starts_with("m/x/experiment.yaml:18:"), "{e}");
        assert!(e.contains("blocksize"), "{e}");
    }

    #[test]
    fn bad_block_size_names_the_config_line() {
        let text = GOOD.replace(
            "block_size: 256\n        elements_per_thread: 2",
            "block_size: 100\n        elements_per_thread: 2",
        );
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.starts_with("m/x/experiment.yaml:15:1:"), "{e}");
        assert!(
            e.contains("two: block_size 100 must be a multiple of 32"),
            "{e}"
        );
    }

    #[test]
    fn duplicate_labels_and_arch_option_are_both_reported() {
        let text = GOOD
            .replace("label: two", "label: one")
            .replace("[--std=c++17]", "[--std=c++17, --gpu-architecture=sm_90]");
        let all = parse(&text).unwrap_err().flatten();
        assert_eq!(all.len(), 2, "{all:?}");
        assert!(all[0]
            .to_string()
            .contains("experiment.yaml:3:1: compile option"));
        assert!(all[1].to_string().contains("label `one` is used twice"));
    }

    #[test]
    fn parses_an_occupancy_sweep_and_rejects_register_caps_over_255() {
        let text = "title: s\nkernels: [p.cu]\nmeasure:\n  occupancy_sweep:\n    kernel: pressure\n    registers: [32, 256]\n    block_sizes: [128]\n    dynamic_smem: [0]\n";
        let e = parse(text).unwrap_err().to_string();
        assert!(
            e.contains(":6:1: `registers`: 256 is outside 1..=255"),
            "{e}"
        );
        let ok = parse(&text.replace("256", "255")).unwrap();
        assert!(matches!(ok.measure, Measure::OccupancySweep(_)));
    }

    #[test]
    fn editing_a_kernel_changes_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(EXPERIMENT_FILE), GOOD).unwrap();
        std::fs::write(dir.path().join("k.cu"), "// v1\n").unwrap();
        let a = Experiment::load(dir.path()).unwrap();
        std::fs::write(dir.path().join("k.cu"), "// v2\n").unwrap();
        let b = Experiment::load(dir.path()).unwrap();
        assert_ne!(a.digest, b.digest);
    }

    #[test]
    fn missing_kernel_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(EXPERIMENT_FILE), GOOD).unwrap();
        let e = Experiment::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("k.cu"), "{e}");
    }
}
