//! Device buffers of one configuration: allocated, filled from the seed, poisoned before
//! each check, read back. Kept across configurations whose buffers are the same, so a
//! sweep over launch shapes uploads its inputs once.

use std::ffi::c_void;

use cudarc::driver::result as cu;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::CudaStream;

use super::error::{Doing, RunError};
use super::gpu::Gpu;
use super::inputs::fill_bytes;
use super::prepare::PreparedLaunch;
use crate::measure::spec::plan::{Arg, BufferPlan, LaunchPlan};

struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated by malloc_sync below and freed only here. A failed free leaks
        // memory the process returns at exit anyway.
        let _ = unsafe { cu::free_sync(self.ptr) };
    }
}

pub struct Buffers {
    plans: Vec<BufferPlan>,
    seed: u64,
    device: Vec<DeviceBuffer>,
}

impl Buffers {
    /// Buffers for `plans`: the ones already held when they match, else new ones.
    pub fn ensure(
        held: Option<Buffers>,
        gpu: &Gpu,
        plans: &[BufferPlan],
        seed: u64,
    ) -> Result<Buffers, RunError> {
        if let Some(h) = held {
            if h.plans == plans && h.seed == seed {
                return Ok(h);
            }
            drop(h);
        }
        gpu.ctx
            .bind_to_thread()
            .doing(|| "binding the CUDA context".into())?;
        let mut device = Vec::new();
        for b in plans {
            let bytes = b.bytes() as usize;
            // SAFETY: a plain device allocation, owned by the DeviceBuffer.
            let ptr = unsafe { cu::malloc_sync(bytes) }
                .doing(|| format!("allocating buffer `{}` ({bytes} bytes)", b.name))?;
            let buf = DeviceBuffer { ptr, bytes };
            if !b.output {
                let host = fill_bytes(b, seed);
                // SAFETY: `ptr` holds exactly `bytes` = host.len() bytes.
                unsafe { cu::memcpy_htod_sync(buf.ptr, &host) }
                    .doing(|| format!("copying buffer `{}` to the device", b.name))?;
            } else {
                // SAFETY: as above.
                unsafe { cu::memset_d8_sync(buf.ptr, 0, bytes) }
                    .doing(|| format!("clearing buffer `{}`", b.name))?;
            }
            device.push(buf);
        }
        Ok(Buffers {
            plans: plans.to_vec(),
            seed,
            device,
        })
    }

    /// Whether these are the buffers `plans` asks for (same sizes, types and contents).
    pub fn matches(&self, plans: &[BufferPlan], seed: u64) -> bool {
        self.plans == plans && self.seed == seed
    }

    /// Every output to 0xFF bytes (NaN for floats), so an element no kernel writes
    /// cannot pass.
    pub fn poison(&self, gpu: &Gpu) -> Result<(), RunError> {
        for (b, d) in self.plans.iter().zip(&self.device) {
            if b.output {
                // SAFETY: `d.ptr` addresses `d.bytes` bytes of ours.
                unsafe { cu::memset_d8_async(d.ptr, 0xff, d.bytes, gpu.stream.cu_stream()) }
                    .doing(|| format!("poisoning `{}`", b.name))?;
            }
        }
        Ok(())
    }

    /// The outputs' bytes, in buffer order.
    pub fn read_outputs(&self, gpu: &Gpu) -> Result<Vec<Vec<u8>>, RunError> {
        gpu.stream
            .synchronize()
            .doing(|| "waiting for the launches".into())?;
        let mut out = Vec::new();
        for (b, d) in self.plans.iter().zip(&self.device) {
            if b.output {
                let mut host = vec![0u8; d.bytes];
                // SAFETY: `host` and the device buffer are both `d.bytes` long.
                unsafe { cu::memcpy_dtoh_sync(&mut host, d.ptr) }
                    .doing(|| format!("copying `{}` back", b.name))?;
                out.push(host);
            }
        }
        Ok(out)
    }

    pub fn outputs(&self) -> impl Iterator<Item = &BufferPlan> {
        self.plans.iter().filter(|b| b.output)
    }

    /// Launch `l` on the GPU's stream with its arguments bound to these buffers.
    pub fn launch(&self, gpu: &Gpu, l: &PreparedLaunch) -> Result<(), RunError> {
        self.launch_on(&gpu.stream, l)
    }

    /// Launch `l` on `stream` (the GPU's, or one being captured into a graph).
    pub fn launch_on(&self, stream: &CudaStream, l: &PreparedLaunch) -> Result<(), RunError> {
        let stream = stream.cu_stream();
        let mut slots: Vec<u64> = l
            .plan
            .args
            .iter()
            .map(|a| match a {
                Arg::Buffer(i) => self.device[*i].ptr,
                Arg::Scalar { bytes, .. } => {
                    let mut b = [0u8; 8];
                    b[..bytes.len()].copy_from_slice(bytes);
                    u64::from_le_bytes(b)
                }
            })
            .collect();
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s as *mut u64 as *mut c_void)
            .collect();
        let [gx, gy, gz] = l.plan.grid;
        let [bx, by, bz] = l.plan.block;
        if let Some(cluster) = l.plan.cluster {
            let mut attr = [cluster_attribute(cluster)];
            let config = launch_config(&l.plan, l.smem, stream, &mut attr);
            // SAFETY: as for the plain launch below; `config` and the attribute it points
            // to outlive the call, which reads them and copies the parameters.
            return unsafe {
                sys::cuLaunchKernelEx(
                    &config,
                    l.function.cu_function(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            .result()
            .doing(|| format!("launching {} in clusters of {cluster:?}", l.plan.kernel));
        }
        // SAFETY: argument count and sizes were checked against the kernel (source
        // signature and cuFuncGetParamInfo); each slot is 8 bytes, little-endian, so a
        // 4-byte parameter reads its first 4; `slots` outlives the call, which copies
        // the parameters. Buffers are sized by the experiment and the kernels index them.
        unsafe {
            cu::launch_kernel(
                l.function.cu_function(),
                (gx, gy, gz),
                (bx, by, bz),
                l.smem,
                stream,
                &mut params,
            )
        }
        .doing(|| format!("launching {}", l.plan.kernel))
    }
}

/// The launch attribute that makes a launch one of thread-block clusters of `dims`.
pub fn cluster_attribute(dims: [u32; 3]) -> sys::CUlaunchAttribute {
    // SAFETY: a plain-data C struct and union; all zeros is a valid value of each.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: dims[0],
        y: dims[1],
        z: dims[2],
    };
    attr
}

/// `cuLaunchKernelEx`'s (and `cuOccupancyMaxActiveClusters`'s) description of `plan`
/// with `smem` bytes of dynamic shared memory, on `stream`, with the attributes `attrs`
/// (which must outlive every use of the result).
pub fn launch_config(
    plan: &LaunchPlan,
    smem: u32,
    stream: CUstream,
    attrs: &mut [sys::CUlaunchAttribute],
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: plan.grid[0],
        gridDimY: plan.grid[1],
        gridDimZ: plan.grid[2],
        blockDimX: plan.block[0],
        blockDimY: plan.block[1],
        blockDimZ: plan.block[2],
        sharedMemBytes: smem,
        hStream: stream,
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as std::ffi::c_uint,
    }
}
