//! Experiment files: `measurements/<id>/experiment.yaml` and the kernel sources beside it.
//!
//! An experiment is data (README, "The experiment format"): params and axes expanded into
//! configurations (`plan`), typed buffers, launches with their arguments, a reference the
//! outputs must match, metrics as expressions (`expr`). It is parsed and checked once,
//! here; `verify` and the site builder then trust it. Every error names the file and,
//! where it can be found, the line.

pub mod expr;
pub mod plan;
pub mod scaffold;
pub mod signature;
pub mod source;
pub mod spans;
pub mod types;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Location, Result};

pub use expr::{Expr, Num};
pub use source::KernelSource;
pub use spans::{Site, Spans, YamlPath};
pub use types::{ElemType, Fill, FillSpec, ScalarType, Tolerance};

pub const EXPERIMENT_FILE: &str = "experiment.yaml";
pub const DEFAULT_MAX_CONFIGS: usize = 1000;

/// An experiment as found on disk: its parsed spec and the digest of everything that
/// determines its numbers. A record whose digest differs from this is stale.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub id: String,
    pub dir: PathBuf,
    pub spec: ExperimentSpec,
    /// Where each key and value of the file is, for errors found later (planning, binding).
    pub spans: Spans,
    /// sha256 over the experiment file and each kernel source, in the order listed.
    pub digest: String,
}

/// What `verify` does with each configuration.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Check every configuration against the reference, then time it.
    #[default]
    Timed,
    /// Ask the driver what the timed launch would get; allocate and launch nothing.
    Occupancy,
}

/// A number or expression as written: YAML integers, decimals and strings all become the
/// expression's source text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ExprText", into = "String")]
pub struct ExprSrc(pub String);

#[derive(Deserialize)]
#[serde(untagged)]
enum ExprText {
    Int(i64),
    Float(f64),
    Text(String),
}

impl From<ExprText> for ExprSrc {
    fn from(t: ExprText) -> ExprSrc {
        ExprSrc(match t {
            ExprText::Int(i) => i.to_string(),
            ExprText::Float(f) => format!("{f:?}"),
            ExprText::Text(s) => s,
        })
    }
}

impl From<ExprSrc> for String {
    fn from(e: ExprSrc) -> String {
        e.0
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    pub title: String,
    /// Kernel source files beside the experiment file, compiled together by NVRTC.
    pub kernels: Vec<String>,
    /// NVRTC options; may use `{param}`. `--gpu-architecture` is added at run time.
    #[serde(default)]
    pub compile_options: Vec<String>,
    /// Compile for the node's arch-specific target (`sm_90a` for an `sm_90` node), which
    /// alone has instructions such as `wgmma`; its code runs on that architecture only.
    #[serde(default)]
    pub arch_specific: bool,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub mode: Mode,
    #[serde(default = "default_max_configs")]
    pub max_configs: usize,
    /// Named integers, evaluated in order.
    #[serde(default)]
    pub params: IndexMap<String, ExprSrc>,
    /// Cartesian product of these values.
    #[serde(default)]
    pub axes: IndexMap<String, Vec<ExprSrc>>,
    /// Label template (`ilp{ept}-b{blocks}`); default: each axis as name and value.
    #[serde(default)]
    pub label: Option<String>,
    /// Explicit configurations, after the product: `label` and values for params or axes.
    #[serde(default)]
    pub configs: Vec<IndexMap<String, ExprSrc>>,
    /// Per-config overrides of the product.
    #[serde(default)]
    pub overrides: Vec<Override>,
    #[serde(default)]
    pub buffers: IndexMap<String, BufferSpec>,
    pub launches: Vec<LaunchSpec>,
    #[serde(default)]
    pub reference: Option<ReferenceSpec>,
    #[serde(default)]
    pub metrics: IndexMap<String, MetricSpec>,
    /// Nsight Compute metrics read per config in one ncu pass, when ncu is installed.
    #[serde(default)]
    pub ncu_metrics: Vec<String>,
    #[serde(default)]
    pub timing: TimingPolicy,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Override {
    #[serde(rename = "where")]
    pub when: IndexMap<String, ExprSrc>,
    pub set: IndexMap<String, ExprSrc>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    #[serde(rename = "type")]
    pub ty: ElemType,
    /// Elements, an expression.
    pub length: ExprSrc,
    /// Contents before the launches; default zeros.
    #[serde(default)]
    pub fill: Option<FillSpec>,
    #[serde(default)]
    pub output: bool,
    #[serde(default)]
    pub tolerance: Option<Tolerance>,
}

/// `[x]`, `[x, y]` or `[x, y, z]`, or one expression for x.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Dims {
    List(Vec<ExprSrc>),
    One(ExprSrc),
}

impl Dims {
    pub fn parts(&self) -> Vec<&ExprSrc> {
        match self {
            Dims::One(e) => vec![e],
            Dims::List(v) => v.iter().collect(),
        }
    }

