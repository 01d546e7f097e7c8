//! Every configuration made concrete against the driver, before anything runs: modules
//! compiled (once per distinct option list), kernels found, arguments checked against
//! `cuFuncGetParamInfo`, the occupancy dial resolved, what each launch gets (registers,
//! resident blocks) read, and the buffers checked against the GPU's free memory. Every
//! problem of every configuration is collected and reported at once, with file and line.

use std::collections::HashMap;

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::CudaFunction;

use super::compile::{compile, options_for, Compiled};
use super::dial::find_reservation;
use super::error::{Doing, RunError};
use super::gpu::Gpu;
use crate::measure::record::{ConfigRecord, ConfigStatus, Quantity};
use crate::measure::spec::plan::{ConfigPlan, LaunchPlan, Smem};
use crate::measure::spec::signature::arg_sizes;
use crate::measure::spec::{Experiment, Mode, Site, YamlPath};

/// One launch, resolved.
pub struct PreparedLaunch {
    pub plan: LaunchPlan,
    pub function: CudaFunction,
    /// Dynamic shared memory in bytes (given, or the dial's reservation).
    pub smem: u32,
    /// The most dynamic shared memory this kernel may opt in to.
    pub max_dynamic: u32,
    pub registers: u32,
    pub static_smem: u32,
    pub local_bytes: u32,
    pub blocks_per_sm: u32,
    /// The driver's block size for this kernel at this launch's dynamic shared memory,
    /// and the smallest grid that fills the GPU at that size (cuOccupancyMaxPotentialBlockSize).
    pub suggested: Option<(u32, u32)>,
    /// For a cluster launch, the most clusters of it the GPU holds at once
    /// (cuOccupancyMaxActiveClusters).
    pub max_active_clusters: Option<u32>,
}

impl PreparedLaunch {
    /// Set the function attributes this launch needs (several configs may share a
    /// function with different settings, so this runs before each use).
    pub fn apply(&self) -> Result<(), RunError> {
        if let Some(p) = self.plan.carveout {
            self.function
                .set_attribute(
                    FnAttr::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                    p as i32,
                )
                .doing(|| format!("{}: setting the shared-memory carveout", self.plan.kernel))?;
        }
        self.function
            .set_attribute(
                FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                self.max_dynamic as i32,
            )
            .doing(|| format!("{}: opting in to dynamic shared memory", self.plan.kernel))
    }
}

pub struct PreparedConfig {
    pub plan: ConfigPlan,
    pub launches: Vec<PreparedLaunch>,
    pub reference: Option<Vec<PreparedLaunch>>,
    /// The row as far as the driver can say before running: launch facts, status.
    pub record: ConfigRecord,
}

impl PreparedConfig {
    pub fn timed(&self) -> &PreparedLaunch {
        &self.launches[self.plan.timed]
    }
}

