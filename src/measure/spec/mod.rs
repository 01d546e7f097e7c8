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
pub mod spans;
pub mod types;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Location, Result};

pub use expr::{Expr, Num};
pub use types::{ElemType, Fill, ScalarType, Tolerance};

pub const EXPERIMENT_FILE: &str = "experiment.yaml";
pub const DEFAULT_MAX_CONFIGS: usize = 1000;

/// An experiment as found on disk: its parsed spec and the digest of everything that
/// determines its numbers. A record whose digest differs from this is stale.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub id: String,
    pub dir: PathBuf,
    pub spec: ExperimentSpec,
    /// The file's text, to find the line of an error found later (planning, binding).
    pub text: String,
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
    pub fill: Option<Fill>,
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
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
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
            text,
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

    /// Every quantity name a record of this experiment has: built in, params and axes,
    /// metrics, ncu metrics.
    pub fn quantity_names(&self) -> Vec<&str> {
        crate::measure::record::BUILT_IN
            .iter()
            .map(|(n, _)| *n)
            .chain(self.spec.param_names())
            .chain(self.spec.metrics.keys().map(String::as_str))
            .chain(self.spec.ncu_metrics.iter().map(String::as_str))
            .collect()
    }

    pub fn knows(&self, name: &str) -> bool {
        self.quantity_names().contains(&name)
    }

    /// An error about this file, at the first line holding `near` (if given and found).
    /// A kernel is looked for as `kernel: NAME`, then quoted, then as a bare word.
    pub fn error_near(&self, near: Option<&str>, message: impl Into<String>) -> Error {
        let at = near.and_then(|n| {
            line_of(&self.text, n).or_else(|| {
                let name = n.strip_prefix("kernel: ")?;
                line_of(&self.text, &format!("kernel: \"{name}\""))
                    .or_else(|| line_of(&self.text, name))
            })
        });
        Error::content(self.path(), at, message.into())
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

/// A problem found in a file, with a text to look for to find its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub near: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn new(near: Option<&str>, message: impl Into<String>) -> Problem {
        Problem {
            near: near.map(str::to_string),
            message: message.into(),
        }
    }
}

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
];
pub const TIME_NAMES: &[&str] = &["median_ms", "min_ms", "max_ms", "mean_ms"];

