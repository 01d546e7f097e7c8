//! Per-architecture SM limits that decide how many blocks fit on one SM.
//!
//! Sources, referred to by tag in the comments below:
//! - `[occ13]`: `cuda_occupancy.h` from the CUDA 13.0 toolkit
//!   (`/usr/local/cuda-13.0/include`, `__CUDA_OCC_MAJOR__ 12`, `__CUDA_OCC_MINOR__ 1`),
//!   read on the project's H200 machine. This header is the occupancy
//!   calculator the runtime ships, so where it encodes a rule we copy the rule.
//! - `[occ126]`: the same header from CUDA 12.6, which agrees with `[occ13]`
//!   for every architecture up to sm_90.
//! - `[pg]`: CUDA C++ Programming Guide, "Technical Specifications per Compute
//!   Capability" table.
//! - `[cccl]`: NVIDIA CCCL `cudax/.../__device/arch_traits.cuh` (per-arch
//!   shared memory per SM, opt-in maximum, reserved bytes, blocks and threads per SM).
//! - `[bw]`: Blackwell Tuning Guide, section "Occupancy".
//! - `[h200]`: `cudaGetDeviceProperties` on the project's H200 (driver
//!   580.159.04, CUDA 13.0), recorded in `testdata/h200_driver_occupancy.txt`.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::model::OccupancyError;

/// A GPU architecture the occupancy model knows, named by its `sm_XY` target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(into = "String")]
pub enum Arch {
    /// Turing (T4, RTX 20xx), compute capability 7.5.
    Sm75,
    /// Ampere data centre (A100), 8.0.
    Sm80,
    /// Ampere consumer and workstation (RTX 30xx, A40), 8.6.
    Sm86,
    /// Ada Lovelace (RTX 40xx, L4, L40S), 8.9.
    Sm89,
    /// Hopper (H100, H200), 9.0.
    Sm90,
    /// Blackwell data centre (B200), 10.0.
    Sm100,
    /// Blackwell consumer (RTX 50xx), 12.0.
    Sm120,
}

impl Arch {
    /// Every architecture in the table, oldest first.
    pub const ALL: [Arch; 7] = [
        Arch::Sm75,
        Arch::Sm80,
        Arch::Sm86,
        Arch::Sm89,
        Arch::Sm90,
        Arch::Sm100,
        Arch::Sm120,
    ];

    /// The `sm_XY` spelling used by nvcc and by this tool's `--arch`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm75 => "sm_75",
            Arch::Sm80 => "sm_80",
            Arch::Sm86 => "sm_86",
            Arch::Sm89 => "sm_89",
            Arch::Sm90 => "sm_90",
            Arch::Sm100 => "sm_100",
            Arch::Sm120 => "sm_120",
        }
    }

    /// Compute capability as (major, minor).
    pub fn compute_capability(self) -> (u32, u32) {
        match self {
            Arch::Sm75 => (7, 5),
            Arch::Sm80 => (8, 0),
            Arch::Sm86 => (8, 6),
            Arch::Sm89 => (8, 9),
            Arch::Sm90 => (9, 0),
            Arch::Sm100 => (10, 0),
            Arch::Sm120 => (12, 0),
        }
    }

    /// Parses a compute capability as tools print it ("9.0", as in Nsight
    /// Compute's `CC` column or `nvidia-smi --query-gpu=compute_cap`).
    pub fn from_compute_capability(cc: &str) -> Result<Arch, OccupancyError> {
        let unknown = || OccupancyError::UnknownArch(cc.to_string());
        let (major, minor) = cc.trim().split_once('.').ok_or_else(unknown)?;
        let major: u32 = major.parse().map_err(|_| unknown())?;
        let minor: u32 = minor.parse().map_err(|_| unknown())?;
        Arch::ALL
            .into_iter()
            .find(|a| a.compute_capability() == (major, minor))
            .ok_or_else(unknown)
    }

    /// The limits table row for this architecture.
    pub fn limits(self) -> &'static ArchLimits {
        match self {
            Arch::Sm75 => &SM75,
            Arch::Sm80 => &SM80,
            Arch::Sm86 => &SM86,
            Arch::Sm89 => &SM89,
            Arch::Sm90 => &SM90,
            Arch::Sm100 => &SM100,
            Arch::Sm120 => &SM120,
        }
    }

    /// The GPU whose SM count is assumed when a wave count is asked for
    /// without `--sms`.
    pub fn reference_gpu(self) -> &'static KnownGpu {
        KNOWN_GPUS
            .iter()
            .find(|g| g.arch == self)
            .expect("every Arch has a row in KNOWN_GPUS (checked by a test)")
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Arch> for String {
    fn from(arch: Arch) -> String {
        arch.name().to_string()
    }
}