    /// Where part `i` is written, for dimensions written at `at`.
    pub fn site(&self, at: &YamlPath, i: usize) -> Site {
        match self {
            Dims::One(_) => at.value(),
            Dims::List(_) => at.index(i).value(),
        }
    }
}

/// An argument: a buffer by name, or a typed scalar `{u64: n}`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ArgSpec {
    Buffer(String),
    Scalar(IndexMap<String, ExprSrc>),
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// The `extern "C"` kernel; may use `{param}`.
    pub kernel: String,
    #[serde(default)]
    pub args: Vec<ArgSpec>,
    pub grid: Dims,
    pub block: Dims,
    /// Bytes of dynamic shared memory.
    #[serde(default)]
    pub dynamic_smem: Option<ExprSrc>,
    /// Resident blocks per SM to dial down to with never-read dynamic shared memory;
    /// 0 leaves the kernel's own residency.
    #[serde(default)]
    pub target_blocks_per_sm: Option<ExprSrc>,
    /// Preferred shared-memory carveout, percent of the maximum.
    #[serde(default)]
    pub carveout_percent: Option<ExprSrc>,
    #[serde(default)]
    pub timed: bool,
    /// An untimed launch enqueued again before every timing sample's first event (after
    /// the check, which runs it once like any launch): a kernel that keeps the GPU busy
    /// so that the sample's launches are all queued before the first of them runs, and
    /// the events time the GPU's cost per launch rather than the host's launch rate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before_each_sample: bool,
    /// Thread-block cluster dimensions: launched with `cuLaunchKernelEx` and a cluster
    /// dimension attribute. Absent: the plain launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<Dims>,
    /// Launches of the timed launch per timing sample, back to back between its two
    /// events (default 1). Only on the timed launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<ExprSrc>,
    /// Capture the `repeat` launches once into a CUDA graph and launch the graph once per
    /// sample: `true`, or an expression that is 1 (graph) or 0 (launched one by one) per
    /// config. Only on the timed launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<Switch>,
}

/// A yes/no a launch may also decide per config: `true`/`false`, or an expression whose
/// value is 1 or 0 (`graph: use_graph`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Switch {
    Fixed(bool),
    Expr(ExprSrc),
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReferenceSpec {
    /// Another configuration's launches (with its own params) on this config's inputs.
    #[serde(default)]
    pub config: Option<String>,
    /// Launches of their own, evaluated with this config's params.
    #[serde(default)]
    pub launches: Option<Vec<LaunchSpec>>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    pub value: ExprSrc,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub heading: Option<String>,
    #[serde(default)]
    pub decimals: Option<usize>,
    /// The physical limit this metric is read against (`dram`, `fp32`, `tensor_bf16`...):
    /// a name of the node's peaks in `glossary.toml`, so the row can be shown as a share of
    /// it and a row above it refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof: Option<String>,
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
    /// How far two runs' medians may differ and still be the SAME (`glossary compare`,
    /// a fraction: 0.05 = 5%). Default `measure::verdict::DEFAULT_TOLERANCE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproducibility: Option<f64>,
}

impl TimingPolicy {
    /// The SAME band of `glossary compare` for this experiment.
    pub fn tolerance(&self) -> f64 {
        self.reproducibility
            .unwrap_or(crate::measure::verdict::DEFAULT_TOLERANCE)
    }
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
            reproducibility: None,
        }
    }
}