impl ExperimentSpec {
    /// Parse and check `text`, the contents of `path`: everything that does not depend on
    /// a param's value (that is `plan`'s work).
    pub fn parse(path: &Path, text: &str) -> Result<ExperimentSpec> {
        let spec: ExperimentSpec = serde_yaml::from_str(text).map_err(|e| {
            let at = e.location().map(|l| Location {
                line: l.line(),
                column: l.column(),
            });
            Error::content(path, at, e.to_string())
        })?;
        let mut problems = spec.problems();
        let mut seen = HashSet::new();
        problems.retain(|p| seen.insert((p.near.clone(), p.message.clone())));
        let errors = problems
            .into_iter()
            .map(|p| {
                let at = p.near.as_deref().and_then(|n| line_of(text, n));
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

    /// The index of the timed launch.
    pub fn timed_launch(&self) -> usize {
        self.launches.iter().position(|l| l.timed).unwrap_or(0)
    }

    fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut bad = |near: Option<&str>, message: String| out.push(Problem::new(near, message));
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
        }
        if self.max_configs == 0 {
            bad(
                Some("max_configs"),
                "`max_configs` must be at least 1".into(),
            );
        }
        // Names: params, axes, device properties and built-ins must not collide.
        let mut seen = HashSet::new();
        for name in self.param_names() {
            if !is_identifier(name) {
                bad(
                    Some(name),
                    format!("`{name}` is not a name (letters, digits, '_')"),
                );
            }
            if !seen.insert(name) {
                bad(Some(name), format!("`{name}` is both a param and an axis"));
            }
            if plan::DEVICE_VARS.contains(&name)
                || LAUNCH_FACTS.contains(&name)
                || TIME_NAMES.contains(&name)
                || name == "label"
            {
                bad(
                    Some(name),
                    format!("`{name}` is a built-in name (device property, launch fact or time) and cannot be a param"),
                );
            }
        }
        for (name, values) in &self.axes {
            if values.is_empty() {
                bad(Some(name), format!("axis `{name}` lists no value"));
            }
        }
        // Every expression must parse; names are checked when configs are planned.
        let mut exprs: Vec<(&str, &ExprSrc)> = Vec::new();
        for (k, v) in &self.params {
            exprs.push((k, v));
        }
        for v in self.axes.values().flatten() {
            exprs.push(("axes", v));
        }
        for c in &self.configs {
            for (k, v) in c {
                if k == "label" {
                    if !is_label(&v.0) {
                        bad(
                            Some(&v.0),
                            format!("label `{}` must be lowercase letters, digits and '-'", v.0),
                        );
                    }
                    continue;
                }
                if !self.params.contains_key(k) && !self.axes.contains_key(k) {
                    bad(
                        Some(k),
                        format!("config sets `{k}`, which is not a param or an axis"),
                    );
                }
                exprs.push((k, v));
            }
        }
        for o in &self.overrides {
            for (k, v) in o.when.iter().chain(&o.set) {
                if !self.params.contains_key(k) && !self.axes.contains_key(k) {
                    bad(
                        Some(k),
                        format!("override names `{k}`, which is not a param or an axis"),
                    );
                }
                exprs.push((k, v));
            }
        }
        for (name, b) in &self.buffers {
            if !is_identifier(name) {
                bad(
                    Some(name),
                    format!("buffer `{name}` is not a name (letters, digits, '_')"),
                );
            }
            exprs.push((name, &b.length));
            match (&b.tolerance, b.output, b.ty.is_float()) {
                (None, true, true) if self.mode == Mode::Timed => bad(
                    Some(name),
                    format!("output buffer `{name}` is {}: give a `tolerance` (abs, rel or ulps)", b.ty.name()),
                ),
                (Some(_), _, false) => bad(
                    Some(name),
                    format!("buffer `{name}` is {}: integer outputs match exactly, a tolerance does not apply", b.ty.name()),
                ),
                (Some(_), false, _) => bad(
                    Some(name),
                    format!("buffer `{name}` has a tolerance but is not an output"),
                ),
                _ => {}
            }
            if let Some(t) = &b.tolerance {
                if let Err(e) = t.check() {
                    bad(Some(name), format!("buffer `{name}`: {e}"));
                }
            }
            if let Some(f) = &b.fill {
                if let Err(e) = f.check(b.ty) {
                    bad(Some(name), format!("buffer `{name}`: {e}"));
                }
            }
        }
        if self.launches.is_empty() {
            bad(Some("launches"), "`launches` lists no launch".into());
        }
        let timed = self.launches.iter().filter(|l| l.timed).count();
        if self.launches.len() > 1 && timed != 1 {
            bad(
                Some("launches"),
                format!(
                    "with {} launches, exactly one needs `timed: true` ({timed} have it)",
                    self.launches.len()
                ),
            );
        }
        let mut launch_lists: Vec<(&str, &Vec<LaunchSpec>)> = vec![("launches", &self.launches)];
        let outputs = self.buffers.values().any(|b| b.output);
        match (&self.reference, self.mode) {
            (None, Mode::Timed) if outputs => bad(
                Some("buffers"),
                "outputs need a `reference` to be checked against (`reference: {launches: [...]}` or `{config: LABEL}`)".into(),
            ),
            (Some(r), _) => match (&r.config, &r.launches) {
                (Some(label), None) => {
                    if !self.configs.iter().any(|c| c.get("label").is_some_and(|l| &l.0 == label))
                        && self.label.is_none()
                        && self.axes.is_empty()
                    {
                        bad(Some(label), format!("reference config `{label}` is not a configuration of this experiment"));
                    }
                }
                (None, Some(l)) => {
                    if l.is_empty() {
                        bad(Some("reference"), "`reference.launches` lists no launch".into());
                    }
                    launch_lists.push(("reference", l));
                }
                _ => bad(Some("reference"), "`reference` needs exactly one of `config` or `launches`".into()),
            },
            _ => {}
        }
        for (_, list) in &launch_lists {
            for l in list.iter() {
                if !is_template_identifier(&l.kernel) {
                    bad(
                        Some(&l.kernel),
                        format!(
                            "kernel `{}` is not a C identifier (with optional {{param}} parts)",
                            l.kernel
                        ),
                    );
                }
                for a in &l.args {
                    match a {
                        ArgSpec::Buffer(b) => {
                            if !self.buffers.contains_key(b) {
                                let known: Vec<&str> =
                                    self.buffers.keys().map(String::as_str).collect();
                                bad(Some(b), format!(
                                    "kernel `{}`: argument `{b}` is not a buffer (buffers: {}); a scalar needs its type, e.g. {{u64: {b}}}",
                                    l.kernel, if known.is_empty() { "none".into() } else { known.join(", ") }
                                ));
                            }
                        }
                        ArgSpec::Scalar(m) => {
                            if m.len() != 1 {
                                bad(
                                    Some(&l.kernel),
                                    format!(
                                        "kernel `{}`: a scalar argument is one `type: value` pair",
                                        l.kernel
                                    ),
                                );
                            }
                            for (ty, v) in m {
                                if ScalarType::from_name(ty).is_none() {
                                    bad(Some(ty), format!("kernel `{}`: `{ty}` is not a scalar type (i32, u32, i64, u64, f32, f64)", l.kernel));
                                }
                                exprs.push((ty, v));
                            }
                        }
                    }
                }
                for (what, d) in [("grid", &l.grid), ("block", &l.block)] {
                    let parts = d.parts();
                    if parts.is_empty() || parts.len() > 3 {
                        bad(
                            Some(what),
                            format!(
                                "kernel `{}`: `{what}` has 1 to 3 dimensions, not {}",
                                l.kernel,
                                parts.len()
                            ),
                        );
                    }
                    for p in parts {
                        exprs.push((what, p));
                    }
                }
                if l.dynamic_smem.is_some() && l.target_blocks_per_sm.is_some() {
                    bad(
                        Some(&l.kernel),
                        format!(
                            "kernel `{}`: give `dynamic_smem` or `target_blocks_per_sm`, not both",
                            l.kernel
                        ),
                    );
                }
                for e in [
                    &l.dynamic_smem,
                    &l.target_blocks_per_sm,
                    &l.carveout_percent,
                ]
                .into_iter()
                .flatten()
                {
                    exprs.push((&l.kernel, e));
                }
            }
        }
        for (name, m) in &self.metrics {
            if !is_identifier(name) {
                bad(
                    Some(name),
                    format!("metric `{name}` is not a name (letters, digits, '_')"),
                );
            }
            if self.params.contains_key(name) || self.axes.contains_key(name) {
                bad(Some(name), format!("metric `{name}` has a param's name"));
            }
            exprs.push((name, &m.value));
        }
        // What a metric may read: params, device, launch facts, time, ncu metrics and
        // the metrics before it.
        let mut readable: Vec<&str> = self.param_names();
        readable.extend(plan::DEVICE_VARS);
        readable.extend(LAUNCH_FACTS);
        readable.extend(TIME_NAMES);
        readable.extend(self.ncu_metrics.iter().map(String::as_str));
        for (name, m) in &self.metrics {
            if let Ok(e) = Expr::parse(&m.value.0) {
                for n in e.names() {
                    if !readable.contains(&n) {
                        bad(Some(&m.value.0), format!(
                            "metric `{name}`: unknown name `{n}` in `{}` (a metric reads params, device properties, launch facts such as warps_per_sm, times such as median_ms, ncu metrics and earlier metrics)",
                            m.value.0
                        ));
                    }
                }
            }
            readable.push(name);
        }
        for m in &self.ncu_metrics {
            let ok = !m.is_empty()
                && m.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                && m.contains("__");
            if !ok {
                bad(
                    Some(m),
                    format!(
                        "`{m}` is not an Nsight Compute metric name (like dram__bytes_read.sum)"
                    ),
                );
            }
        }
        for (near, e) in exprs {
            if let Err(why) = Expr::parse(&e.0) {
                bad(Some(if e.0.is_empty() { near } else { &e.0 }), why);
            }
        }
        if let Some(l) = &self.label {
            if let Err(e) = plan::check_template(l, &self.param_names()) {
                bad(Some("label"), format!("label template: {e}"));
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
        out
    }
}

pub fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
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

/// The 1-based line of the first line that holds `needle` as a whole word, column 1.
pub fn line_of(text: &str, needle: &str) -> Option<Location> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.lines().enumerate().find_map(|(i, line)| {
        // Comments are not where anything is defined.
        let line = match line.find('#') {
            Some(0) => "",
            Some(i) if line[..i].ends_with(' ') => &line[..i],
            _ => line,
        };
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
mod tests;