impl FromStr for Arch {
    type Err = OccupancyError;

    /// Accepts `sm_90`, `sm90`, `90`, `compute_90`, `9.0`, and the
    /// family/arch-specific suffixes `sm_90a` / `sm_100f`, which change the
    /// instruction set but not the occupancy limits.
    fn from_str(s: &str) -> Result<Arch, OccupancyError> {
        let trimmed = s.trim().to_ascii_lowercase();
        if trimmed.contains('.') {
            return Arch::from_compute_capability(&trimmed);
        }
        let digits = trimmed
            .strip_prefix("sm_")
            .or_else(|| trimmed.strip_prefix("sm"))
            .or_else(|| trimmed.strip_prefix("compute_"))
            .unwrap_or(&trimmed)
            .trim_end_matches(['a', 'f']);
        Arch::ALL
            .into_iter()
            .find(|a| &a.name()[3..] == digits)
            .ok_or_else(|| OccupancyError::UnknownArch(s.to_string()))
    }
}

/// Resource limits of one SM, in the units the occupancy rules use.
///
/// Byte quantities are bytes; register quantities are 32-bit registers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchLimits {
    pub arch: Arch,
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    pub registers_per_block: u32,
    pub max_registers_per_thread: u32,
    /// Registers are handed to a warp in multiples of this many.
    pub register_allocation_unit: u32,
    /// The register file is split across this many SM sub-partitions, and a
    /// warp's registers come from one of them.
    pub register_sub_partitions: u32,
    /// Largest shared memory carveout per SM (`sharedMemPerMultiprocessor`).
    pub shared_memory_per_sm: u64,
    /// Per-block limit without opting in (`sharedMemPerBlock`).
    pub shared_memory_per_block: u64,
    /// Per-block limit after `cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`.
    pub shared_memory_per_block_optin: u64,
    /// Statically declared `__shared__` arrays may not exceed this.
    pub max_static_shared_memory_per_block: u64,
    /// Bytes the driver adds to every block's shared memory for its own use.
    pub reserved_shared_memory_per_block: u64,
    /// A block's shared memory is rounded up to a multiple of this.
    pub shared_memory_allocation_unit: u64,
    /// The shared memory capacities (KiB per SM) the L1/shared split can take.
    pub carveout_steps_kib: &'static [u64],
    /// Named barriers available to one block (`bar.sync 0..15`).
    pub max_barriers_per_block: u32,
    /// Barrier slots per SM, as a multiple of `max_blocks_per_sm`. `None` where
    /// the occupancy calculator applies no barrier limit (before sm_90).
    pub barrier_slots_per_block_slot: Option<u32>,
}

impl ArchLimits {
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size
    }

    /// Barrier slots on one SM, when the calculator limits barriers at all.
    pub fn barrier_slots_per_sm(&self) -> Option<u32> {
        self.barrier_slots_per_block_slot
            .map(|k| k * self.max_blocks_per_sm)
    }

    /// The smallest carveout step that holds `bytes`, mirroring
    /// `cudaOccAlignUpShmemSizeVoltaPlus`; `None` when no step is big enough.
    pub fn carveout_at_least(&self, bytes: u64) -> Option<u64> {
        self.carveout_steps_kib
            .iter()
            .map(|kib| kib * 1024)
            .find(|&step| step >= bytes)
    }
}

const KIB: u64 = 1024;

// Values common to sm_75 .. sm_120:
// - warp size 32, 1024 threads per block, 64 K registers per SM and per block,
//   255 registers per thread: [pg]; [bw] repeats 64 K and 255 for 10.0/12.0.
//   ([occ13] lets the calculator accept 256 per thread on 7.x+, but nvcc never
//   emits more than 255, so 255 is the limit a user can meet.)
// - register allocation unit 256 and 4 sub-partitions:
//   [occ13] cudaOccRegAllocationGranularity, cudaOccSubPartitionsPerMultiprocessor.
// - default 48 KiB per block and 48 KiB static: [pg], [cccl] arch_common_traits.
// - 16 named barriers per block: [pg] / PTX ISA `bar` (barrier ids 0..15).
const WARP: u32 = 32;
const THREADS_PER_BLOCK: u32 = 1024;
const REGS: u32 = 64 * 1024;
const REGS_PER_THREAD: u32 = 255;
const REG_UNIT: u32 = 256;
const SUB_PARTITIONS: u32 = 4;
const DEFAULT_SMEM_PER_BLOCK: u64 = 48 * KIB;
const NAMED_BARRIERS: u32 = 16;