fn default_seed() -> u64 {
    1
}
fn default_max_configs() -> usize {
    DEFAULT_MAX_CONFIGS
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

impl Experiment {
    pub fn load(dir: &Path) -> Result<Experiment> {
        let id = dir
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let path = dir.join(EXPERIMENT_FILE);
        let max = crate::config::MAX_EXPERIMENT_FILE_BYTES;
        let bytes = crate::config::read_bounded(&path, max)?;
        let text = String::from_utf8_lossy(&bytes);
        let spec = ExperimentSpec::parse(&path, &text)?;
        let spans = Spans::of(&text);
        let mut hasher = Sha256::new();
        hash_part(&mut hasher, EXPERIMENT_FILE, &bytes);
        for k in &spec.kernels {
            let kpath = dir.join(k);
            let kbytes = crate::config::read_bounded(&kpath, max)?;
            hash_part(&mut hasher, k, &kbytes);
        }
        Ok(Experiment {
            id,
            dir: dir.to_path_buf(),
            spec,
            spans,
            digest: format!("sha256:{}", hex::encode(hasher.finalize())),
        })
    }

    pub fn records_dir(&self) -> PathBuf {
        self.dir.join("records")
    }

    pub fn record_path(&self, node: &str) -> PathBuf {
        self.records_dir().join(format!("{node}.json"))
    }

    /// Where a run with failed configurations says what failed; the good record stays.
    pub fn failed_record_path(&self, node: &str) -> PathBuf {
        self.records_dir().join(format!("{node}.failed.json"))
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(EXPERIMENT_FILE)
    }

    /// Every quantity name a record of this experiment has: built in, params and numeric
    /// axes, metrics, ncu metrics. A string axis is in each row's label, not a quantity.
    pub fn quantity_names(&self) -> Vec<&str> {
        crate::measure::record::BUILT_IN
            .iter()
            .map(|(n, _)| *n)
            .chain(
                self.spec
                    .param_names()
                    .into_iter()
                    .filter(|n| !self.spec.is_string_axis(n)),
            )
            .chain(self.spec.metrics.keys().map(String::as_str))
            .chain(self.spec.ncu_metrics.iter().map(String::as_str))
            .chain(self.spec.launch_quantity_names())
            .collect()
    }

    /// The metrics read against a roof, in the file's order: what `measure::roofs` takes.
    pub fn roofed(&self) -> Vec<crate::measure::roofs::Roofed> {
        self.spec
            .metrics
            .iter()
            .filter_map(|(name, m)| {
                Some(crate::measure::roofs::Roofed {
                    metric: name.clone(),
                    roof: m.roof.clone()?,
                    unit: m.unit.clone(),
                })
            })
            .collect()
    }

    pub fn knows(&self, name: &str) -> bool {
        if let Some(metric) = crate::rates::share_column(name) {
            // `share(m)`: a metric that names a roof.
            return self
                .spec
                .metrics
                .get(metric)
                .is_some_and(|m| m.roof.is_some());
        }
        self.quantity_names().contains(&name)
    }

    /// An error about this file, at the line and column of `at` (when it has a place).
    pub fn error_at(&self, at: Option<&Site>, message: impl Into<String>) -> Error {
        let location = at.and_then(|s| self.spans.locate(s));
        Error::content(self.path(), location, message.into())
    }

    /// The architecture NVRTC compiles for on a node of `node_arch` (`sm_90`): that one,
    /// or with `arch_specific` its arch-specific target (`sm_90a`). Such targets begin
    /// with `sm_90`; asking one of an older node is an error at the key.
    pub fn target_arch(&self, node_arch: &str) -> Result<String> {
        if !self.spec.arch_specific {
            return Ok(node_arch.to_string());
        }
        let major = node_arch
            .strip_prefix("sm_")
            .filter(|v| v.len() >= 2 && v.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|v| v[..v.len() - 1].parse::<u32>().ok());
        match major {
            Some(m) if m >= 9 => Ok(format!("{node_arch}a")),
            _ => Err(self.error_at(
                Some(&YamlPath::top("arch_specific").value()),
                format!("`arch_specific`: the node's architecture {node_arch} has no arch-specific target (they begin with sm_90a)"),
            )),
        }
    }

    /// The kernel sources, concatenated in the order listed, as NVRTC compiles them.
    pub fn kernel_source(&self) -> Result<KernelSource> {
        let files: Vec<(String, PathBuf)> = self
            .spec
            .kernels
            .iter()
            .map(|k| (k.clone(), self.dir.join(k)))
            .collect();
        KernelSource::read(&files)
    }
}

/// Whether a compile option names `node_arch` (`--gpu-architecture=sm_90`) or its
/// arch-specific target (`=sm_90a`, see `Experiment::target_arch`): a record compiled
/// either way is of that node.
pub fn option_names_arch(option: &str, node_arch: &str) -> bool {
    option
        .rsplit_once('=')
        .is_some_and(|(_, a)| a == node_arch || a.strip_prefix(node_arch) == Some("a"))
}

/// A problem found in a file, with the key or value it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub at: Option<Site>,
    pub message: String,
}