/// Resolve every configuration of `exp`. `Err` holds every problem found.
pub fn prepare(
    gpu: &Gpu,
    exp: &Experiment,
    plans: Vec<ConfigPlan>,
    flush_bytes: u64,
) -> Result<Vec<PreparedConfig>, RunError> {
    let file = exp.path();
    let source = exp.kernel_source()?;
    let arch = exp.target_arch(&gpu.arch)?;
    let mut modules: HashMap<Vec<String>, Compiled> = HashMap::new();
    let mut problems: Vec<(Option<Site>, String)> = Vec::new();
    let free = if exp.spec.mode == Mode::Timed {
        Some(
            gpu.ctx
                .mem_get_info()
                .doing(|| "reading free GPU memory".into())?
                .0 as u64,
        )
    } else {
        None
    };
    let mut out = Vec::new();
    for plan in plans {
        let options = options_for(&plan.compile_options, &arch, &[]);
        if !modules.contains_key(&options) {
            let compiled = compile(gpu, &file, &source, options.clone())?;
            modules.insert(options.clone(), compiled);
        }
        let module = &modules[&options];
        let occupancy_only = exp.spec.mode == Mode::Occupancy;
        let resolve =
            |l: &LaunchPlan, problems: &mut Vec<(Option<Site>, String)>| match resolve_launch(
                gpu,
                module,
                l,
                occupancy_only,
            ) {
                Ok(r) => Some(r),
                Err(why) => {
                    problems.push((
                        Some(l.at.key("kernel").value()),
                        format!("config `{}`: {why}", plan.label),
                    ));
                    None
                }
            };
        let launches: Vec<Option<Resolved>> = plan
            .launches
            .iter()
            .map(|l| resolve(l, &mut problems))
            .collect();
        let reference: Option<Vec<Option<Resolved>>> = plan
            .reference
            .as_ref()
            .map(|ls| ls.iter().map(|l| resolve(l, &mut problems)).collect());
        if let Some(free) = free {
            let need = plan.buffer_bytes() + flush_bytes;
            if need > free {
                problems.push((
                    Some(YamlPath::top("buffers").name()),
                    format!(
                        "config `{}`: the buffers need {need} bytes ({:.2} GiB{}), more than the GPU's {free} bytes ({:.2} GiB) free; nothing was allocated",
                        plan.label,
                        need as f64 / (1u64 << 30) as f64,
                        if flush_bytes > 0 { ", the L2 flush buffer included" } else { "" },
                        free as f64 / (1u64 << 30) as f64
                    ),
                ));
            }
        }
        let (Some(launches), Some(reference)) = (
            launches.into_iter().collect::<Option<Vec<_>>>(),
            reference.map_or(Some(None), |r| {
                r.into_iter().collect::<Option<Vec<_>>>().map(Some)
            }),
        ) else {
            continue;
        };
        let timed = &launches[plan.timed];
        let l = &timed.0;
        let warp = gpu.limits.warp_size.max(1);
        let warps_per_sm = l.blocks_per_sm * l.plan.block_threads().div_ceil(warp);
        let max_warps = (gpu.limits.max_threads_per_sm / warp).max(1);
        let record = ConfigRecord {
            label: plan.label.clone(),
            kernel: l.plan.kernel.clone(),
            status: match &timed.1 {
                Some(why) => ConfigStatus::NotLaunchable {
                    reason: why.clone(),
                },
                None => ConfigStatus::Passed,
            },
            params: plan.params.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            block_size: l.plan.block_threads(),
            block: l.plan.block,
            grid: l.plan.grid,
            smem_reserved: l.smem,
            grid_size: l.plan.grid_blocks(),
            registers: l.registers,
            static_smem: l.static_smem,
            local_bytes: l.local_bytes,
            blocks_per_sm: l.blocks_per_sm,
            warps_per_sm,
            occupancy: warps_per_sm as f64 / max_warps as f64,
            waves: if l.blocks_per_sm == 0 {
                0.0
            } else {
                l.plan.grid_blocks() as f64
                    / (l.blocks_per_sm as f64 * gpu.info.sm_count.max(1) as f64)
            },
            achieved_occupancy: None,
            timing: None,
            quantities: {
                let mut q = l.suggested.map(suggestion_quantities).unwrap_or_default();
                q.extend(launch_quantities(l));
                q
            },
        };
        // In a timed experiment a launch that cannot exist is the file's error.
        if !occupancy_only {
            for (r, label) in launches
                .iter()
                .chain(reference.iter().flatten())
                .map(|r| (r, &plan.label))
            {
                if let Some(why) = &r.1 {
                    problems.push((
                        Some(r.0.plan.at.key("kernel").value()),
                        format!("config `{label}`: {why}"),
                    ));
                }
            }
        }
        out.push(PreparedConfig {
            plan,
            launches: launches.into_iter().map(|r| r.0).collect(),
            reference: reference.map(|r| r.into_iter().map(|r| r.0).collect()),
            record,
        });
    }
    if problems.is_empty() {
        return Ok(out);
    }
    // One message per site, however many configs share it.
    let mut seen = Vec::new();
    let errors = problems
        .into_iter()
        .filter(|p| {
            let key = (
                p.0.clone(),
                p.1.split_once(": ")
                    .map_or(p.1.clone(), |s| s.1.to_string()),
            );
            let new = !seen.contains(&key);
            seen.push(key);
            new
        })
        .map(|(at, msg)| exp.error_at(at.as_ref(), msg))
        .collect();
    Err(RunError::Spec(
        crate::Error::collect(errors)
            .err()
            .unwrap_or_else(|| crate::Error::Other("no problem reported".into())),
    ))
}

