//! Finding the GPU: is there a driver, a device, NVRTC; what the device is and its limits.
//! Every check that can fail without a GPU happens before cudarc is asked to load
//! anything, because cudarc panics when a library it needs is absent.

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaStream};

use super::error::{Doing, RunError};
use crate::measure::record::{DeviceLimits, GpuInfo};

/// The opened device: a context, its stream, and what the record says about it.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: GpuInfo,
    pub limits: DeviceLimits,
    /// "sm_90": the architecture NVRTC compiles for, taken from the device itself.
    pub arch: String,
    /// The properties experiment expressions read (`l2_bytes`, `sm_count`...), from the
    /// device; recorded with every record.
    pub device: crate::measure::spec::plan::DeviceVars,
}

/// Whether libcuda can be loaded. Cheap; loads nothing else.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

pub fn nvrtc_present() -> bool {
    // SAFETY: as above, for libnvrtc.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

impl Gpu {
    /// Open device 0. Fails with a clear message, never a panic, where there is no
    /// driver, no NVRTC or no device.
    pub fn open() -> Result<Gpu, RunError> {
        if !driver_present() {
            return Err(RunError::NoDriver);
        }
        if !nvrtc_present() {
            return Err(RunError::NoNvrtc);
        }
        let ctx = open_device_0()?;
        let stream = ctx.default_stream();
        let attr = |a: Attr| attribute(&ctx, a);
        let (major, minor) = ctx
            .compute_capability()
            .doing(|| "reading the compute capability".into())?;
        let name = ctx.name().doing(|| "reading the device name".into())?;
        let uuid = ctx.uuid().doing(|| "reading the device UUID".into())?;
        let limits = DeviceLimits {
            warp_size: attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_threads_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            max_blocks_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            registers_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            registers_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            shared_memory_per_sm: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            )?,
            shared_memory_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_memory_per_block_optin: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            reserved_shared_memory_per_block: attr(
                Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            )?,
            max_sm_clock_mhz: attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)? / 1000,
        };
        let info = GpuInfo {
            name: name.trim().to_string(),
            uuid: format_uuid(&uuid.bytes),
            compute_capability: format!("{major}.{minor}"),
            sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            driver_version: driver_version(),
            cuda_driver_api: cuda_driver_api()?,
            nvrtc_version: nvrtc_version()?,
            l2_bytes: Some(attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?.into()),
        };
        let total_mem = ctx
            .total_mem()
            .doing(|| "reading the device memory size".into())?;
        let device = [
            ("sm_count", info.sm_count as i64),
            ("l2_bytes", info.l2_bytes.unwrap_or(0) as i64),
            ("mem_bytes", total_mem as i64),
            ("warp_size", limits.warp_size.into()),
            ("max_threads_per_sm", limits.max_threads_per_sm.into()),
            ("max_threads_per_block", limits.max_threads_per_block.into()),
            ("max_blocks_per_sm", limits.max_blocks_per_sm.into()),
            ("regs_per_sm", limits.registers_per_sm.into()),
            ("smem_per_sm", limits.shared_memory_per_sm.into()),
            (
                "smem_per_block_optin",
                limits.shared_memory_per_block_optin.into(),
            ),
            ("clock_mhz", limits.max_sm_clock_mhz.into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        Ok(Gpu {
            ctx,
            stream,
            info,
            limits,
            arch: format!("sm_{major}{minor}"),
            device,
        })
    }
}

/// What a node's profile says of its GPU, as the driver reports it: what `glossary verify
/// init-node` writes into `[nodes.NAME]`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceFacts {
    /// `cuDeviceGetName`, as records and the node check compare it.
    pub name: String,
    /// "9.0".
    pub compute_capability: String,
    /// "sm_90".
    pub arch: String,
    pub sm_count: u32,
    pub l2_bytes: u64,
    pub mem_bytes: u64,
    pub uuid: String,
}

