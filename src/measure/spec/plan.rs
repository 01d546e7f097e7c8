//! From an experiment to its configurations: axes expanded as a cartesian product (NVBench
//! style), explicit configs and overrides applied, params evaluated in order, labels
//! generated, and every launch made concrete (kernel name, argument bytes, grid, block,
//! shared memory). Pure: no GPU. The device's properties come in as numbers, read from
//! the GPU on the node or from the node's profile for a dry run without one.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Serialize;

use super::expr::{Expr, Num};
use super::spans::{Site, YamlPath};
use super::types::{ElemType, Fill, FillSpec, ScalarType, Tolerance};
use super::{ArgSpec, Dims, Experiment, ExperimentSpec, ExprSrc, LaunchSpec, Problem};

/// Device properties an expression may read, recorded with every record.
pub const DEVICE_VARS: &[&str] = &[
    "sm_count",
    "l2_bytes",
    "mem_bytes",
    "warp_size",
    "max_threads_per_sm",
    "max_threads_per_block",
    "max_blocks_per_sm",
    "regs_per_sm",
    "smem_per_sm",
    "smem_per_block_optin",
    "clock_mhz",
];

/// Device property values; a property missing here is unknown (an error if used).
pub type DeviceVars = BTreeMap<String, i64>;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BufferPlan {
    pub name: String,
    pub ty: ElemType,
    pub len: u64,
    pub fill: Fill,
    pub output: bool,
    pub tolerance: Option<Tolerance>,
}