/// The driver's suggestion as recorded quantities, citable like any other.
fn suggestion_quantities(
    (block, min_grid): (u32, u32),
) -> std::collections::BTreeMap<String, Quantity> {
    let driver = |value: u32, unit: &str, heading: &str| Quantity {
        value: Some(f64::from(value)),
        unit: unit.into(),
        heading: Some(heading.into()),
        decimals: Some(0),
        source: "driver".into(),
        not_measured: None,
        timed: false,
        interval: None,
    };
    [
        (
            "suggested_block_size".to_string(),
            driver(block, "threads", "driver's suggested block"),
        ),
        (
            "suggested_min_grid".to_string(),
            driver(min_grid, "blocks", "driver's minimum grid"),
        ),
    ]
    .into_iter()
    .collect()
}

/// What a cluster launch and a repeated or graph-timed launch add to the row, citable
/// and usable in metrics like the other launch facts: the driver's
/// `max_active_clusters` and the plan's `launches_per_sample`. A plain launch adds
/// nothing, so its row is as it always was.
pub fn launch_quantities(l: &PreparedLaunch) -> std::collections::BTreeMap<String, Quantity> {
    let fact = |value: u32, unit: &str, heading: &str, source: &str| Quantity {
        value: Some(f64::from(value)),
        unit: unit.into(),
        heading: Some(heading.into()),
        decimals: Some(0),
        source: source.into(),
        not_measured: None,
        timed: false,
        interval: None,
    };
    let mut out = std::collections::BTreeMap::new();
    if let Some(n) = l.max_active_clusters {
        out.insert(
            "max_active_clusters".to_string(),
            fact(n, "clusters", "max active clusters", "driver"),
        );
    }
    if !l.plan.sampling.is_once() {
        out.insert(
            "launches_per_sample".to_string(),
            fact(
                l.plan.sampling.repeat,
                "launches",
                "launches per sample",
                "launch",
            ),
        );
    }
    out
}

/// A launch and, if it cannot be launched, why.
type Resolved = (PreparedLaunch, Option<String>);