/// Device 0 as the driver reports it. Needs the driver only (no NVRTC): a machine that
/// will verify needs NVRTC too, which `verify --dry-run` checks. Fails with a clear
/// message, never a panic, where there is no driver or no device.
pub fn read_device() -> Result<DeviceFacts, RunError> {
    if !driver_present() {
        return Err(RunError::NoDriver);
    }
    let ctx = open_device_0()?;
    let attr = |a: Attr| attribute(&ctx, a);
    let (major, minor) = ctx
        .compute_capability()
        .doing(|| "reading the compute capability".into())?;
    Ok(DeviceFacts {
        name: ctx
            .name()
            .doing(|| "reading the device name".into())?
            .trim()
            .to_string(),
        compute_capability: format!("{major}.{minor}"),
        arch: format!("sm_{major}{minor}"),
        sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?.into(),
        mem_bytes: ctx
            .total_mem()
            .doing(|| "reading the device memory size".into())? as u64,
        uuid: format_uuid(&ctx.uuid().doing(|| "reading the device UUID".into())?.bytes),
    })
}

/// A context on device 0, the one GPU verify and init-node read: an error, never a
/// panic, where the driver sees none.
fn open_device_0() -> Result<Arc<CudaContext>, RunError> {
    let count = CudaContext::device_count().map_err(|e| RunError::NoDevice(format!("{e:?}")))?;
    if count < 1 {
        return Err(RunError::NoDevice("device count is 0".into()));
    }
    CudaContext::new(0).doing(|| "opening a context on device 0".into())
}

/// One device attribute as a count (the driver's negative answers read as 0).
fn attribute(ctx: &CudaContext, a: Attr) -> Result<u32, RunError> {
    ctx.attribute(a)
        .doing(|| format!("reading device attribute {a:?}"))
        .map(|v| v.max(0) as u32)
}

/// nvidia-smi's spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
pub fn format_uuid(bytes: &[std::ffi::c_char; 16]) -> String {
    let h: Vec<String> = bytes.iter().map(|b| format!("{:02x}", *b as u8)).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        h[0..4].concat(),
        h[4..6].concat(),
        h[6..8].concat(),
        h[8..10].concat(),
        h[10..16].concat()
    )
}

/// The kernel driver's version ("580.159.04"). The CUDA driver API has no call for it;
/// the kernel module publishes it in /proc, and nvidia-smi reads the same.
fn driver_version() -> String {
    if let Ok(text) = std::fs::read_to_string("/proc/driver/nvidia/version") {
        if let Some(v) = parse_proc_driver_version(&text) {
            return v;
        }
    }
    std::process::Command::new("nvidia-smi")
        .args([
            "--query-gpu=driver_version",
            "--format=csv,noheader",
            "-i",
            "0",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ..." -> "580.159.04"
pub fn parse_proc_driver_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("NVRM version"))?;
    line.split_whitespace()
        .find(|w| w.split('.').count() >= 2 && w.split('.').all(|p| p.parse::<u32>().is_ok()))
        .map(str::to_string)
}

fn cuda_driver_api() -> Result<String, RunError> {
    let mut v: std::ffi::c_int = 0;
    // SAFETY: the driver library is present (checked by the caller) and `v` outlives the call.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) }
        .result()
        .doing(|| "reading the CUDA driver API version".into())?;
    Ok(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

fn nvrtc_version() -> Result<String, RunError> {
    let (mut major, mut minor): (std::ffi::c_int, std::ffi::c_int) = (0, 0);
    // SAFETY: NVRTC is present (checked by the caller); both out-pointers are live locals.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .doing(|| "reading the NVRTC version".into())?;
    Ok(format!("{major}.{minor}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_uuid_like_nvidia_smi() {
        let mut b = [0 as std::ffi::c_char; 16];
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i as u8 * 17) as std::ffi::c_char;
        }
        assert_eq!(format_uuid(&b), "GPU-00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn reads_driver_version_from_proc_text() {
        let t = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  2 2025\nGCC version: gcc 12\n";
        assert_eq!(parse_proc_driver_version(t).as_deref(), Some("580.159.04"));
        assert_eq!(parse_proc_driver_version("nothing"), None);
    }
}