impl BufferPlan {
    pub fn bytes(&self) -> u64 {
        self.len * self.ty.size() as u64
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Arg {
    /// Index into the config's buffers.
    Buffer(usize),
    Scalar {
        ty: ScalarType,
        bytes: Vec<u8>,
        shown: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Smem {
    Bytes(u32),
    /// Dial resident blocks per SM down to this with never-read dynamic shared memory.
    TargetBlocks(u32),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaunchPlan {
    pub kernel: String,
    /// Where the launch is written (`launches[0]`), for errors found later.
    #[serde(skip)]
    pub at: YamlPath,
    pub args: Vec<Arg>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub smem: Smem,
    pub carveout: Option<u32>,
    /// Thread-block cluster dimensions (`cuLaunchKernelEx`); None: the plain launch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<[u32; 3]>,
    /// How each timing sample runs this launch (the timed launch only; else once).
    #[serde(skip_serializing_if = "Sampling::is_once")]
    pub sampling: Sampling,
    /// Enqueued again before every timing sample (`before_each_sample`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub before_each_sample: bool,
}

/// What one timing sample of the timed launch is: `repeat` launches back to back,
/// launched one by one or as one CUDA graph captured once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Sampling {
    pub repeat: u32,
    pub graph: bool,
}

impl Sampling {
    /// One plain launch per sample: every launch but a timed one with `repeat`/`graph`.
    pub const ONCE: Sampling = Sampling {
        repeat: 1,
        graph: false,
    };

    pub fn is_once(&self) -> bool {
        *self == Sampling::ONCE
    }
}

impl LaunchPlan {
    pub fn block_threads(&self) -> u32 {
        self.block.iter().product()
    }
    pub fn grid_blocks(&self) -> u64 {
        self.grid.iter().map(|g| *g as u64).product()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigPlan {
    pub label: String,
    /// Every param and number axis value of this configuration.
    pub params: IndexMap<String, i64>,
    /// Every string axis value (`variant: tiled`).
    pub strings: IndexMap<String, String>,
    /// NVRTC options with `{param}`s filled in (the architecture is added at run time).
    pub compile_options: Vec<String>,
    pub buffers: Vec<BufferPlan>,
    pub launches: Vec<LaunchPlan>,
    pub timed: usize,
    pub reference: Option<Vec<LaunchPlan>>,
}

impl ConfigPlan {
    pub fn timed_launch(&self) -> &LaunchPlan {
        &self.launches[self.timed]
    }
    pub fn buffer_bytes(&self) -> u64 {
        self.buffers.iter().map(BufferPlan::bytes).sum()
    }
    pub fn env(&self, device: &DeviceVars) -> BTreeMap<String, Num> {
        let mut env: BTreeMap<String, Num> = device
            .iter()
            .map(|(k, v)| (k.clone(), Num::Int(*v)))
            .collect();
        for (k, v) in &self.params {
            env.insert(k.clone(), Num::Int(*v));
        }
        env
    }
}

/// Fill `{name}` parts of `template` from `env`: a number, or a string axis's value.
pub fn fill_template(
    template: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let j = rest[i..]
            .find('}')
            .ok_or_else(|| format!("`{template}`: `{{` without `}}`"))?;
        let name = rest[i + 1..i + j].trim();
        let v = env(name).ok_or_else(|| format!("unknown name `{name}` in `{template}`"))?;
        out.push_str(&v);
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The `{name}`s of a template must be params or axes.
pub fn check_template(template: &str, names: &[&str]) -> Result<(), String> {
    fill_template(template, &|n| names.contains(&n).then(|| "0".to_string())).map(|_| ())
}

/// Errors of one experiment: `(site, message)`, each site once.
#[derive(Default)]
struct Problems {
    seen: IndexMap<(Option<Site>, String), (String, usize)>,
}

impl Problems {
    fn add(&mut self, label: &str, at: Site, message: String) {
        let e = self
            .seen
            .entry((Some(at), message))
            .or_insert((label.to_string(), 0));
        e.1 += 1;
    }

    fn count(&self) -> usize {
        self.seen.values().map(|v| v.1).sum()
    }

    fn into_vec(self) -> Vec<Problem> {
        self.seen
            .into_iter()
            .map(|((at, message), (label, count))| {
                let who = match (label.as_str(), count) {
                    ("", _) => String::new(),
                    (l, 1) => format!("config `{l}`: "),
                    (l, n) => format!("config `{l}` (and {} more): ", n - 1),
                };
                Problem {
                    at,
                    message: format!("{who}{message}"),
                }
            })
            .collect()
    }
}

impl Experiment {
    /// Every configuration, concrete; or every problem, each with its file, line and column.
    pub fn plan(&self, device: &DeviceVars) -> crate::Result<Vec<ConfigPlan>> {
        plan(&self.spec, device).map_err(|problems| {
            let errors = problems
                .into_iter()
                .map(|p| self.error_at(p.at.as_ref(), p.message))
                .collect();
            crate::Error::collect(errors)
                .err()
                .unwrap_or_else(|| crate::Error::Other("no problem reported".into()))
        })
    }
}

/// What a configuration binds: numbers for arithmetic and templates, strings (the string
/// axes' values) for templates only.
#[derive(Clone, Default)]
struct Env {
    nums: BTreeMap<String, Num>,
    strings: BTreeMap<String, String>,
}

impl Env {
    fn template(&self) -> impl Fn(&str) -> Option<String> + '_ {
        move |n| {
            self.strings
                .get(n)
                .cloned()
                .or_else(|| self.nums.get(n).map(Num::to_string))
        }
    }

    /// The same names for a `label` template: a string value is spelled as the default
    /// label spells it ([`in_label`]), so `{variant}` with `tiled_padded` is `tiled-padded`.
    fn label_template(&self) -> impl Fn(&str) -> Option<String> + '_ {
        move |n| {
            self.strings
                .get(n)
                .map(|s| in_label(s))
                .or_else(|| self.nums.get(n).map(Num::to_string))
        }
    }
}

/// How a string axis value (a kernel name's part, `tiled_padded`) is written in a
/// configuration label, whose alphabet is lowercase letters, digits and '-': one rule for
/// the default label and a `label` template.
fn in_label(value: &str) -> String {
    value.replace('_', "-").to_lowercase()
}

fn lookup<'a>(env: &'a BTreeMap<String, Num>) -> impl Fn(&str) -> Option<Num> + 'a {
    move |n| env.get(n).copied()
}

fn eval(e: &ExprSrc, env: &BTreeMap<String, Num>) -> Result<Num, String> {
    Expr::parse(&e.0)?.eval(&lookup(env))
}

fn eval_int(e: &ExprSrc, env: &BTreeMap<String, Num>) -> Result<i64, String> {
    Expr::parse(&e.0)?.eval_int(&lookup(env))
}

/// The configurations of `spec` before params: label (if given) and assigned values.
struct Point {
    label: Option<String>,
    /// Where the configuration is written: its `configs` entry, or the axes.
    at: YamlPath,
    /// Axis values, then explicit settings, as expressions, each with where it is written.
    set: IndexMap<String, (ExprSrc, Site)>,
}

pub fn plan(spec: &ExperimentSpec, device: &DeviceVars) -> Result<Vec<ConfigPlan>, Vec<Problem>> {
    let top = YamlPath::top;
    let mut p = Problems::default();
    let base: BTreeMap<String, Num> = device
        .iter()
        .map(|(k, v)| (k.clone(), Num::Int(*v)))
        .collect();
    // How many, before building any: the limit protects memory and time.
    let product = spec
        .axes
        .values()
        .try_fold(1usize, |acc, v| acc.checked_mul(v.len()));
    let total = product
        .map(|n| {
            if spec.axes.is_empty() && !spec.configs.is_empty() {
                0
            } else {
                n
            }
        })
        .and_then(|n| n.checked_add(spec.configs.len()));
    match total {
        Some(n) if n <= spec.max_configs => {}
        _ => {
            let sizes: Vec<String> = spec
                .axes
                .iter()
                .map(|(k, v)| format!("{k}: {}", v.len()))
                .collect();
            let shown = total.map_or("more than 2^64".to_string(), |n| n.to_string());
            return Err(vec![Problem::new(
                Some(top(if spec.axes.is_empty() { "configs" } else { "axes" }).name()),
                format!(
                    "{shown} configurations ({}{} explicit) exceed the limit of {} (raise `max_configs` if you mean it)",
                    if sizes.is_empty() { String::new() } else { format!("axes {} plus ", sizes.join(" x ")) },
                    spec.configs.len(),
                    spec.max_configs
                ),
            )]);
        }
    }
    let mut points: Vec<Point> = Vec::new();
    if !spec.axes.is_empty() || spec.configs.is_empty() {
        let mut product: Vec<IndexMap<String, (ExprSrc, Site)>> = vec![IndexMap::new()];
        for (name, values) in &spec.axes {
            let mut next = Vec::with_capacity(product.len() * values.len());
            for prefix in &product {
                for (i, v) in values.iter().enumerate() {
                    let mut m = prefix.clone();
                    m.insert(
                        name.clone(),
                        (v.clone(), top("axes").key(name).index(i).value()),
                    );
                    next.push(m);
                }
            }
            product = next;
        }
        points.extend(product.into_iter().map(|set| Point {
            label: None,
            at: top("axes"),
            set,
        }));
    }
    for (ci, c) in spec.configs.iter().enumerate() {
        let at = top("configs").index(ci);
        let mut set: IndexMap<String, (ExprSrc, Site)> = c
            .iter()
            .map(|(k, v)| (k.clone(), (v.clone(), at.key(k).value())))
            .collect();
        let label = set.shift_remove("label").map(|l| l.0 .0);
        points.push(Point { label, at, set });
    }
    // Where a label generated for the product is decided: the template, else the axes.
    let generated_at = if spec.label.is_some() {
        top("label").value()
    } else {
        top("axes").name()
    };

    let mut plans = Vec::with_capacity(points.len());
    let mut labels: IndexMap<String, usize> = IndexMap::new();
    for point in points {
        // Axis and explicit values first (device properties only), then overrides, then
        // params in order (each may read the axes and earlier params).
        let mut env = Env {
            nums: base.clone(),
            strings: BTreeMap::new(),
        };
        // Where each bound name's value is written.
        let mut origin: IndexMap<String, Site> = IndexMap::new();
        let mut assigned: IndexMap<String, (ExprSrc, Site)> = IndexMap::new();
        let mut ok = true;
        for (k, (v, at)) in &point.set {
            if spec.is_string_axis(k) {
                env.strings.insert(k.clone(), v.0.clone());
                origin.insert(k.clone(), at.clone());
            } else if spec.axes.contains_key(k) {
                match eval(v, &base) {
                    Ok(n) => {
                        env.nums.insert(k.clone(), n);
                        origin.insert(k.clone(), at.clone());
                    }
                    Err(e) => {
                        p.add("", at.clone(), format!("axis `{k}`: {e}"));
                        ok = false;
                    }
                }
            } else {
                assigned.insert(k.clone(), (v.clone(), at.clone()));
            }
        }
        for (oi, o) in spec.overrides.iter().enumerate() {
            let matches = o.when.iter().all(|(k, v)| {
                if spec.is_string_axis(k) {
                    return env.strings.get(k) == Some(&v.0);
                }
                let want = eval(v, &base).ok();
                want.is_some() && env.nums.get(k).map(|n| n.as_f64()) == want.map(|n| n.as_f64())
            });
            if matches {
                let at = top("overrides").index(oi).key("set");
                for (k, v) in &o.set {
                    assigned.insert(k.clone(), (v.clone(), at.key(k).value()));
                }
            }
        }
        let pending_label = point.label.clone().unwrap_or_default();
        for (k, default) in &spec.params {
            let (e, at) = match assigned.get(k) {
                Some((e, at)) => (e, at.clone()),
                None => (default, top("params").key(k).value()),
            };
            match eval(e, &env.nums) {
                Ok(n) => {
                    env.nums.insert(k.clone(), n);
                    origin.insert(k.clone(), at);
                }
                Err(why) => {
                    p.add(&pending_label, at, format!("param `{k}`: {why}"));
                    ok = false;
                }
            }
        }
        if !ok {
            continue;
        }
        let mut params = IndexMap::new();
        let mut strings = IndexMap::new();
        for k in spec.param_names() {
            if let Some(s) = env.strings.get(k) {
                strings.insert(k.to_string(), s.clone());
                continue;
            }
            let at = origin.get(k).cloned().unwrap_or_else(|| point.at.value());
            match env.nums.get(k).map(|n| n.whole()) {
                Some(Ok(i)) => {
                    params.insert(k.to_string(), i);
                }
                Some(Err(e)) => {
                    p.add(
                        &pending_label,
                        at,
                        format!("`{k}`: {e} (params are whole numbers)"),
                    );
                    ok = false;
                }
                None => {
                    p.add(
                        &pending_label,
                        at,
                        format!("`{k}` has no value in this configuration"),
                    );
                    ok = false;
                }
            }
        }
        if !ok {
            continue;
        }
        let label_at = match &point.label {
            Some(_) => point.at.key("label").value(),
            None => generated_at.clone(),
        };
        let label = match (&point.label, &spec.label) {
            (Some(l), _) => Ok(l.clone()),
            (None, Some(t)) => fill_template(t, &env.label_template()),
            (None, None) if spec.axes.is_empty() => Ok("default".to_string()),
            // A number axis shows its name and value (`block128`), a string axis its
            // value (`tiled`).
            (None, None) => Ok(spec
                .axes
                .keys()
                .map(|k| match strings.get(k) {
                    Some(s) => in_label(s),
                    None => format!("{}{}", k.replace('_', "-"), params[k]),
                })
                .collect::<Vec<_>>()
                .join("-")
                .to_lowercase()),
        };
        let label = match label {
            Ok(l) if super::is_label(&l) => l,
            Ok(l) => {
                let hint = if spec.label.is_none() {
                    " (give a `label` template)"
                } else {
                    ""
                };
                p.add(
                    "",
                    label_at,
                    format!(
                        "generated label `{l}` must be lowercase letters, digits and '-'{hint}"
                    ),
                );
                continue;
            }
            Err(e) => {
                p.add("", label_at, e);
                continue;
            }
        };
        if labels.contains_key(&label) {
            p.add(
                "",
                label_at,
                format!("label `{label}` is used by two configurations"),
            );
            continue;
        }
        labels.insert(label.clone(), plans.len());
        match concrete(spec, &label, params, strings, &env, &mut p) {
            Some(plan) => plans.push(plan),
            None => continue,
        }
    }
    // A reference config's launches, with its own params, on each config's inputs.
    if let Some(super::ReferenceSpec {
        config: Some(r), ..
    }) = &spec.reference
    {
        let at = top("reference").key("config").value();
        match labels.get(r).and_then(|i| plans.get(*i)).cloned() {
            None => p.add(
                "",
                at,
                format!("reference config `{r}` is not a configuration of this experiment"),
            ),
            Some(reference) => {
                for plan in &mut plans {
                    for (mine, theirs) in plan.buffers.iter().zip(&reference.buffers) {
                        if mine.len != theirs.len {
                            p.add(&plan.label, at.clone(), format!(
                                "buffer `{}` has {} elements here but {} in the reference config `{r}`",
                                mine.name, mine.len, theirs.len
                            ));
                        }
                    }
                    plan.reference = Some(reference.launches.clone());
                }
            }
        }
    }
    if let Some(mem) = device.get("mem_bytes") {
        for plan in &plans {
            let need = plan.buffer_bytes();
            if need > *mem as u64 {
                p.add(&plan.label, top("buffers").name(), format!(
                    "the buffers need {need} bytes ({:.2} GiB), more than the GPU's {mem} bytes ({:.2} GiB)",
                    need as f64 / (1u64 << 30) as f64,
                    *mem as f64 / (1u64 << 30) as f64
                ));
            }
        }
    }
    let problems = p.into_vec();
    if problems.is_empty() {
        Ok(plans)
    } else {
        Err(problems)
    }
}

fn concrete(
    spec: &ExperimentSpec,
    label: &str,
    params: IndexMap<String, i64>,
    strings: IndexMap<String, String>,
    env: &Env,
    p: &mut Problems,
) -> Option<ConfigPlan> {
    let top = YamlPath::top;
    let before = p.count();
    let mut buffers = Vec::new();
    for (name, b) in &spec.buffers {
        let at = top("buffers").key(name).key("length").value();
        let len = match eval_int(&b.length, &env.nums) {
            Ok(n) if n >= 1 => n as u64,
            Ok(n) => {
                p.add(
                    label,
                    at.clone(),
                    format!("buffer `{name}`: length {n} must be at least 1"),
                );
                0
            }
            Err(e) => {
                p.add(label, at.clone(), format!("buffer `{name}`: {e}"));
                0
            }
        };
        if len.checked_mul(b.ty.size() as u64).is_none() {
            p.add(
                label,
                at,
                format!("buffer `{name}`: {len} elements overflow 64 bits of bytes"),
            );
        }
        let fill = match &b.fill {
            None => Fill::Zeros,
            Some(FillSpec::Fixed(f)) => f.clone(),
            Some(FillSpec::Cycle(stride)) => {
                let at = top("buffers").key(name).key("fill").value();
                let stride = match eval_int(stride, &env.nums) {
                    Ok(s) => u64::try_from(s).unwrap_or(0),
                    Err(e) => {
                        p.add(label, at.clone(), format!("buffer `{name}`: cycle: {e}"));
                        1
                    }
                };
                if len >= 1 {
                    if let Err(e) = cycle_fits(len, stride, b.ty) {
                        p.add(label, at, format!("buffer `{name}`: {e}"));
                    }
                }
                Fill::Cycle(stride)
            }
        };
        buffers.push(BufferPlan {
            name: name.clone(),
            ty: b.ty,
            len,
            fill,
            output: b.output,
            tolerance: b.tolerance,
        });
    }
    let compile_options = spec
        .compile_options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            fill_template(o, &env.template()).unwrap_or_else(|e| {
                p.add(
                    label,
                    top("compile_options").index(i).value(),
                    format!("compile option: {e}"),
                );
                o.clone()
            })
        })
        .collect();
    let launches: Vec<LaunchPlan> = spec
        .launches
        .iter()
        .enumerate()
        .map(|(i, l)| launch(spec, l, top("launches").index(i), label, env, p))
        .collect();
    let reference = spec
        .reference
        .as_ref()
        .and_then(|r| r.launches.as_ref())
        .map(|ls| {
            ls.iter()
                .enumerate()
                .map(|(i, l)| {
                    let at = top("reference").key("launches").index(i);
                    launch(spec, l, at, label, env, p)
                })
                .collect()
        });
    (p.count() == before).then(|| ConfigPlan {
        label: label.to_string(),
        params,
        strings,
        compile_options,
        buffers,
        launches,
        timed: spec.timed_launch(),
        reference,
    })
}

/// Whether a `{cycle: stride}` fill fits a buffer of `len` elements of `ty`: whole nodes
/// (`len` a multiple of `stride`), at least two of them, and every node's element index
/// representable in the element type.
pub fn cycle_fits(len: u64, stride: u64, ty: ElemType) -> Result<(), String> {
    if stride == 0 {
        return Err("a cycle's stride must be at least 1".into());
    }
    if !len.is_multiple_of(stride) {
        return Err(format!(
            "a cycle with stride {stride} needs a length that is a multiple of it, not {len}"
        ));
    }
    let nodes = len / stride;
    if nodes < 2 {
        return Err(format!(
            "a cycle needs at least 2 nodes: length {len} with stride {stride} makes {nodes}"
        ));
    }
    let max: u64 = match ty {
        ElemType::I32 => i32::MAX as u64,
        _ => u32::MAX as u64,
    };
    let last = len - stride;
    if last > max {
        return Err(format!(
            "the last node's index {last} does not fit {} (at most {max})",
            ty.name()
        ));
    }
    Ok(())
}

fn launch(
    spec: &ExperimentSpec,
    l: &LaunchSpec,
    at: YamlPath,
    label: &str,
    env: &Env,
    p: &mut Problems,
) -> LaunchPlan {
    let nums = &env.nums;
    let kernel = fill_template(&l.kernel, &env.template()).unwrap_or_else(|e| {
        p.add(label, at.key("kernel").value(), e);
        l.kernel.clone()
    });
    let mut args = Vec::new();
    for (ai, a) in l.args.iter().enumerate() {
        match a {
            ArgSpec::Buffer(b) => {
                if let Some(i) = spec.buffers.get_index_of(b) {
                    args.push(Arg::Buffer(i));
                }
            }
            ArgSpec::Scalar(m) => {
                for (ty, v) in m {
                    let Some(t) = ScalarType::from_name(ty) else {
                        continue;
                    };
                    match eval(v, nums).and_then(|n| t.encode(n).map(|b| (n, b))) {
                        Ok((n, bytes)) => args.push(Arg::Scalar {
                            ty: t,
                            bytes,
                            shown: n.to_string(),
                        }),
                        Err(e) => p.add(
                            label,
                            at.key("args").index(ai).key(ty).value(),
                            format!("kernel `{kernel}`: argument {{{ty}: {}}}: {e}", v.0),
                        ),
                    }
                }
            }
        }
    }
    let dims = |what: &str, d: &Dims, p: &mut Problems| -> [u32; 3] {
        let mut out = [1u32; 3];
        for (i, e) in d.parts().into_iter().enumerate().take(3) {
            let site = d.site(&at.key(what), i);
            match eval_int(e, nums) {
                Ok(v) if v >= 1 && v <= u32::MAX as i64 => out[i] = v as u32,
                Ok(v) => p.add(
                    label,
                    site,
                    format!(
                        "kernel `{kernel}`: {what} dimension {v} (from `{}`) must be from 1 to {}",
                        e.0,
                        u32::MAX
                    ),
                ),
                Err(err) => p.add(label, site, format!("kernel `{kernel}`: {what}: {err}")),
            }
        }
        out
    };
    let grid = dims("grid", &l.grid, p);
    let block = dims("block", &l.block, p);
    if block.iter().map(|b| *b as u64).product::<u64>() > 1024 {
        p.add(
            label,
            at.key("block").value(),
            format!("kernel `{kernel}`: a block of {block:?} has more than 1024 threads"),
        );
    }
    let small = |what: &str, e: &ExprSrc, max: i64, p: &mut Problems| -> u32 {
        let site = at.key(what).value();
        match eval_int(e, nums) {
            Ok(v) if (0..=max).contains(&v) => v as u32,
            Ok(v) => {
                p.add(
                    label,
                    site,
                    format!("kernel `{kernel}`: {what} {v} is outside 0..={max}"),
                );
                0
            }
            Err(err) => {
                p.add(label, site, format!("kernel `{kernel}`: {what}: {err}"));
                0
            }
        }
    };
    let smem = match (&l.dynamic_smem, &l.target_blocks_per_sm) {
        (Some(e), _) => Smem::Bytes(small("dynamic_smem", e, u32::MAX.into(), p)),
        (None, Some(e)) => match small("target_blocks_per_sm", e, 1024, p) {
            0 => Smem::Bytes(0),
            t => Smem::TargetBlocks(t),
        },
        (None, None) => Smem::Bytes(0),
    };
    let carveout = l
        .carveout_percent
        .as_ref()
        .map(|e| small("carveout_percent", e, 100, p));
    let cluster = l.cluster.as_ref().map(|d| {
        let c = dims("cluster", d, p);
        let blocks: u64 = c.iter().map(|x| u64::from(*x)).product();
        if blocks > super::MAX_PORTABLE_CLUSTER {
            p.add(
                label,
                at.key("cluster").value(),
                format!(
                    "kernel `{kernel}`: a cluster of {c:?} is {blocks} blocks, more than the portable maximum of {} (the size every GPU with clusters launches)",
                    super::MAX_PORTABLE_CLUSTER
                ),
            );
        }
        for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
            if grid[i] % c[i] != 0 {
                p.add(
                    label,
                    at.key("cluster").value(),
                    format!(
                        "kernel `{kernel}`: grid {axis} {} is not a multiple of the cluster's {axis} {}",
                        grid[i], c[i]
                    ),
                );
            }
        }
        c
    });
    let repeat = match &l.repeat {
        None => 1,
        Some(e) => match eval_int(e, nums) {
            Ok(v) if (1..=super::MAX_REPEAT).contains(&v) => v as u32,
            Ok(v) => {
                p.add(
                    label,
                    at.key("repeat").value(),
                    format!(
                        "kernel `{kernel}`: repeat {v} (from `{}`) must be from 1 to {}",
                        e.0,
                        super::MAX_REPEAT
                    ),
                );
                1
            }
            Err(err) => {
                p.add(
                    label,
                    at.key("repeat").value(),
                    format!("kernel `{kernel}`: repeat: {err}"),
                );
                1
            }
        },
    };
    let graph = match &l.graph {
        None | Some(super::Switch::Fixed(false)) => false,
        Some(super::Switch::Fixed(true)) => true,
        Some(super::Switch::Expr(e)) => match eval_int(e, nums) {
            Ok(0) => false,
            Ok(1) => true,
            Ok(v) => {
                p.add(
                    label,
                    at.key("graph").value(),
                    format!(
                        "kernel `{kernel}`: graph is {v} (from `{}`), not 1 (a graph) or 0 (one by one)",
                        e.0
                    ),
                );
                false
            }
            Err(err) => {
                p.add(
                    label,
                    at.key("graph").value(),
                    format!("kernel `{kernel}`: graph: {err}"),
                );
                false
            }
        },
    };
    LaunchPlan {
        kernel,
        at,
        args,
        grid,
        block,
        smem,
        carveout,
        cluster,
        sampling: Sampling { repeat, graph },
        before_each_sample: l.before_each_sample,
    }
}