impl Problem {
    pub fn new(at: Option<Site>, message: impl Into<String>) -> Problem {
        Problem {
            at,
            message: message.into(),
        }
    }
}

/// What nvidia-smi observed while a configuration's samples ran: the median SM clock
/// (MHz) and board power (W). Run observations, like times: a metric reading one is
/// timed, with no interval.
pub const OBSERVED_NAMES: &[&str] = &["sm_clock_mhz", "power_w"];

/// Names an expression may read besides params and axes, per place.
pub const LAUNCH_FACTS: &[&str] = &[
    "blocks_per_sm",
    "warps_per_sm",
    "occupancy",
    "registers",
    "grid_blocks",
    "block_threads",
    "smem_bytes",
    "waves",
    "max_active_clusters",
    "launches_per_sample",
];
pub const TIME_NAMES: &[&str] = &["median_ms", "min_ms", "max_ms", "mean_ms", "host_median_ms"];
/// The most launches of the timed launch one sample may time (`repeat`).
pub const MAX_REPEAT: i64 = 100_000;
/// The largest thread-block cluster every GPU with clusters launches (the portable size).
pub const MAX_PORTABLE_CLUSTER: u64 = 8;

impl ExperimentSpec {
    /// Parse and check `text`, the contents of `path`: everything that does not depend on
    /// a param's value (that is `plan`'s work).
    pub fn parse(path: &Path, text: &str) -> Result<ExperimentSpec> {
        // Before serde_norway, which is slow on deep nesting (see `yaml_depth`).
        crate::yaml_depth::check(text).map_err(|d| {
            let at = Location {
                line: d.line,
                column: d.column,
            };
            Error::content(path, Some(at), d.to_string())
        })?;
        let spec: ExperimentSpec = serde_yaml::from_str(text).map_err(|e| {
            let at = e.location().map(|l| Location {
                line: l.line(),
                column: l.column(),
            });
            Error::content(path, at, e.to_string())
        })?;
        let mut problems = spec.problems();
        if problems.is_empty() {
            return Ok(spec);
        }
        let mut seen = HashSet::new();
        problems.retain(|p| seen.insert((p.at.clone(), p.message.clone())));
        let spans = Spans::of(text);
        let errors = problems
            .into_iter()
            .map(|p| {
                let at = p.at.as_ref().and_then(|s| spans.locate(s));
                Error::content(path, at, p.message)
            })
            .collect();
        Error::collect(errors)?;
        Ok(spec)
    }

    /// Every name a config binds: params, then axes.
    pub fn param_names(&self) -> Vec<&str> {
        self.params
            .keys()
            .chain(self.axes.keys())
            .map(String::as_str)
            .collect()
    }

    /// An axis of strings (`variant: [naive, tiled]`): its values name things (kernels,
    /// labels, compile options) and are never numbers. Its first value decides; an axis
    /// mixing both kinds is an error.
    pub fn is_string_axis(&self, name: &str) -> bool {
        self.axes
            .get(name)
            .and_then(|v| v.first())
            .is_some_and(|v| is_string_value(&v.0))
    }

    /// The index of the timed launch.
    pub fn timed_launch(&self) -> usize {
        self.launches.iter().position(|l| l.timed).unwrap_or(0)
    }