// Carveout steps: [occ13] cudaOccAlignUpShmemSizeVoltaPlus.
const STEPS_TURING: &[u64] = &[32, 64];
const STEPS_GA100: &[u64] = &[0, 8, 16, 32, 64, 100, 132, 164];
const STEPS_100K: &[u64] = &[0, 8, 16, 32, 64, 100];
const STEPS_228K: &[u64] = &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228];

static SM75: ArchLimits = ArchLimits {
    arch: Arch::Sm75,
    warp_size: WARP,
    max_threads_per_block: THREADS_PER_BLOCK,
    // 1024 threads (32 warps), 16 blocks: [pg], [cccl] sm_750_traits,
    // [occ13] cudaOccMaxBlocksPerMultiprocessor (isTuring -> 16).
    max_threads_per_sm: 1024,
    max_blocks_per_sm: 16,
    registers_per_sm: REGS,
    registers_per_block: REGS,
    max_registers_per_thread: REGS_PER_THREAD,
    register_allocation_unit: REG_UNIT,
    register_sub_partitions: SUB_PARTITIONS,
    // 64 KiB per SM, opt-in 64 KiB, no reserved bytes: [cccl] sm_750_traits;
    // [occ13] adds the reservation only from major 8.
    shared_memory_per_sm: 64 * KIB,
    shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    shared_memory_per_block_optin: 64 * KIB,
    max_static_shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    reserved_shared_memory_per_block: 0,
    // 256 B on 7.x: [occ13] cudaOccSMemAllocationGranularity.
    shared_memory_allocation_unit: 256,
    carveout_steps_kib: STEPS_TURING,
    max_barriers_per_block: NAMED_BARRIERS,
    // [occ13] applies the barrier limit only for major >= 9.
    barrier_slots_per_block_slot: None,
};

static SM80: ArchLimits = ArchLimits {
    arch: Arch::Sm80,
    warp_size: WARP,
    max_threads_per_block: THREADS_PER_BLOCK,
    // 2048 threads, 32 blocks: [pg], [cccl] sm_800_traits, [occ13].
    max_threads_per_sm: 2048,
    max_blocks_per_sm: 32,
    registers_per_sm: REGS,
    registers_per_block: REGS,
    max_registers_per_thread: REGS_PER_THREAD,
    register_allocation_unit: REG_UNIT,
    register_sub_partitions: SUB_PARTITIONS,
    // 164 KiB per SM, opt-in 163 KiB, 1 KiB reserved: [cccl] sm_800_traits, [pg].
    shared_memory_per_sm: 164 * KIB,
    shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    shared_memory_per_block_optin: 163 * KIB,
    max_static_shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    reserved_shared_memory_per_block: KIB,
    // 128 B from 8.x on: [occ13].
    shared_memory_allocation_unit: 128,
    carveout_steps_kib: STEPS_GA100,
    max_barriers_per_block: NAMED_BARRIERS,
    barrier_slots_per_block_slot: None,
};

static SM86: ArchLimits = ArchLimits {
    arch: Arch::Sm86,
    warp_size: WARP,
    max_threads_per_block: THREADS_PER_BLOCK,
    // 1536 threads (48 warps), 16 blocks: [pg], [cccl] sm_860_traits, [occ13].
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 16,
    registers_per_sm: REGS,
    registers_per_block: REGS,
    max_registers_per_thread: REGS_PER_THREAD,
    register_allocation_unit: REG_UNIT,
    register_sub_partitions: SUB_PARTITIONS,
    // 100 KiB per SM, opt-in 99 KiB, 1 KiB reserved: [cccl] sm_860_traits, [pg].
    shared_memory_per_sm: 100 * KIB,
    shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    shared_memory_per_block_optin: 99 * KIB,
    max_static_shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    reserved_shared_memory_per_block: KIB,
    shared_memory_allocation_unit: 128,
    carveout_steps_kib: STEPS_100K,
    max_barriers_per_block: NAMED_BARRIERS,
    barrier_slots_per_block_slot: None,
};

