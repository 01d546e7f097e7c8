//! An occupancy sweep: the driver's resident blocks per SM over a grid of registers per
//! thread, block size and dynamic shared memory. Nothing is launched; the record is the
//! ground truth an occupancy model is tested against, so it keeps what the driver
//! reported (actual registers, static shared memory), never what was asked for.

use std::path::Path;

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use serde::{Deserialize, Serialize};

use super::compile::{compile, options_for};
use super::error::{Doing, RunError};
use super::gpu::Gpu;
use crate::measure::record::DeviceLimits;
use crate::measure::spec::SweepSpec;

/// One compiled register variant of the sweep kernel.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Variant {
    /// `--maxrregcount` passed to NVRTC.
    pub requested_registers: u32,
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS`: what the occupancy calculation uses.
    pub registers: u32,
    pub static_smem: u32,
    pub local_bytes: u32,
    pub max_threads_per_block: u32,
}

/// One point of the grid.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Point {
    pub requested_registers: u32,
    pub registers: u32,
    pub block_size: u32,
    pub dynamic_smem: u32,
    pub static_smem: u32,
    /// The driver's answer; None for a launch that cannot exist (see `invalid`).
    pub blocks_per_sm: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

/// What goes into `Record::extra` for a sweep.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepResult {
    pub kernel: String,
    /// The shared-memory carveout preference used: the driver's default (none set).
    pub carveout: String,
    /// Each kernel variant may use dynamic shared memory up to the opt-in limit minus its
    /// static shared memory (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` is set so).
    pub dynamic_smem_opt_in: bool,
    pub device_limits: DeviceLimits,
    pub variants: Vec<Variant>,
    pub points: Vec<Point>,
}

pub fn run(
    gpu: &Gpu,
    experiment_file: &Path,
    source: &str,
    base_options: &[String],
    spec: &SweepSpec,
    tick: &mut dyn FnMut(&str),
) -> Result<SweepResult, RunError> {
    let limits = &gpu.limits;
    let mut variants = Vec::new();
    let mut points = Vec::new();
    for &cap in &spec.registers {
        let options = options_for(base_options, &gpu.arch, &[format!("--maxrregcount={cap}")]);
        let compiled = compile(gpu, experiment_file, source, options)?;
        let f = compiled.function(experiment_file, &spec.kernel)?;
        let attr = |a: FnAttr| -> Result<u32, RunError> {
            f.get_attribute(a)
                .doing(|| format!("maxrregcount {cap}: reading {a:?}"))
                .map(|v| v.max(0) as u32)
        };
        let static_smem = attr(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
        let max_dynamic = limits
            .shared_memory_per_block_optin
            .saturating_sub(static_smem);
        f.set_attribute(
            FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            max_dynamic as i32,
        )
        .doing(|| format!("maxrregcount {cap}: opting in to dynamic shared memory"))?;
        let v = Variant {
            requested_registers: cap,
            registers: attr(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_smem,
            local_bytes: attr(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            max_threads_per_block: attr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        };
        for &block in &spec.block_sizes {
            for &dynamic in &spec.dynamic_smem {
                let invalid = if block > v.max_threads_per_block {
                    Some(format!(
                        "block size above the kernel's {} threads per block",
                        v.max_threads_per_block
                    ))
                } else if dynamic > max_dynamic {
                    Some(format!(
                        "dynamic shared memory above the {max_dynamic} bytes a block may opt in to"
                    ))
                } else {
                    None
                };
                let blocks = match invalid {
                    Some(_) => None,
                    None => Some(
                        f.occupancy_max_active_blocks_per_multiprocessor(block, dynamic as usize, None)
                            .doing(|| {
                                format!("cuOccupancyMaxActiveBlocksPerMultiprocessor(regs {}, block {block}, smem {dynamic})", v.registers)
                            })?,
                    ),
                };
                points.push(Point {
                    requested_registers: cap,
                    registers: v.registers,
                    block_size: block,
                    dynamic_smem: dynamic,
                    static_smem,
                    blocks_per_sm: blocks,
                    invalid,
                });
            }
        }
        tick(&format!("maxrregcount={cap} -> {} registers", v.registers));
        variants.push(v);
    }
    Ok(SweepResult {
        kernel: spec.kernel.clone(),
        carveout: "driver default".into(),
        dynamic_smem_opt_in: true,
        device_limits: limits.clone(),
        variants,
        points,
    })
}