    /// The quantities a row gets from how its timed launch runs: `max_active_clusters`
    /// for a cluster launch, `launches_per_sample` with `repeat` or `graph`, and the
    /// board power nvidia-smi read while a timed experiment's samples ran (`power_w`).
    pub fn launch_quantity_names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if let Some(l) = self.launches.get(self.timed_launch()) {
            if l.cluster.is_some() {
                out.push("max_active_clusters");
            }
            if l.repeat.is_some() || l.graph.is_some() {
                out.push("launches_per_sample");
            }
        }
        if self.mode == Mode::Timed {
            out.push("power_w");
        }
        out
    }

    fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut bad = |at: Site, message: String| out.push(Problem::new(Some(at), message));
        let top = YamlPath::top;
        if self.kernels.is_empty() {
            bad(
                top("kernels").value(),
                "`kernels` lists no source file".into(),
            );
        }
        for (i, k) in self.kernels.iter().enumerate() {
            if !is_kernel_file_name(k) {
                bad(
                    top("kernels").index(i).value(),
                    format!("kernel `{k}` must be a file name beside the experiment file (letters, digits, '_', '-', '.', not starting with '.')"),
                );
            }
        }
        for (i, o) in self.compile_options.iter().enumerate() {
            if o.starts_with("--gpu-architecture") || o.starts_with("-arch") {
                bad(
                    top("compile_options").index(i).value(),
                    format!("compile option `{o}`: the architecture is taken from the device at run time"),
                );
            }
        }
        if self.max_configs == 0 {
            bad(
                top("max_configs").value(),
                "`max_configs` must be at least 1".into(),
            );
        }
        // Names: params, axes, device properties and built-ins must not collide.
        let name_site = |name: &str| {
            if self.params.contains_key(name) {
                top("params").key(name).name()
            } else {
                top("axes").key(name).name()
            }
        };
        let mut seen = HashSet::new();
        for name in self.param_names() {
            if !is_identifier(name) {
                bad(
                    name_site(name),
                    format!("`{name}` is not a name (letters, digits, '_')"),
                );
            }
            if !seen.insert(name) {
                bad(
                    top("axes").key(name).name(),
                    format!("`{name}` is both a param and an axis"),
                );
            }
            if plan::DEVICE_VARS.contains(&name)
                || LAUNCH_FACTS.contains(&name)
                || TIME_NAMES.contains(&name)
                || OBSERVED_NAMES.contains(&name)
                || name == "label"
            {
                bad(
                    name_site(name),
                    format!("`{name}` is a built-in name (device property, launch fact or time) and cannot be a param"),
                );
            }
        }
        for (name, values) in &self.axes {
            let axis = top("axes").key(name);
            if values.is_empty() {
                bad(axis.name(), format!("axis `{name}` lists no value"));
                continue;
            }
            // One kind per axis, set by its first value.
            let strings = is_string_value(&values[0].0);
            for (i, v) in values.iter().enumerate().skip(1) {
                if is_string_value(&v.0) != strings {
                    let (this, first) = if strings {
                        ("a number or expression", "strings")
                    } else {
                        ("a string (or an unknown name)", "numbers")
                    };
                    bad(
                        axis.index(i).value(),
                        format!("axis `{name}`: `{}` is {this}, but the axis's first value makes it an axis of {first} (an axis holds strings or numbers, not both)", v.0),
                    );
                }
            }
        }
        // Every expression must parse; names are checked when configs are planned.
        let mut exprs: Vec<(Site, &ExprSrc)> = Vec::new();
        for (k, v) in &self.params {
            exprs.push((top("params").key(k).value(), v));
        }
        for (name, values) in &self.axes {
            if !self.is_string_axis(name) {
                for (i, v) in values.iter().enumerate() {
                    exprs.push((top("axes").key(name).index(i).value(), v));
                }
            }
        }
        // A string axis set by a config or an override: a string, never arithmetic.
        let mut settings = Vec::new();
        for (ci, c) in self.configs.iter().enumerate() {
            let at = top("configs").index(ci);
            for (k, v) in c {
                if k == "label" {
                    if !is_label(&v.0) {
                        bad(
                            at.key(k).value(),
                            format!("label `{}` must be lowercase letters, digits and '-'", v.0),
                        );
                    }
                    continue;
                }
                if !self.params.contains_key(k) && !self.axes.contains_key(k) {
                    bad(
                        at.key(k).name(),
                        format!("config sets `{k}`, which is not a param or an axis"),
                    );
                }
                settings.push((at.key(k), k, v));
            }
        }
        for (oi, o) in self.overrides.iter().enumerate() {
            let at = top("overrides").index(oi);
            for (part, map) in [("where", &o.when), ("set", &o.set)] {
                for (k, v) in map {
                    if !self.params.contains_key(k) && !self.axes.contains_key(k) {
                        bad(
                            at.key(part).key(k).name(),
                            format!("override names `{k}`, which is not a param or an axis"),
                        );
                    }
                    settings.push((at.key(part).key(k), k, v));
                }
            }
        }
        for (at, k, v) in settings {
            if !self.is_string_axis(k) {
                exprs.push((at.value(), v));
            } else if !is_string_value(&v.0) {
                bad(
                    at.value(),
                    format!("`{k}` is a string axis: `{}` is not a string value (letters, digits and '_', not a device property)", v.0),
                );
            }
        }
        for (name, b) in &self.buffers {
            let at = top("buffers").key(name);
            if !is_identifier(name) {
                bad(
                    at.name(),
                    format!("buffer `{name}` is not a name (letters, digits, '_')"),
                );
            }
            exprs.push((at.key("length").value(), &b.length));
            match (&b.tolerance, b.output, b.ty.is_float()) {
                (None, true, true) if self.mode == Mode::Timed => bad(
                    at.name(),
                    format!("output buffer `{name}` is {}: give a `tolerance` (abs, rel or ulps)", b.ty.name()),
                ),
                (Some(_), _, false) => bad(
                    at.key("tolerance").value(),
                    format!("buffer `{name}` is {}: integer outputs match exactly, a tolerance does not apply", b.ty.name()),
                ),
                (Some(_), false, _) => bad(
                    at.key("tolerance").value(),
                    format!("buffer `{name}` has a tolerance but is not an output"),
                ),
                _ => {}
            }
            if let Some(t) = &b.tolerance {
                if let Err(e) = t.check() {
                    bad(at.key("tolerance").value(), format!("buffer `{name}`: {e}"));
                }
            }
            if let Some(f) = &b.fill {
                if let Err(e) = f.check(b.ty) {
                    bad(at.key("fill").value(), format!("buffer `{name}`: {e}"));
                }
                if let FillSpec::Cycle(stride) = f {
                    exprs.push((at.key("fill").key("cycle").value(), stride));
                }
            }
        }
        if self.launches.is_empty() {
            bad(top("launches").value(), "`launches` lists no launch".into());
        }
        let timed = self.launches.iter().filter(|l| l.timed).count();
        if self.launches.len() > 1 && timed != 1 {
            bad(
                top("launches").name(),
                format!(
                    "with {} launches, exactly one needs `timed: true` ({timed} have it)",
                    self.launches.len()
                ),
            );
        }
        let mut launch_lists: Vec<(YamlPath, &Vec<LaunchSpec>)> =
            vec![(top("launches"), &self.launches)];
        let outputs = self.buffers.values().any(|b| b.output);
        match (&self.reference, self.mode) {
            (None, Mode::Timed) if outputs => bad(
                top("buffers").name(),
                "outputs need a `reference` to be checked against (`reference: {launches: [...]}` or `{config: LABEL}`)".into(),
            ),
            (Some(r), _) => match (&r.config, &r.launches) {
                (Some(label), None) => {
                    if !self.configs.iter().any(|c| c.get("label").is_some_and(|l| &l.0 == label))
                        && self.label.is_none()
                        && self.axes.is_empty()
                    {
                        bad(top("reference").key("config").value(), format!("reference config `{label}` is not a configuration of this experiment"));
                    }
                }
                (None, Some(l)) => {
                    if l.is_empty() {
                        bad(top("reference").key("launches").value(), "`reference.launches` lists no launch".into());
                    }
                    launch_lists.push((top("reference").key("launches"), l));
                }
                _ => bad(top("reference").name(), "`reference` needs exactly one of `config` or `launches`".into()),
            },
            _ => {}
        }
        for (list_i, (list_at, list)) in launch_lists.iter().enumerate() {
            for (li, l) in list.iter().enumerate() {
                let at = list_at.index(li);
                let kernel_at = at.key("kernel").value();
                if !is_template_identifier(&l.kernel) {
                    bad(
                        kernel_at.clone(),
                        format!(
                            "kernel `{}` is not a C identifier (with optional {{param}} parts)",
                            l.kernel
                        ),
                    );
                }
                for (ai, a) in l.args.iter().enumerate() {
                    let arg_at = at.key("args").index(ai);
                    match a {
                        ArgSpec::Buffer(b) => {
                            if !self.buffers.contains_key(b) {
                                let known: Vec<&str> =
                                    self.buffers.keys().map(String::as_str).collect();
                                bad(arg_at.value(), format!(
                                    "kernel `{}`: argument `{b}` is not a buffer (buffers: {}); a scalar needs its type, e.g. {{u64: {b}}}",
                                    l.kernel, if known.is_empty() { "none".into() } else { known.join(", ") }
                                ));
                            }
                        }
                        ArgSpec::Scalar(m) => {
                            if m.len() != 1 {
                                bad(
                                    arg_at.value(),
                                    format!(
                                        "kernel `{}`: a scalar argument is one `type: value` pair",
                                        l.kernel
                                    ),
                                );
                            }
                            for (ty, v) in m {
                                if ScalarType::from_name(ty).is_none() {
                                    bad(arg_at.key(ty).name(), format!("kernel `{}`: `{ty}` is not a scalar type (i32, u32, i64, u64, f32, f64)", l.kernel));
                                }
                                exprs.push((arg_at.key(ty).value(), v));
                            }
                        }
                    }
                }
                for (what, d) in [("grid", &l.grid), ("block", &l.block)] {
                    let parts = d.parts();
                    if parts.is_empty() || parts.len() > 3 {
                        bad(
                            at.key(what).value(),
                            format!(
                                "kernel `{}`: `{what}` has 1 to 3 dimensions, not {}",
                                l.kernel,
                                parts.len()
                            ),
                        );
                    }
                    for (i, p) in parts.into_iter().enumerate() {
                        exprs.push((d.site(&at.key(what), i), p));
                    }
                }
                if l.dynamic_smem.is_some() && l.target_blocks_per_sm.is_some() {
                    bad(
                        at.key("target_blocks_per_sm").name(),
                        format!(
                            "kernel `{}`: give `dynamic_smem` or `target_blocks_per_sm`, not both",
                            l.kernel
                        ),
                    );
                }
                for (key, e) in [
                    ("dynamic_smem", &l.dynamic_smem),
                    ("target_blocks_per_sm", &l.target_blocks_per_sm),
                    ("carveout_percent", &l.carveout_percent),
                    ("repeat", &l.repeat),
                ] {
                    if let Some(e) = e {
                        exprs.push((at.key(key).value(), e));
                    }
                }
                if let Some(Switch::Expr(e)) = &l.graph {
                    exprs.push((at.key("graph").value(), e));
                }
                if let Some(d) = &l.cluster {
                    let parts = d.parts();
                    if parts.is_empty() || parts.len() > 3 {
                        bad(
                            at.key("cluster").value(),
                            format!(
                                "kernel `{}`: `cluster` has 1 to 3 dimensions, not {}",
                                l.kernel,
                                parts.len()
                            ),
                        );
                    }
                    for (i, p) in parts.into_iter().enumerate() {
                        exprs.push((d.site(&at.key("cluster"), i), p));
                    }
                }
                // `repeat` and `graph` shape how the timed launch is timed; any other
                // launch runs once.
                let timed_here = list_i == 0 && li == self.timed_launch();
                if l.before_each_sample && (list_i != 0 || timed_here) {
                    bad(
                        at.key("before_each_sample").name(),
                        format!(
                            "kernel `{}`: `before_each_sample` belongs on an untimed launch of `launches` (it runs before each sample of the timed one)",
                            l.kernel
                        ),
                    );
                }
                for (key, given) in [("repeat", l.repeat.is_some()), ("graph", l.graph.is_some())] {
                    if given && !timed_here {
                        bad(
                            at.key(key).name(),
                            format!(
                                "kernel `{}`: `{key}` belongs on the timed launch only (this launch runs once)",
                                l.kernel
                            ),
                        );
                    }
                }
            }
        }
        for (name, m) in &self.metrics {
            let at = top("metrics").key(name);
            if !is_identifier(name) {
                bad(
                    at.name(),
                    format!("metric `{name}` is not a name (letters, digits, '_')"),
                );
            }
            if ["max_active_clusters", "launches_per_sample"].contains(&name.as_str()) {
                bad(
                    at.name(),
                    format!("metric `{name}` has a built-in name (a launch fact)"),
                );
            }
            if self.params.contains_key(name) || self.axes.contains_key(name) {
                bad(at.name(), format!("metric `{name}` has a param's name"));
            }
            if OBSERVED_NAMES.contains(&name.as_str()) {
                bad(
                    at.name(),
                    format!("metric `{name}` has a built-in name (an observation)"),
                );
            }
            if let Some(roof) = &m.roof {
                if let Err(why) = crate::rates::metric_fits_roof(roof, &m.unit) {
                    bad(at.key("roof").value(), format!("metric `{name}`: {why}"));
                }
            }
            exprs.push((at.key("value").value(), &m.value));
        }
        // What a metric may read: params, device, launch facts, time, ncu metrics and
        // the metrics before it. A string axis is refused below, for every expression.
        let mut readable: Vec<&str> = self.param_names();
        readable.extend(plan::DEVICE_VARS);
        readable.extend(LAUNCH_FACTS);
        readable.extend(TIME_NAMES);
        readable.extend(OBSERVED_NAMES);
        readable.extend(self.ncu_metrics.iter().map(String::as_str));
        let clustered = self
            .launches
            .get(self.timed_launch())
            .is_some_and(|l| l.cluster.is_some());
        for (name, m) in &self.metrics {
            if let Ok(e) = Expr::parse(&m.value.0) {
                for n in e.names() {
                    if !readable.contains(&n) {
                        bad(top("metrics").key(name).key("value").value(), format!(
                            "metric `{name}`: unknown name `{n}` in `{}` (a metric reads params, device properties, launch facts such as warps_per_sm, times such as median_ms, observations such as power_w, ncu metrics and earlier metrics)",
                            m.value.0
                        ));
                    } else if n == "max_active_clusters" && !clustered {
                        bad(top("metrics").key(name).key("value").value(), format!(
                            "metric `{name}`: `max_active_clusters` needs a `cluster` on the timed launch"
                        ));
                    }
                }
            }
            readable.push(name);
        }
        for (i, m) in self.ncu_metrics.iter().enumerate() {
            let ok = !m.is_empty()
                && m.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                && m.contains("__");
            if !ok {
                bad(
                    top("ncu_metrics").index(i).value(),
                    format!(
                        "`{m}` is not an Nsight Compute metric name (like dram__bytes_read.sum)"
                    ),
                );
            }
        }
        for (at, e) in exprs {
            match Expr::parse(&e.0) {
                Err(why) => bad(at, why),
                Ok(parsed) => {
                    for n in parsed.names() {
                        if let Some(values) = self.axes.get(n).filter(|_| self.is_string_axis(n)) {
                            let shown: Vec<&str> = values.iter().map(|v| v.0.as_str()).collect();
                            bad(at.clone(), format!(
                                "`{n}` is a string axis ({}): it can name kernels, labels and compile options as `{{{n}}}`, but not be used in arithmetic (`{}`)",
                                shown.join(", "), e.0
                            ));
                        }
                    }
                }
            }
        }
        if let Some(l) = &self.label {
            if let Err(e) = plan::check_template(l, &self.param_names()) {
                bad(top("label").value(), format!("label template: {e}"));
            }
        }
        let t = &self.timing;
        let timing = top("timing");
        if !(t.max_rsd > 0.0 && t.max_rsd < 1.0) {
            bad(
                timing.key("max_rsd").value(),
                format!("`max_rsd` {} must be between 0 and 1", t.max_rsd),
            );
        }
        if let Some(r) = t.reproducibility {
            if !(r > 0.0 && r < 1.0) {
                bad(
                    timing.key("reproducibility").value(),
                    format!("`reproducibility` {r} must be between 0 and 1 (0.05 = 5%)"),
                );
            }
        }
        if t.min_samples < 3 {
            bad(
                timing.key("min_samples").value(),
                "`min_samples` must be at least 3".into(),
            );
        }
        if t.max_samples < t.min_samples {
            bad(
                timing.key("max_samples").value(),
                "`max_samples` is below `min_samples`".into(),
            );
        }
        if t.time_cap_ms.is_nan() || t.time_cap_ms <= 0.0 {
            bad(
                timing.key("time_cap_ms").value(),
                "`time_cap_ms` must be positive".into(),
            );
        }
        if t.warmup_ms.is_nan() || t.warmup_ms < 0.0 {
            bad(
                timing.key("warmup_ms").value(),
                "`warmup_ms` must not be negative".into(),
            );
        }
        out
    }
}

pub fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A string axis value: a name (letters, digits, '_'; not a digit first) that is not a
/// device property, which reads as that property's number.
pub fn is_string_value(s: &str) -> bool {
    is_identifier(s) && !plan::DEVICE_VARS.contains(&s)
}

/// A kernel source file's name: an allow-list, so that it is a file beside the experiment
/// file and can be named in a `#line` directive as it is.
fn is_kernel_file_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `axpy_ept{ept}`: an identifier once each `{name}` is replaced by digits.
fn is_template_identifier(s: &str) -> bool {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('}') else {
            return false;
        };
        out.push('1');
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    let mut chars = out.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Length-prefixed so that moving bytes between files changes the digest.
fn hash_part(hasher: &mut Sha256, name: &str, bytes: &[u8]) {
    hasher.update((name.len() as u64).to_le_bytes());
    hasher.update(name.as_bytes());
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

#[cfg(test)]
mod tests;