/// Device properties for a dry run without a GPU: what the node's profile and the
/// architecture's published limits say. On the node they are read from the device.
pub fn device_from_profile(node: &crate::config::Node) -> DeviceVars {
    let mut d = DeviceVars::new();
    d.insert("sm_count".into(), node.sm_count.into());
    if let Some(v) = node.l2_bytes {
        d.insert("l2_bytes".into(), v as i64);
    }
    if let Some(v) = node.mem_bytes {
        d.insert("mem_bytes".into(), v as i64);
    }
    if let Ok(arch) = crate::occupancy::Arch::from_compute_capability(&node.compute_capability) {
        let l = arch.limits();
        d.insert("warp_size".into(), l.warp_size.into());
        d.insert("max_threads_per_sm".into(), l.max_threads_per_sm.into());
        d.insert(
            "max_threads_per_block".into(),
            l.max_threads_per_block.into(),
        );
        d.insert("max_blocks_per_sm".into(), l.max_blocks_per_sm.into());
        d.insert("regs_per_sm".into(), l.registers_per_sm.into());
        d.insert("smem_per_sm".into(), l.shared_memory_per_sm as i64);
        d.insert(
            "smem_per_block_optin".into(),
            l.shared_memory_per_block_optin as i64,
        );
    }
    d
}