static SM89: ArchLimits = ArchLimits {
    arch: Arch::Sm89,
    warp_size: WARP,
    max_threads_per_block: THREADS_PER_BLOCK,
    // 1536 threads, 24 blocks: [pg], [cccl] sm_890_traits, [occ13] (minor 9 -> 24).
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 24,
    registers_per_sm: REGS,
    registers_per_block: REGS,
    max_registers_per_thread: REGS_PER_THREAD,
    register_allocation_unit: REG_UNIT,
    register_sub_partitions: SUB_PARTITIONS,
    // Same shared memory as sm_86: [cccl] sm_890_traits, [pg].
    shared_memory_per_sm: 100 * KIB,
    shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    shared_memory_per_block_optin: 99 * KIB,
    max_static_shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    reserved_shared_memory_per_block: KIB,
    shared_memory_allocation_unit: 128,
    carveout_steps_kib: STEPS_100K,
    max_barriers_per_block: NAMED_BARRIERS,
    barrier_slots_per_block_slot: None,
};

static SM90: ArchLimits = ArchLimits {
    arch: Arch::Sm90,
    warp_size: WARP,
    max_threads_per_block: THREADS_PER_BLOCK,
    // 2048 threads, 32 blocks: [h200] maxThreadsPerMultiProcessor=2048,
    // maxBlocksPerMultiProcessor=32; [occ13]; [cccl] sm_900_traits.
    max_threads_per_sm: 2048,
    max_blocks_per_sm: 32,
    registers_per_sm: REGS,
    registers_per_block: REGS,
    max_registers_per_thread: REGS_PER_THREAD,
    register_allocation_unit: REG_UNIT,
    register_sub_partitions: SUB_PARTITIONS,
    // [h200]: sharedMemPerMultiprocessor=233472 (228 KiB),
    // sharedMemPerBlockOptin=232448 (227 KiB), reservedSharedMemPerBlock=1024.
    shared_memory_per_sm: 228 * KIB,
    shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    shared_memory_per_block_optin: 227 * KIB,
    max_static_shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    reserved_shared_memory_per_block: KIB,
    shared_memory_allocation_unit: 128,
    carveout_steps_kib: STEPS_228K,
    max_barriers_per_block: NAMED_BARRIERS,
    // [occ13] cudaOccMaxBlocksPerSMBlockBarrierLimit: 2 x block limit on 9.x.
    barrier_slots_per_block_slot: Some(2),
};

static SM100: ArchLimits = ArchLimits {
    arch: Arch::Sm100,
    warp_size: WARP,
    max_threads_per_block: THREADS_PER_BLOCK,
    // 64 warps, 32 blocks: [bw]; [occ13] (major 10, minor 0 -> 32).
    max_threads_per_sm: 2048,
    max_blocks_per_sm: 32,
    registers_per_sm: REGS,
    registers_per_block: REGS,
    max_registers_per_thread: REGS_PER_THREAD,
    register_allocation_unit: REG_UNIT,
    register_sub_partitions: SUB_PARTITIONS,
    // 228 KiB per SM, 227 KiB per block: [bw]. The 1 KiB reservation is
    // inferred from 228 - 227 and the sm_80+ pattern; not read from a device.
    shared_memory_per_sm: 228 * KIB,
    shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    shared_memory_per_block_optin: 227 * KIB,
    max_static_shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    reserved_shared_memory_per_block: KIB,
    // [occ13]: 128 B for majors 10..12.
    shared_memory_allocation_unit: 128,
    // [occ13]: 10.0/10.1/10.3 share the 228 KiB step list.
    carveout_steps_kib: STEPS_228K,
    max_barriers_per_block: NAMED_BARRIERS,
    // [occ13]: 2 x block limit on 10.0.
    barrier_slots_per_block_slot: Some(2),
};

static SM120: ArchLimits = ArchLimits {
    arch: Arch::Sm120,
    warp_size: WARP,
    max_threads_per_block: THREADS_PER_BLOCK,
    // 48 warps: [bw]. Blocks: [occ13] says 24 for major 12, while [bw] says
    // 32; we follow the header because it is what the runtime computes with.
    max_threads_per_sm: 1536,
    max_blocks_per_sm: 24,
    registers_per_sm: REGS,
    registers_per_block: REGS,
    max_registers_per_thread: REGS_PER_THREAD,
    register_allocation_unit: REG_UNIT,
    register_sub_partitions: SUB_PARTITIONS,
    // [bw]: 99 KiB per block. [bw] calls the SM's unified L1/shared array
    // 128 KiB, but [occ13]'s step list for 12.x tops out at 100 KiB, so the
    // largest shared carveout is 100 KiB, as on sm_86/89.
    shared_memory_per_sm: 100 * KIB,
    shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    shared_memory_per_block_optin: 99 * KIB,
    max_static_shared_memory_per_block: DEFAULT_SMEM_PER_BLOCK,
    reserved_shared_memory_per_block: KIB,
    shared_memory_allocation_unit: 128,
    carveout_steps_kib: STEPS_100K,
    max_barriers_per_block: NAMED_BARRIERS,
    // [occ13]: 1 x block limit on 12.x.
    barrier_slots_per_block_slot: Some(1),
};

