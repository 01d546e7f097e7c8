//! From an experiment to its configurations: axes expanded as a cartesian product (NVBench
//! style), explicit configs and overrides applied, params evaluated in order, labels
//! generated, and every launch made concrete (kernel name, argument bytes, grid, block,
//! shared memory). Pure: no GPU. The device's properties come in as numbers, read from
//! the GPU on the node or from the node's profile for a dry run without one.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Serialize;

use super::expr::{Expr, Num};
use super::types::{ElemType, Fill, ScalarType, Tolerance};
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
    /// The kernel as the file writes it (`axpy_ept{ept}`), to find its line.
    pub written: String,
    pub args: Vec<Arg>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub smem: Smem,
    pub carveout: Option<u32>,
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
    /// Every param and axis value of this configuration.
    pub params: IndexMap<String, i64>,
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

/// Fill `{name}` parts of `template` from `env`.
pub fn fill_template(template: &str, env: &dyn Fn(&str) -> Option<Num>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let j = rest[i..]
            .find('}')
            .ok_or_else(|| format!("`{template}`: `{{` without `}}`"))?;
        let name = rest[i + 1..i + j].trim();
        let v = env(name).ok_or_else(|| format!("unknown name `{name}` in `{template}`"))?;
        out.push_str(&v.to_string());
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The `{name}`s of a template must be params or axes.
pub fn check_template(template: &str, names: &[&str]) -> Result<(), String> {
    fill_template(template, &|n| names.contains(&n).then_some(Num::Int(0))).map(|_| ())
}

/// Errors of one experiment: `(near, message)`, each site once.
#[derive(Default)]
struct Problems {
    seen: IndexMap<(Option<String>, String), (String, usize)>,
}

impl Problems {
    fn add(&mut self, label: &str, near: Option<&str>, message: String) {
        let e = self
            .seen
            .entry((near.map(str::to_string), message))
            .or_insert((label.to_string(), 0));
        e.1 += 1;
    }

    fn into_vec(self) -> Vec<Problem> {
        self.seen
            .into_iter()
            .map(|((near, message), (label, count))| {
                let who = match (label.as_str(), count) {
                    ("", _) => String::new(),
                    (l, 1) => format!("config `{l}`: "),
                    (l, n) => format!("config `{l}` (and {} more): ", n - 1),
                };
                Problem {
                    near,
                    message: format!("{who}{message}"),
                }
            })
            .collect()
    }
}

impl Experiment {
    /// Every configuration, concrete; or every problem, each with its file and line.
    pub fn plan(&self, device: &DeviceVars) -> crate::Result<Vec<ConfigPlan>> {
        plan(&self.spec, device).map_err(|problems| {
            let errors = problems
                .into_iter()
                .map(|p| self.error_near(p.near.as_deref(), p.message))
                .collect();
            crate::Error::collect(errors)
                .err()
                .unwrap_or_else(|| crate::Error::Other("no problem reported".into()))
        })
    }
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
    /// Axis values, then explicit settings, as expressions.
    set: IndexMap<String, ExprSrc>,
}

pub fn plan(spec: &ExperimentSpec, device: &DeviceVars) -> Result<Vec<ConfigPlan>, Vec<Problem>> {
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
                Some(if spec.axes.is_empty() { "configs" } else { "axes" }),
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
        let mut product: Vec<IndexMap<String, ExprSrc>> = vec![IndexMap::new()];
        for (name, values) in &spec.axes {
            let mut next = Vec::with_capacity(product.len() * values.len());
            for prefix in &product {
                for v in values {
                    let mut m = prefix.clone();
                    m.insert(name.clone(), v.clone());
                    next.push(m);
                }
            }
            product = next;
        }
        points.extend(product.into_iter().map(|set| Point { label: None, set }));
    }
    for c in &spec.configs {
        let mut set = c.clone();
        let label = set.shift_remove("label").map(|l| l.0);
        points.push(Point { label, set });
    }

    let mut plans = Vec::with_capacity(points.len());
    let mut labels: IndexMap<String, usize> = IndexMap::new();
    for point in points {
        // Axis and explicit values first (device properties only), then overrides, then
        // params in order (each may read the axes and earlier params).
        let mut env = base.clone();
        let mut assigned: IndexMap<String, ExprSrc> = IndexMap::new();
        let mut ok = true;
        for (k, v) in &point.set {
            if spec.axes.contains_key(k) {
                match eval(v, &base) {
                    Ok(n) => {
                        env.insert(k.clone(), n);
                    }
                    Err(e) => {
                        p.add("", Some(&v.0), format!("axis `{k}`: {e}"));
                        ok = false;
                    }
                }
            } else {
                assigned.insert(k.clone(), v.clone());
            }
        }
        for o in &spec.overrides {
            let matches = o.when.iter().all(|(k, v)| {
                let want = eval(v, &base).ok();
                want.is_some() && env.get(k).map(|n| n.as_f64()) == want.map(|n| n.as_f64())
            });
            if matches {
                for (k, v) in &o.set {
                    assigned.insert(k.clone(), v.clone());
                }
            }
        }
        let pending_label = point.label.clone().unwrap_or_default();
        for (k, default) in &spec.params {
            let e = assigned.get(k).unwrap_or(default);
            match eval(e, &env) {
                Ok(n) => {
                    env.insert(k.clone(), n);
                }
                Err(why) => {
                    p.add(&pending_label, Some(&e.0), format!("param `{k}`: {why}"));
                    ok = false;
                }
            }
        }
        if !ok {
            continue;
        }
        let mut params = IndexMap::new();
        for k in spec.param_names() {
            match env.get(k).map(|n| n.whole()) {
                Some(Ok(i)) => {
                    params.insert(k.to_string(), i);
                }
                Some(Err(e)) => {
                    p.add(
                        &pending_label,
                        Some(k),
                        format!("`{k}`: {e} (params are whole numbers)"),
                    );
                    ok = false;
                }
                None => {
                    p.add(
                        &pending_label,
                        Some(k),
                        format!("`{k}` has no value in this configuration"),
                    );
                    ok = false;
                }
            }
        }
        if !ok {
            continue;
        }
        let label = match (&point.label, &spec.label) {
            (Some(l), _) => Ok(l.clone()),
            (None, Some(t)) => fill_template(t, &lookup(&env)),
            (None, None) if spec.axes.is_empty() => Ok("default".to_string()),
            (None, None) => Ok(spec
                .axes
                .keys()
                .map(|k| format!("{}{}", k.replace('_', "-"), params[k]))
                .collect::<Vec<_>>()
                .join("-")
                .to_lowercase()),
        };
        let label = match label {
            Ok(l) if super::is_label(&l) => l,
            Ok(l) => {
                p.add("", Some("label"), format!("generated label `{l}` must be lowercase letters, digits and '-' (give a `label` template)"));
                continue;
            }
            Err(e) => {
                p.add("", Some("label"), e);
                continue;
            }
        };
        if let Some(first) = labels.insert(label.clone(), plans.len()) {
            let _ = first;
            p.add(
                "",
                Some(&label),
                format!("label `{label}` is used by two configurations"),
            );
            continue;
        }
        match concrete(spec, &label, params, &env, &mut p) {
            Some(plan) => plans.push(plan),
            None => continue,
        }
    }
    // A reference config's launches, with its own params, on each config's inputs.
    if let Some(super::ReferenceSpec {
        config: Some(r), ..
    }) = &spec.reference
    {
        match labels.get(r).and_then(|i| plans.get(*i)).cloned() {
            None => p.add(
                "",
                Some(r),
                format!("reference config `{r}` is not a configuration of this experiment"),
            ),
            Some(reference) => {
                for plan in &mut plans {
                    for (mine, theirs) in plan.buffers.iter().zip(&reference.buffers) {
                        if mine.len != theirs.len {
                            p.add(&plan.label, Some(r), format!(
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
                p.add(&plan.label, Some("buffers"), format!(
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
    env: &BTreeMap<String, Num>,
    p: &mut Problems,
) -> Option<ConfigPlan> {
    let before = p.seen.values().map(|v| v.1).sum::<usize>();
    let mut buffers = Vec::new();
    for (name, b) in &spec.buffers {
        let len = match eval_int(&b.length, env) {
            Ok(n) if n >= 1 => n as u64,
            Ok(n) => {
                p.add(
                    label,
                    Some(&b.length.0),
                    format!("buffer `{name}`: length {n} must be at least 1"),
                );
                0
            }
            Err(e) => {
                p.add(label, Some(&b.length.0), format!("buffer `{name}`: {e}"));
                0
            }
        };
        if len.checked_mul(b.ty.size() as u64).is_none() {
            p.add(
                label,
                Some(&b.length.0),
                format!("buffer `{name}`: {len} elements overflow 64 bits of bytes"),
            );
        }
        buffers.push(BufferPlan {
            name: name.clone(),
            ty: b.ty,
            len,
            fill: b.fill.clone().unwrap_or(Fill::Zeros),
            output: b.output,
            tolerance: b.tolerance,
        });
    }
    let compile_options = spec
        .compile_options
        .iter()
        .map(|o| {
            fill_template(o, &lookup(env)).unwrap_or_else(|e| {
                p.add(label, Some(o), format!("compile option: {e}"));
                o.clone()
            })
        })
        .collect();
    let launches: Vec<LaunchPlan> = spec
        .launches
        .iter()
        .map(|l| launch(spec, l, label, env, p))
        .collect();
    let reference = spec
        .reference
        .as_ref()
        .and_then(|r| r.launches.as_ref())
        .map(|ls| ls.iter().map(|l| launch(spec, l, label, env, p)).collect());
    let after = p.seen.values().map(|v| v.1).sum::<usize>();
    (after == before).then(|| ConfigPlan {
        label: label.to_string(),
        params,
        compile_options,
        buffers,
        launches,
        timed: spec.timed_launch(),
        reference,
    })
}

fn launch(
    spec: &ExperimentSpec,
    l: &LaunchSpec,
    label: &str,
    env: &BTreeMap<String, Num>,
    p: &mut Problems,
) -> LaunchPlan {
    let kernel = fill_template(&l.kernel, &lookup(env)).unwrap_or_else(|e| {
        p.add(label, Some(&l.kernel), e);
        l.kernel.clone()
    });
    let mut args = Vec::new();
    for a in &l.args {
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
                    match eval(v, env).and_then(|n| t.encode(n).map(|b| (n, b))) {
                        Ok((n, bytes)) => args.push(Arg::Scalar {
                            ty: t,
                            bytes,
                            shown: n.to_string(),
                        }),
                        Err(e) => p.add(
                            label,
                            Some(&format!("{{{ty}: {}}}", v.0)),
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
            match eval_int(e, env) {
                Ok(v) if v >= 1 && v <= u32::MAX as i64 => out[i] = v as u32,
                Ok(v) => p.add(
                    label,
                    Some(&e.0),
                    format!(
                        "kernel `{kernel}`: {what} dimension {v} (from `{}`) must be from 1 to {}",
                        e.0,
                        u32::MAX
                    ),
                ),
                Err(err) => p.add(
                    label,
                    Some(&e.0),
                    format!("kernel `{kernel}`: {what}: {err}"),
                ),
            }
        }
        out
    };
    let grid = dims("grid", &l.grid, p);
    let block = dims("block", &l.block, p);
    if block.iter().map(|b| *b as u64).product::<u64>() > 1024 {
        p.add(
            label,
            Some(&format!("kernel: {}", l.kernel)),
            format!("kernel `{kernel}`: a block of {block:?} has more than 1024 threads"),
        );
    }
    let small = |what: &str, e: &ExprSrc, max: i64, p: &mut Problems| -> u32 {
        match eval_int(e, env) {
            Ok(v) if (0..=max).contains(&v) => v as u32,
            Ok(v) => {
                p.add(
                    label,
                    Some(&e.0),
                    format!("kernel `{kernel}`: {what} {v} is outside 0..={max}"),
                );
                0
            }
            Err(err) => {
                p.add(
                    label,
                    Some(&e.0),
                    format!("kernel `{kernel}`: {what}: {err}"),
                );
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
    LaunchPlan {
        kernel,
        written: l.kernel.clone(),
        args,
        grid,
        block,
        smem,
        carveout,
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