fn resolve_launch(
    gpu: &Gpu,
    module: &Compiled,
    l: &LaunchPlan,
    occupancy_only: bool,
) -> Result<Resolved, String> {
    let f = module
        .module
        .load_function(&l.kernel)
        .map_err(|_| format!("kernel `{}` is not in the compiled module", l.kernel))?;
    // Argument count and sizes against the compiled kernel.
    let sizes = param_sizes(&f);
    let want = arg_sizes(l);
    if let Some(sizes) = sizes {
        if sizes.len() != want.len() {
            return Err(format!(
                "kernel `{}` takes {} arguments (cuFuncGetParamInfo), the launch passes {}",
                l.kernel,
                sizes.len(),
                want.len()
            ));
        }
        for (i, (have, give)) in sizes.iter().zip(&want).enumerate() {
            if have != give {
                return Err(format!(
                    "kernel `{}` argument {} is {have} bytes (cuFuncGetParamInfo), the launch passes {give}",
                    l.kernel,
                    i + 1
                ));
            }
        }
    }
    let attr = |a: FnAttr| -> Result<u32, String> {
        f.get_attribute(a)
            .map(|v| v.max(0) as u32)
            .map_err(|e| format!("{}: reading {a:?}: {e:?}", l.kernel))
    };
    let static_smem = attr(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
    let max_dynamic = gpu
        .limits
        .shared_memory_per_block_optin
        .saturating_sub(static_smem);
    let mut p = PreparedLaunch {
        plan: l.clone(),
        function: f.clone(),
        smem: 0,
        max_dynamic,
        registers: attr(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
        static_smem,
        local_bytes: attr(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
        blocks_per_sm: 0,
        suggested: None,
        max_active_clusters: None,
    };
    p.apply().map_err(|e| e.to_string())?;
    let max_threads = attr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
    let threads = l.block_threads();
    if threads > max_threads {
        return Ok((
            p,
            Some(format!(
                "block size above the kernel's {max_threads} threads per block"
            )),
        ));
    }
    let blocks_at = |bytes: u32| {
        f.occupancy_max_active_blocks_per_multiprocessor(threads, bytes as usize, None)
            .map_err(|e| {
                format!(
                    "{}: cuOccupancyMaxActiveBlocksPerMultiprocessor: {e:?}",
                    l.kernel
                )
            })
    };
    p.smem = match l.smem {
        Smem::Bytes(b) if b > max_dynamic => {
            return Ok((
                p,
                Some(format!(
                    "dynamic shared memory above the {max_dynamic} bytes a block may opt in to"
                )),
            ));
        }
        Smem::Bytes(b) => b,
        Smem::TargetBlocks(t) => find_reservation(t, max_dynamic, blocks_at)??,
    };
    p.blocks_per_sm = blocks_at(p.smem)?;
    if !occupancy_only {
        p.suggested = Some(
            suggested_block_size(&f, p.smem)
                .map_err(|e| format!("{}: cuOccupancyMaxPotentialBlockSize: {e:?}", l.kernel))?,
        );
    }
    if p.blocks_per_sm == 0 && !occupancy_only {
        return Ok((
            p,
            Some("the driver says no block of this launch fits on an SM".into()),
        ));
    }
    if let Some(cluster) = l.cluster {
        match max_active_clusters(&f, l, p.smem) {
            Ok(n) => p.max_active_clusters = Some(n),
            Err(e) => {
                return Ok((
                    p,
                    Some(format!(
                        "cuOccupancyMaxActiveClusters for clusters of {cluster:?}: {e:?} (thread-block clusters need compute capability 9.0 or later)"
                    )),
                ))
            }
        }
        if p.max_active_clusters == Some(0) {
            return Ok((
                p,
                Some(format!(
                    "the driver says no cluster of {cluster:?} blocks of this launch fits on the GPU"
                )),
            ));
        }
    }
    Ok((p, None))
}

/// `cuOccupancyMaxActiveClusters`: how many clusters of `l` (its cluster dimensions, with
/// `smem` bytes of dynamic shared memory a block) the GPU holds at once.
fn max_active_clusters(
    f: &CudaFunction,
    l: &LaunchPlan,
    smem: u32,
) -> Result<u32, cudarc::driver::DriverError> {
    let Some(cluster) = l.cluster else {
        return Ok(0);
    };
    let mut attrs = [super::buffers::cluster_attribute(cluster)];
    let config = super::buffers::launch_config(l, smem, std::ptr::null_mut(), &mut attrs);
    let mut n: std::ffi::c_int = 0;
    // SAFETY: `f` is a loaded function that outlives the call; `config` and the attribute
    // it points to are locals that outlive it; `n` is a live out-pointer.
    unsafe { cudarc::driver::sys::cuOccupancyMaxActiveClusters(&mut n, f.cu_function(), &config) }
        .result()?;
    Ok(n.max(0) as u32)
}

/// What `cuOccupancyMaxPotentialBlockSize` suggests for `f` with `smem` bytes of dynamic
/// shared memory per block: (block size, minimum grid). The driver picks the block size
/// with the highest theoretical occupancy, the largest of equals; it knows nothing of time.
fn suggested_block_size(
    f: &CudaFunction,
    smem: u32,
) -> Result<(u32, u32), cudarc::driver::DriverError> {
    let (mut min_grid, mut block): (std::ffi::c_int, std::ffi::c_int) = (0, 0);
    // SAFETY: `f` is a loaded function that outlives the call; no size callback is passed,
    // so the driver uses `smem` for every block size it tries; 0 = no block-size limit.
    unsafe {
        cudarc::driver::sys::cuOccupancyMaxPotentialBlockSize(
            &mut min_grid,
            &mut block,
            f.cu_function(),
            None,
            smem as usize,
            0,
        )
    }
    .result()?;
    Ok((block.max(0) as u32, min_grid.max(0) as u32))
}

/// Each parameter's size, from `cuFuncGetParamInfo` (CUDA 12.4 and later); None where the
/// driver does not have it.
fn param_sizes(f: &CudaFunction) -> Option<Vec<usize>> {
    use cudarc::driver::sys::{cuFuncGetParamInfo, CUresult};
    let mut sizes = Vec::new();
    for i in 0..1024usize {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: `f` is a live function of a loaded module; both out-pointers are locals.
        // The call is looked up in the loaded driver; an older driver lacks it.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
            cuFuncGetParamInfo(f.cu_function(), i, &mut offset, &mut size)
        }))
        .ok()?;
        match r {
            CUresult::CUDA_SUCCESS => sizes.push(size),
            CUresult::CUDA_ERROR_INVALID_VALUE => return Some(sizes),
            _ => return None,
        }
    }
    Some(sizes)
}