/// A named GPU and its SM count, used for wave counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KnownGpu {
    pub name: &'static str,
    pub arch: Arch,
    pub sm_count: u32,
    /// Where the SM count comes from.
    pub source: &'static str,
}

/// The first row per architecture is that architecture's reference GPU.
pub static KNOWN_GPUS: &[KnownGpu] = &[
    KnownGpu {
        name: "NVIDIA Tesla T4",
        arch: Arch::Sm75,
        sm_count: 40,
        source: "vendor specification, not re-checked here; the seed lesson's table came from a T4",
    },
    KnownGpu {
        name: "NVIDIA A100",
        arch: Arch::Sm80,
        sm_count: 108,
        source: "vendor specification (A100 whitepaper), not re-checked here",
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3090",
        arch: Arch::Sm86,
        sm_count: 82,
        source: "vendor specification (GA102 whitepaper), not re-checked here",
    },
    KnownGpu {
        name: "NVIDIA L4",
        arch: Arch::Sm89,
        sm_count: 58,
        source: "vendor specification (L4 datasheet), not re-checked here",
    },
    KnownGpu {
        name: "NVIDIA H200",
        arch: Arch::Sm90,
        sm_count: 132,
        source: "measured: multiProcessorCount on the project's H200 (testdata/h200_driver_occupancy.txt)",
    },
    KnownGpu {
        name: "NVIDIA H100 SXM5",
        arch: Arch::Sm90,
        sm_count: 132,
        source: "vendor specification (H100 whitepaper), not re-checked here",
    },
    KnownGpu {
        name: "NVIDIA B200",
        arch: Arch::Sm100,
        sm_count: 148,
        source: "vendor specification, not re-checked here",
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 5090",
        arch: Arch::Sm120,
        sm_count: 170,
        source: "vendor specification, not re-checked here",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_arch_has_a_reference_gpu() {
        for arch in Arch::ALL {
            assert_eq!(arch.reference_gpu().arch, arch);
        }
    }

    #[test]
    fn arch_parses_common_spellings() {
        for s in ["sm_90", "SM90", "90", "compute_90", "sm_90a", "9.0"] {
            assert_eq!(s.parse::<Arch>().unwrap(), Arch::Sm90, "{s}");
        }
        assert_eq!("sm_100f".parse::<Arch>().unwrap(), Arch::Sm100);
        assert_eq!("sm_120".parse::<Arch>().unwrap(), Arch::Sm120);
        assert!("sm_70".parse::<Arch>().is_err());
        assert!("".parse::<Arch>().is_err());
    }

    #[test]
    fn compute_capability_strings_map_to_arches() {
        assert_eq!(Arch::from_compute_capability("9.0").unwrap(), Arch::Sm90);
        assert_eq!(Arch::from_compute_capability("7.5").unwrap(), Arch::Sm75);
        assert_eq!(Arch::from_compute_capability("12.0").unwrap(), Arch::Sm120);
        assert!(matches!(
            Arch::from_compute_capability("8.7"),
            Err(OccupancyError::UnknownArch(_))
        ));
        assert!(Arch::from_compute_capability("nine").is_err());
    }

    #[test]
    fn largest_carveout_step_equals_shared_memory_per_sm() {
        for arch in Arch::ALL {
            let l = arch.limits();
            let top = l.carveout_steps_kib.last().copied().unwrap() * KIB;
            assert_eq!(top, l.shared_memory_per_sm, "{arch}");
            // The biggest legal block (opt-in + reservation) must fit the top step.
            assert!(
                l.shared_memory_per_block_optin + l.reserved_shared_memory_per_block <= top,
                "{arch}"
            );
        }
    }

    #[test]
    fn carveout_rounds_up_to_next_step() {
        let l = Arch::Sm90.limits();
        assert_eq!(l.carveout_at_least(0), Some(0));
        assert_eq!(l.carveout_at_least(1), Some(8 * KIB));
        assert_eq!(l.carveout_at_least(23_347), Some(32 * KIB));
        assert_eq!(l.carveout_at_least(228 * KIB + 1), None);
        // Turing has no zero step: the smallest split is 32 KiB.
        assert_eq!(Arch::Sm75.limits().carveout_at_least(0), Some(32 * KIB));
    }
}
