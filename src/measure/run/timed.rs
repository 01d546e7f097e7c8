//! A timed experiment: per configuration, ask the driver what the launch gets, check the
//! result against the CPU, then time it with CUDA events until the spread settles.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::{CUevent_flags, CUfunction_attribute as FnAttr};
use cudarc::driver::{
    CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg,
};

use super::clocks::{judge, ClockMonitor};
use super::compile::Compiled;
use super::correctness::check_axpy;
use super::dial::find_reservation;
use super::error::{Doing, RunError};
use super::gpu::Gpu;
use super::inputs::seeded_floats;
use super::stats::{next_step, summarize, Next};
use crate::measure::record::{ConfigRecord, ConfigStatus, Timing};
use crate::measure::spec::{ConfigSpec, TimedSpec, TimingPolicy, Workload};

/// The scalar of the axpy workload.
pub const AXPY_A: f32 = 0.75;

/// Samples queued between host synchronizations.
const BATCH: usize = 10;

/// One configuration made concrete: the function, its launch shape and what the driver
/// says it gets.
pub struct Prepared {
    pub spec: ConfigSpec,
    pub function: CudaFunction,
    pub launch: LaunchConfig,
    pub record: ConfigRecord,
}

/// Resolve every configuration against the driver. An impossible configuration (a kernel
/// that is not there, an occupancy target it cannot reach) fails the whole experiment.
pub fn prepare(
    gpu: &Gpu,
    experiment_file: &Path,
    spec: &TimedSpec,
    compiled: &Compiled,
) -> Result<Vec<Prepared>, RunError> {
    let mut out = Vec::new();
    for c in &spec.configs {
        let f = compiled.function(experiment_file, &c.kernel)?;
        let cfg_err = |message: String| RunError::Config {
            path: experiment_file.to_path_buf(),
            label: c.label.clone(),
            message,
        };
        let fattr = |a: FnAttr| -> Result<u32, RunError> {
            f.get_attribute(a)
                .doing(|| format!("{}: reading {a:?}", c.label))
                .map(|v| v.max(0) as u32)
        };
        if let Some(p) = spec.carveout_percent {
            f.set_attribute(
                FnAttr::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                p as i32,
            )
            .doing(|| format!("{}: setting the shared-memory carveout", c.label))?;
        }
        let static_smem = fattr(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
        // Above 48 KB a block must opt in to dynamic shared memory; opt in to all of it
        // so the occupancy API and the launch see the same limit.
        let max_dynamic = gpu
            .limits
            .shared_memory_per_block_optin
            .saturating_sub(static_smem);
        f.set_attribute(
            FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            max_dynamic as i32,
        )
        .doing(|| {
            format!(
                "{}: opting in to {max_dynamic} bytes of dynamic shared memory",
                c.label
            )
        })?;
        let max_threads = fattr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
        if c.block_size > max_threads {
            return Err(cfg_err(format!(
                "block size {} is above this kernel's limit of {max_threads} threads per block",
                c.block_size
            )));
        }
        let blocks_at = |bytes: u32| {
            f.occupancy_max_active_blocks_per_multiprocessor(c.block_size, bytes as usize, None)
                .doing(|| format!("{}: cuOccupancyMaxActiveBlocksPerMultiprocessor", c.label))
        };
        let reserved = match c.target_blocks_per_sm {
            None => 0,
            Some(t) => find_reservation(t, max_dynamic, blocks_at)?.map_err(cfg_err)?,
        };
        let blocks_per_sm = blocks_at(reserved)?;
        if blocks_per_sm == 0 {
            return Err(cfg_err(
                "the driver says no block of this launch fits on an SM".into(),
            ));
        }
        let per_block = c.block_size as u64 * c.elements_per_thread as u64;
        let grid = spec.elements.div_ceil(per_block);
        if grid > u32::MAX as u64 {
            return Err(cfg_err(format!("grid of {grid} blocks is too large")));
        }
        let warps_per_block = c.block_size.div_ceil(gpu.limits.warp_size.max(1));
        let warps_per_sm = blocks_per_sm * warps_per_block;
        let max_warps = (gpu.limits.max_threads_per_sm / gpu.limits.warp_size.max(1)).max(1);
        let record = ConfigRecord {
            label: c.label.clone(),
            kernel: c.kernel.clone(),
            status: ConfigStatus::Passed,
            block_size: c.block_size,
            elements_per_thread: c.elements_per_thread,
            smem_reserved: reserved,
            grid_size: grid,
            registers: fattr(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_smem,
            local_bytes: fattr(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            blocks_per_sm,
            warps_per_sm,
            occupancy: warps_per_sm as f64 / max_warps as f64,
            loads_in_flight: warps_per_sm * c.loads_before_first_use,
            waves: grid as f64 / (blocks_per_sm as f64 * gpu.info.sm_count.max(1) as f64),
            achieved_occupancy: None,
            timing: None,
        };
        out.push(Prepared {
            spec: c.clone(),
            function: f,
            launch: LaunchConfig {
                grid_dim: (grid as u32, 1, 1),
                block_dim: (c.block_size, 1, 1),
                shared_mem_bytes: reserved,
            },
            record,
        });
    }
    Ok(out)
}

/// Device buffers of the axpy workload, and the host copies the check needs.
pub struct AxpyBuffers {
    pub x_host: Vec<f32>,
    pub y_host: Vec<f32>,
    pub x: CudaSlice<f32>,
    pub y: CudaSlice<f32>,
    pub out: CudaSlice<f32>,
    pub n: u64,
}

impl AxpyBuffers {
    pub fn new(gpu: &Gpu, spec: &TimedSpec) -> Result<AxpyBuffers, RunError> {
        let Workload::Axpy = spec.workload;
        let n = spec.elements as usize;
        let x_host = seeded_floats(n, spec.seed, 0);
        let y_host = seeded_floats(n, spec.seed, 1);
        let s = &gpu.stream;
        let x = s
            .clone_htod(&x_host)
            .doing(|| "copying x to the device".into())?;
        let y = s
            .clone_htod(&y_host)
            .doing(|| "copying y to the device".into())?;
        // SAFETY: poisoned before every checked launch; never read before written.
        let out = unsafe { s.alloc::<f32>(n) }.doing(|| "allocating the output".into())?;
        Ok(AxpyBuffers {
            x_host,
            y_host,
            x,
            y,
            out,
            n: spec.elements,
        })
    }

    pub fn launch(&mut self, stream: &CudaStream, p: &Prepared) -> Result<(), RunError> {
        let a = AXPY_A;
        let mut b = stream.launch_builder(&p.function);
        b.arg(&a)
            .arg(&self.x)
            .arg(&self.y)
            .arg(&mut self.out)
            .arg(&self.n);
        // SAFETY: the argument list is the axpy workload's fixed signature; the grid
        // covers `n` and the kernel bounds-checks its indices.
        unsafe { b.launch(p.launch) }
            .map(|_| ())
            .doing(|| format!("{}: launching {}", p.spec.label, p.spec.kernel))
    }

    /// NaN in every output element, so an element the kernel skips cannot pass.
    fn poison(&mut self, stream: &CudaStream) -> Result<(), RunError> {
        let (ptr, _sync) = self.out.device_ptr_mut(stream);
        // SAFETY: `ptr` addresses `n` f32s owned by `self.out`.
        unsafe {
            cudarc::driver::sys::cuMemsetD32Async(
                ptr,
                f32::NAN.to_bits(),
                self.n as usize,
                stream.cu_stream(),
            )
        }
        .result()
        .doing(|| "poisoning the output".into())
    }

    fn check(
        &mut self,
        stream: &Arc<CudaStream>,
        p: &Prepared,
    ) -> Result<Result<(), String>, RunError> {
        self.poison(stream)?;
        if let Err(e) = self.launch(stream, p) {
            return Ok(Err(e.to_string()));
        }
        if let Err(e) = stream.synchronize() {
            return Ok(Err(format!("kernel failed: {e:?}")));
        }
        let out = stream
            .clone_dtoh(&self.out)
            .doing(|| format!("{}: copying the output back", p.spec.label))?;
        Ok(check_axpy(AXPY_A, &self.x_host, &self.y_host, &out).map_err(|m| m.to_string()))
    }
}

/// Check then time every prepared configuration. `tick` is called after each one.
pub fn run(
    gpu: &Gpu,
    spec: &TimedSpec,
    prepared: Vec<Prepared>,
    clocks: Option<&ClockMonitor>,
    tick: &mut dyn FnMut(&str),
) -> Result<Vec<ConfigRecord>, RunError> {
    let mut buffers = AxpyBuffers::new(gpu, spec)?;
    let flush = if spec.timing.flush_l2 {
        // Twice L2 so that no line the kernel will read survives.
        let bytes = (2 * gpu.info.l2_bytes.unwrap_or(64 << 20)).max(1 << 20) as usize;
        Some(
            unsafe { gpu.stream.alloc::<u8>(bytes) }
                .doing(|| "allocating the L2 flush buffer".into())?,
        )
    } else {
        None
    };
    let mut flush = flush;
    let bytes_per_launch = spec.elements * spec.bytes_per_element;
    let mut out = Vec::new();
    for p in prepared {
        let mut record = p.record.clone();
        match buffers.check(&gpu.stream, &p)? {
            Err(reason) => {
                record.status = ConfigStatus::Failed { reason };
            }
            Ok(()) => {
                let timing =
                    time_config(gpu, &spec.timing, &mut buffers, &p, flush.as_mut(), clocks)?;
                record.timing = Some(finish_timing(timing, bytes_per_launch));
            }
        }
        tick(&record.label);
        out.push(record);
    }
    Ok(out)
}

struct RawTiming {
    samples: Vec<f64>,
    converged: bool,
    clock: Option<super::clocks::ClockVerdict>,
}

fn time_config(
    gpu: &Gpu,
    policy: &TimingPolicy,
    buffers: &mut AxpyBuffers,
    p: &Prepared,
    mut flush: Option<&mut CudaSlice<u8>>,
    clocks: Option<&ClockMonitor>,
) -> Result<RawTiming, RunError> {
    let stream = &gpu.stream;
    let sync = |what: &str| {
        stream
            .synchronize()
            .doing(|| format!("{}: {what}", p.spec.label))
    };
    // Warm-up: one launch to learn its length, then enough to fill the warm-up time.
    let t0 = Instant::now();
    buffers.launch(stream, p)?;
    sync("warm-up")?;
    let one_ms = t0.elapsed().as_secs_f64() * 1e3;
    let more = ((policy.warmup_ms / one_ms.max(1e-3)).ceil() as usize).min(10_000);
    for _ in 0..more {
        buffers.launch(stream, p)?;
    }
    sync("warm-up")?;

    let event = || {
        gpu.ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .doing(|| "creating a timing event".into())
    };
    let pairs: Vec<(CudaEvent, CudaEvent)> = (0..BATCH)
        .map(|_| Ok((event()?, event()?)))
        .collect::<Result<_, RunError>>()?;
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut batches = Vec::new();
    let converged = 'sampling: loop {
        let batch_start = Instant::now();
        for (start, end) in &pairs {
            if let Some(buf) = flush.as_deref_mut() {
                let len = buf.len();
                let (ptr, _sync) = buf.device_ptr_mut(stream);
                // SAFETY: `ptr` addresses the flush buffer's own `len` bytes.
                unsafe {
                    cudarc::driver::result::memset_d8_async(ptr, 0x5a, len, stream.cu_stream())
                }
                .doing(|| "flushing L2".into())?;
            }
            start.record(stream).doing(|| "recording an event".into())?;
            buffers.launch(stream, p)?;
            end.record(stream).doing(|| "recording an event".into())?;
        }
        let mut taken = 0;
        let mut stop = None;
        for (start, end) in &pairs {
            let ms = start
                .elapsed_ms(end)
                .doing(|| format!("{}: reading event time", p.spec.label))?;
            samples.push(ms as f64);
            taken += 1;
            if let Next::Stop { converged } =
                next_step(&samples, started.elapsed().as_secs_f64() * 1e3, policy)
            {
                stop = Some(converged);
                break;
            }
        }
        batches.push((taken, batch_start, Instant::now()));
        if let Some(c) = stop {
            break 'sampling c;
        }
    };
    let clock = clocks.map(|m| {
        let per_batch: Vec<(usize, Vec<u32>)> = batches
            .iter()
            .map(|(n, from, to)| (*n, m.between(*from, *to).iter().map(|r| r.sm_mhz).collect()))
            .collect();
        judge(&per_batch, gpu.limits.max_sm_clock_mhz)
    });
    Ok(RawTiming {
        samples,
        converged,
        clock,
    })
}

fn finish_timing(raw: RawTiming, bytes_per_launch: u64) -> Timing {
    // Non-finite event times cannot happen for a completed pair; guard anyway.
    let s = summarize(&raw.samples).unwrap_or(super::stats::Summary {
        median: f64::NAN,
        min: f64::NAN,
        max: f64::NAN,
        mean: f64::NAN,
        rsd: f64::NAN,
    });
    Timing {
        samples_ms: raw.samples,
        median_ms: s.median,
        min_ms: s.min,
        max_ms: s.max,
        rsd: s.rsd,
        gbps: bytes_per_launch as f64 / (s.median * 1e-3) / 1e9,
        sm_clock_mhz: raw.clock.as_ref().and_then(|c| c.median_mhz),
        throttled_samples: raw.clock.as_ref().map_or(0, |c| c.throttled_samples),
        converged: raw.converged,
    }
}

/// Launch each configuration once, in order, and nothing else: the pass `ncu` watches to
/// measure achieved occupancy, one profiled kernel per configuration.
pub fn launch_once(gpu: &Gpu, spec: &TimedSpec, prepared: &[Prepared]) -> Result<(), RunError> {
    let mut buffers = AxpyBuffers::new(gpu, spec)?;
    for p in prepared {
        buffers.launch(&gpu.stream, p)?;
        gpu.stream
            .synchronize()
            .doing(|| format!("{}: profiled launch", p.spec.label))?;
    }
    Ok(())
}
