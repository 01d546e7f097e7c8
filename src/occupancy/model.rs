//! The occupancy computation: how many blocks of a launch fit on one SM, and
//! which resource stops the next one.
//!
//! The arithmetic mirrors `cudaOccMaxActiveBlocksPerMultiprocessor` in the
//! toolkit's `cuda_occupancy.h` (see `arch.rs` for the version read), and is
//! checked against the driver's own answers recorded on an H200 in
//! `testdata/h200_driver_occupancy.txt`.
//!
//! # Why the seed essay's "51 warps at 40 registers" does not happen
//!
//! The essay divides the whole register file by one warp's registers:
//! 65536 / (40 × 32) = 51.2 → 51 warps. The hardware makes two cuts the
//! essay skips. First, the register file is split into four sub-partitions
//! and a warp draws all its registers from one of them, so the division
//! happens per sub-partition: 16384 / 1280 = 12 warps each, 48 per SM.
//! Second, warps arrive in whole blocks, so the 48 is then floored to a
//! multiple of the block's warp count. A 40-register kernel therefore tops
//! out at 48 resident warps (75 %) on a 64-warp SM, whatever the block size,
//! and fewer when the block's warp count does not divide 48 (a 320-thread
//! block: 4 blocks, 40 warps).

use serde::Serialize;

use super::arch::{Arch, ArchLimits};

/// What went wrong with a launch description. Every case is a launch the
/// driver would refuse (or that a user cannot write), never an internal fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OccupancyError {
    #[error(
        "unknown architecture `{0}` (known: sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120)"
    )]
    UnknownArch(String),
    #[error("block size must be at least 1 thread")]
    EmptyBlock,
    #[error("a block of {block_size} threads exceeds {arch}'s limit of {max} threads per block")]
    BlockTooLarge {
        arch: Arch,
        block_size: u32,
        max: u32,
    },
    #[error("{registers} registers per thread exceeds {arch}'s limit of {max}")]
    TooManyRegisters {
        arch: Arch,
        registers: u32,
        max: u32,
    },
    #[error(
        "a block of {block_size} threads at {registers} registers per thread needs {needed} registers \
         once rounded to the allocation unit; {arch} allows {max} per block"
    )]
    RegistersPerBlockExceeded {
        arch: Arch,
        block_size: u32,
        registers: u32,
        needed: u64,
        max: u32,
    },
    #[error("{bytes} bytes of static shared memory exceeds the {max} bytes a kernel may declare statically")]
    StaticSharedMemoryTooLarge { bytes: u64, max: u64 },
    #[error(
        "{bytes} bytes of shared memory per block (static + dynamic) exceeds {arch}'s opt-in maximum of {max} bytes"
    )]
    SharedMemoryTooLarge { arch: Arch, bytes: u64, max: u64 },
    #[error("carveout {0}% is outside 0..=100")]
    CarveoutOutOfRange(u32),
    #[error("a shared memory configuration of {bytes} bytes exceeds {arch}'s {max} bytes per SM")]
    CarveoutTooLarge { arch: Arch, bytes: u64, max: u64 },
    #[error("{barriers} named barriers per block exceeds the hardware's {max}")]
    TooManyBarriers { barriers: u32, max: u32 },
    #[error("grid size must be at least 1 block")]
    EmptyGrid,
    #[error("SM count must be at least 1")]
    NoSms,
}

/// How the L1/shared-memory split is chosen for the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Carveout {
    /// No preference: the occupancy calculator assumes the largest split.
    Default,
    /// `cudaFuncAttributePreferredSharedMemoryCarveout`, in percent of the
    /// largest split (rounded up to the next step the hardware offers).
    Percent(u32),
    /// A split in bytes, such as the "Shared Memory Configuration Size"
    /// Nsight Compute reports for a recorded launch.
    Bytes(u64),
}

/// One kernel launch, described by the resources each block asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Launch {
    /// Threads per block (all dimensions multiplied).
    pub block_size: u32,
    pub registers_per_thread: u32,
    pub static_shared_memory: u64,
    pub dynamic_shared_memory: u64,
    /// Named barriers the kernel uses; the runtime assumes 1 when it converts
    /// `cudaFuncAttributes`, and so does `Launch::new`.
    pub barriers_per_block: u32,
    pub carveout: Carveout,
    /// Blocks in the grid (all dimensions multiplied), when known.
    pub grid_size: Option<u64>,
}

impl Launch {
    pub fn new(block_size: u32, registers_per_thread: u32) -> Launch {
        Launch {
            block_size,
            registers_per_thread,
            static_shared_memory: 0,
            dynamic_shared_memory: 0,
            barriers_per_block: 1,
            carveout: Carveout::Default,
            grid_size: None,
        }
    }

    pub fn with_dynamic_shared_memory(mut self, bytes: u64) -> Launch {
        self.dynamic_shared_memory = bytes;
        self
    }

    pub fn with_static_shared_memory(mut self, bytes: u64) -> Launch {
        self.static_shared_memory = bytes;
        self
    }

    pub fn with_barriers(mut self, barriers: u32) -> Launch {
        self.barriers_per_block = barriers;
        self
    }

    pub fn with_carveout(mut self, carveout: Carveout) -> Launch {
        self.carveout = carveout;
        self
    }

    pub fn with_grid(mut self, blocks: u64) -> Launch {
        self.grid_size = Some(blocks);
        self
    }
}

/// A per-SM resource that can cap resident blocks.
///
/// The declaration order is the tie-break order (see [`Occupancy::binding`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Warps,
    Registers,
    SharedMemory,
    Blocks,
    Barriers,
}

impl Resource {
    pub const ALL: [Resource; 5] = [
        Resource::Warps,
        Resource::Registers,
        Resource::SharedMemory,
        Resource::Blocks,
        Resource::Barriers,
    ];

    /// The key used in JSON and tables.
    pub fn key(self) -> &'static str {
        match self {
            Resource::Warps => "warps",
            Resource::Registers => "registers",
            Resource::SharedMemory => "shared_memory",
            Resource::Blocks => "blocks",
            Resource::Barriers => "barriers",
        }
    }

    /// Words for prose.
    pub fn label(self) -> &'static str {
        match self {
            Resource::Warps => "warps",
            Resource::Registers => "registers",
            Resource::SharedMemory => "shared memory",
            Resource::Blocks => "blocks",
            Resource::Barriers => "barriers",
        }
    }
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// Blocks per SM each resource allows on its own. `None` means the resource
/// places no limit (a kernel with no registers, no shared memory, no
/// barriers, or an architecture whose calculator does not count barriers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BlockLimits {
    pub registers: Option<u32>,
    pub shared_memory: Option<u32>,
    pub warps: u32,
    pub blocks: u32,
    pub barriers: Option<u32>,
}

impl BlockLimits {
    pub fn get(&self, resource: Resource) -> Option<u32> {
        match resource {
            Resource::Warps => Some(self.warps),
            Resource::Registers => self.registers,
            Resource::SharedMemory => self.shared_memory,
            Resource::Blocks => Some(self.blocks),
            Resource::Barriers => self.barriers,
        }
    }

    /// The smallest limit; `warps` and `blocks` always exist, so there is one.
    pub fn min(&self) -> u32 {
        Resource::ALL
            .iter()
            .filter_map(|&r| self.get(r))
            .min()
            .unwrap_or(self.warps)
    }

    /// Resources whose limit equals the minimum, in tie-break order.
    pub fn binding(&self) -> Vec<Resource> {
        let min = self.min();
        Resource::ALL
            .into_iter()
            .filter(|&r| self.get(r) == Some(min))
            .collect()
    }
}

/// How a grid spreads over the GPU's resident-block slots.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Waves {
    /// grid / (blocks per SM × SMs).
    pub waves: f64,
    /// Waves in which every slot is filled.
    pub full_waves: u64,
    /// Share of slots busy in the last wave, in (0, 1]; 1 when the grid
    /// divides evenly.
    pub last_wave_fill: f64,
}

impl Waves {
    pub fn new(grid_size: u64, blocks_per_sm: u32, sm_count: u32) -> Waves {
        let slots = u64::from(blocks_per_sm) * u64::from(sm_count);
        // Callers validate grid >= 1 and sm_count >= 1; blocks_per_sm >= 1 by
        // construction, so `slots` is positive.
        let slots = slots.max(1);
        let remainder = grid_size % slots;
        Waves {
            waves: grid_size as f64 / slots as f64,
            full_waves: grid_size / slots,
            last_wave_fill: if remainder == 0 {
                1.0
            } else {
                remainder as f64 / slots as f64
            },
        }
    }
}

/// The result for one launch on one architecture.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Occupancy {
    pub arch: Arch,
    pub block_size: u32,
    pub registers_per_thread: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub max_warps_per_sm: u32,
    /// warps_per_sm / max_warps_per_sm, in 0..=1.
    pub occupancy: f64,
    pub limits: BlockLimits,
    /// The resource to relax first. When several tie, the first in
    /// [`Resource`] order wins: warps, registers, shared memory, blocks,
    /// barriers — the bit order of `cudaOccLimitingFactor`. Putting warps
    /// first means a launch already at the warp ceiling is reported as
    /// warp-bound rather than sending the reader after registers that
    /// would buy nothing.
    pub binding: Resource,
    /// Every resource at the minimum (like `cudaOccResult::limitingFactors`).
    pub tied: Vec<Resource>,
    pub warps_per_block: u32,
    /// Registers a block really takes after per-warp rounding.
    pub registers_per_block: u64,
    /// Shared memory a block really takes: static + dynamic + driver
    /// reservation, rounded up to the allocation unit.
    pub shared_memory_per_block: u64,
    /// The shared memory split the calculation assumed, in bytes per SM.
    pub shared_memory_per_sm: u64,
    pub grid_size: Option<u64>,
    pub sm_count: Option<u32>,
    /// grid / (blocks_per_sm × sm_count); `None` without a grid and SM count.
    pub waves: Option<f64>,
    pub full_waves: Option<u64>,
    pub last_wave_fill: Option<f64>,
}

/// Occupancy of `launch` on `arch`. Pass `sm_count` to get wave figures
/// (they also need `launch.grid_size`).
pub fn compute(
    arch: Arch,
    launch: &Launch,
    sm_count: Option<u32>,
) -> Result<Occupancy, OccupancyError> {
    let limits = arch.limits();
    validate(limits, launch, sm_count)?;

    let warps_per_block = launch.block_size.div_ceil(limits.warp_size);
    let max_warps = limits.max_warps_per_sm();

    let (registers, registers_per_block) = register_limit(limits, launch, warps_per_block)?;
    let (shared_memory, shared_memory_per_block, shared_memory_per_sm) =
        shared_memory_limit(limits, launch)?;
    let block_limits = BlockLimits {
        registers,
        shared_memory,
        warps: max_warps / warps_per_block,
        blocks: limits.max_blocks_per_sm,
        barriers: barrier_limit(limits, launch.barriers_per_block),
    };

    let blocks_per_sm = block_limits.min();
    let tied = block_limits.binding();
    let warps_per_sm = blocks_per_sm * warps_per_block;
    let waves = match (launch.grid_size, sm_count) {
        (Some(grid), Some(sms)) => Some(Waves::new(grid, blocks_per_sm, sms)),
        _ => None,
    };

    Ok(Occupancy {
        arch,
        block_size: launch.block_size,
        registers_per_thread: launch.registers_per_thread,
        blocks_per_sm,
        warps_per_sm,
        max_warps_per_sm: max_warps,
        occupancy: f64::from(warps_per_sm) / f64::from(max_warps),
        limits: block_limits,
        binding: tied[0],
        tied,
        warps_per_block,
        registers_per_block,
        shared_memory_per_block,
        shared_memory_per_sm,
        grid_size: launch.grid_size,
        sm_count,
        waves: waves.map(|w| w.waves),
        full_waves: waves.map(|w| w.full_waves),
        last_wave_fill: waves.map(|w| w.last_wave_fill),
    })
}

/// Same as [`compute`], for callers that hold the architecture as text
/// ("sm_90", "9.0", ...), such as the diagram renderer and driver comparisons.
pub fn occupancy_for(
    arch: &str,
    launch: &Launch,
    sm_count: Option<u32>,
) -> Result<Occupancy, OccupancyError> {
    compute(arch.parse()?, launch, sm_count)
}

fn validate(
    limits: &ArchLimits,
    launch: &Launch,
    sm_count: Option<u32>,
) -> Result<(), OccupancyError> {
    let arch = limits.arch;
    if launch.block_size == 0 {
        return Err(OccupancyError::EmptyBlock);
    }
    if launch.block_size > limits.max_threads_per_block {
        return Err(OccupancyError::BlockTooLarge {
            arch,
            block_size: launch.block_size,
            max: limits.max_threads_per_block,
        });
    }
    if launch.registers_per_thread > limits.max_registers_per_thread {
        return Err(OccupancyError::TooManyRegisters {
            arch,
            registers: launch.registers_per_thread,
            max: limits.max_registers_per_thread,
        });
    }
    if launch.static_shared_memory > limits.max_static_shared_memory_per_block {
        return Err(OccupancyError::StaticSharedMemoryTooLarge {
            bytes: launch.static_shared_memory,
            max: limits.max_static_shared_memory_per_block,
        });
    }
    let requested = launch
        .static_shared_memory
        .saturating_add(launch.dynamic_shared_memory);
    if requested > limits.shared_memory_per_block_optin {
        return Err(OccupancyError::SharedMemoryTooLarge {
            arch,
            bytes: requested,
            max: limits.shared_memory_per_block_optin,
        });
    }
    if launch.barriers_per_block > limits.max_barriers_per_block {
        return Err(OccupancyError::TooManyBarriers {
            barriers: launch.barriers_per_block,
            max: limits.max_barriers_per_block,
        });
    }
    match launch.carveout {
        Carveout::Percent(p) if p > 100 => return Err(OccupancyError::CarveoutOutOfRange(p)),
        Carveout::Bytes(b) if b > limits.shared_memory_per_sm => {
            return Err(OccupancyError::CarveoutTooLarge {
                arch,
                bytes: b,
                max: limits.shared_memory_per_sm,
            })
        }
        _ => {}
    }
    if launch.grid_size == Some(0) {
        return Err(OccupancyError::EmptyGrid);
    }
    if sm_count == Some(0) {
        return Err(OccupancyError::NoSms);
    }
    Ok(())
}

/// Blocks per SM allowed by the register file, and registers per block.
/// Mirrors `cudaOccMaxBlocksPerSMRegsLimit` (partitioned global caching,
/// a Maxwell/Pascal feature, does not apply to the architectures here).
fn register_limit(
    limits: &ArchLimits,
    launch: &Launch,
    warps_per_block: u32,
) -> Result<(Option<u32>, u64), OccupancyError> {
    let unit = u64::from(limits.register_allocation_unit);
    let per_warp = (u64::from(launch.registers_per_thread) * u64::from(limits.warp_size))
        .div_ceil(unit)
        * unit;
    let per_block = per_warp * u64::from(warps_per_block);
    // The hardware's launch check pretends the block's warps are spread over
    // every sub-partition at once, so it rounds the warp count up to a
    // multiple of the sub-partition count before comparing.
    let partitions = u64::from(limits.register_sub_partitions);
    let assumed = per_warp * u64::from(warps_per_block).div_ceil(partitions) * partitions;
    let needed = assumed.max(per_block);
    if needed > u64::from(limits.registers_per_block) {
        return Err(OccupancyError::RegistersPerBlockExceeded {
            arch: limits.arch,
            block_size: launch.block_size,
            registers: launch.registers_per_thread,
            needed,
            max: limits.registers_per_block,
        });
    }
    if per_warp == 0 {
        return Ok((None, 0));
    }
    let per_partition = u64::from(limits.registers_per_sm) / partitions;
    let warps_per_sm = (per_partition / per_warp) * partitions;
    let blocks = warps_per_sm / u64::from(warps_per_block);
    Ok((Some(saturate(blocks)), per_block))
}

/// Blocks per SM allowed by shared memory, the bytes a block takes, and the
/// split assumed per SM. Mirrors `cudaOccMaxBlocksPerSMSmemLimit`.
fn shared_memory_limit(
    limits: &ArchLimits,
    launch: &Launch,
) -> Result<(Option<u32>, u64, u64), OccupancyError> {
    let arch = limits.arch;
    let unit = limits.shared_memory_allocation_unit;
    let total = launch.static_shared_memory
        + launch.dynamic_shared_memory
        + limits.reserved_shared_memory_per_block;
    let per_block = total.div_ceil(unit) * unit;

    let preference = match launch.carveout {
        Carveout::Default => limits.shared_memory_per_sm,
        Carveout::Percent(p) => u64::from(p) * limits.shared_memory_per_sm / 100,
        Carveout::Bytes(b) => b,
    };
    let too_large = |bytes| OccupancyError::CarveoutTooLarge {
        arch,
        bytes,
        max: limits.shared_memory_per_sm,
    };
    let preference = limits
        .carveout_at_least(preference)
        .ok_or_else(|| too_large(preference))?;
    // A preference too small for even one block is overridden: the driver
    // grows the split to the smallest step that holds one block.
    let per_sm = if preference >= per_block {
        preference
    } else {
        limits
            .carveout_at_least(per_block)
            .ok_or_else(|| too_large(per_block))?
    };
    let blocks = (per_block > 0).then(|| saturate(per_sm / per_block));
    Ok((blocks, per_block, per_sm))
}

/// Mirrors `cudaOccMaxBlocksPerSMBlockBarrierLimit`, which the calculator
/// consults only from sm_90 on.
fn barrier_limit(limits: &ArchLimits, barriers_per_block: u32) -> Option<u32> {
    let slots = limits.barrier_slots_per_sm()?;
    (barriers_per_block > 0).then(|| slots / barriers_per_block)
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm90(launch: Launch) -> Occupancy {
        compute(Arch::Sm90, &launch, None).expect("valid launch")
    }

    #[test]
    fn registers_do_not_bind_at_32_regs_block_256_on_sm90() {
        let occ = sm90(Launch::new(256, 32));
        assert_eq!(occ.blocks_per_sm, 8);
        assert_eq!(occ.warps_per_sm, 64);
        assert_eq!(occ.occupancy, 1.0);
        // Registers allow exactly the warp ceiling: a tie, reported as warps.
        assert_eq!(occ.limits.registers, Some(8));
        assert_eq!(occ.binding, Resource::Warps);
        assert_eq!(occ.tied, vec![Resource::Warps, Resource::Registers]);
    }

    #[test]
    fn forty_registers_give_48_warps_not_the_essays_51() {
        let occ = sm90(Launch::new(256, 40));
        assert_eq!(occ.blocks_per_sm, 6);
        assert_eq!(occ.warps_per_sm, 48);
        assert_eq!(occ.binding, Resource::Registers);
        // No block size reaches 51: sub-partitions cap it at 48.
        for block in (32..=1024).step_by(32) {
            let occ = sm90(Launch::new(block, 40));
            assert!(
                occ.warps_per_sm <= 48,
                "block {block}: {}",
                occ.warps_per_sm
            );
        }
        // Whole blocks: 10 warps per block leaves 8 of the 48 unused.
        assert_eq!(sm90(Launch::new(320, 40)).warps_per_sm, 40);
    }

    #[test]
    fn registers_bind_at_64_regs_on_sm90() {
        let occ = sm90(Launch::new(256, 64));
        assert_eq!(occ.warps_per_sm, 32);
        assert_eq!(occ.blocks_per_sm, 4);
        assert_eq!(occ.binding, Resource::Registers);
        assert_eq!(occ.occupancy, 0.5);
    }

    #[test]
    fn registers_bind_at_128_regs_on_sm90() {
        let occ = sm90(Launch::new(256, 128));
        assert_eq!(occ.warps_per_sm, 16);
        assert_eq!(occ.binding, Resource::Registers);
        assert_eq!(occ.registers_per_block, 128 * 256);
    }

    #[test]
    fn register_count_is_rounded_up_per_warp() {
        // 33 registers: 1056 per warp, rounded to 1280; same as 40.
        assert_eq!(
            sm90(Launch::new(256, 33)).limits.registers,
            sm90(Launch::new(256, 40)).limits.registers
        );
        assert_eq!(sm90(Launch::new(256, 33)).registers_per_block, 1280 * 8);
    }

    #[test]
    fn shared_memory_binds_with_48k_per_block_on_sm90() {
        let occ = sm90(Launch::new(128, 32).with_dynamic_shared_memory(48 * 1024));
        // 48 KiB + 1 KiB reserved = 50176 B; 233472 / 50176 = 4.65.
        assert_eq!(occ.shared_memory_per_block, 50_176);
        assert_eq!(occ.blocks_per_sm, 4);
        assert_eq!(occ.binding, Resource::SharedMemory);
        assert_eq!(occ.warps_per_sm, 16);
    }

    #[test]
    fn block_count_binds_for_one_warp_blocks_on_sm90() {
        let occ = sm90(Launch::new(32, 16));
        assert_eq!(occ.blocks_per_sm, 32);
        assert_eq!(occ.warps_per_sm, 32);
        assert_eq!(occ.binding, Resource::Blocks);
        assert_eq!(occ.occupancy, 0.5);
    }

    #[test]
    fn warps_bind_for_1024_thread_blocks() {
        let occ = sm90(Launch::new(1024, 32));
        assert_eq!(occ.blocks_per_sm, 2);
        assert_eq!(occ.binding, Resource::Warps);
    }

    #[test]
    fn barriers_bind_when_a_small_block_uses_all_16_on_sm90() {
        let occ = sm90(Launch::new(32, 16).with_barriers(16));
        // 2 x 32 barrier slots / 16 per block = 4 blocks.
        assert_eq!(occ.limits.barriers, Some(4));
        assert_eq!(occ.binding, Resource::Barriers);
    }

    #[test]
    fn barriers_are_not_counted_before_sm90() {
        let occ = compute(Arch::Sm80, &Launch::new(32, 16).with_barriers(16), None).unwrap();
        assert_eq!(occ.limits.barriers, None);
    }

    #[test]
    fn turing_rounds_shared_memory_to_256_bytes_without_reservation() {
        let occ = compute(
            Arch::Sm75,
            &Launch::new(32, 16).with_dynamic_shared_memory(100),
            None,
        )
        .unwrap();
        assert_eq!(occ.shared_memory_per_block, 256);
        assert_eq!(occ.limits.shared_memory, Some(256));
        assert_eq!(occ.limits.warps, 32);
        // Turing holds only 16 blocks, so one-warp blocks fill half the SM.
        assert_eq!(occ.binding, Resource::Blocks);
        assert_eq!(occ.occupancy, 0.5);
    }

    #[test]
    fn zero_registers_and_zero_shared_memory_place_no_limit() {
        let occ = compute(Arch::Sm75, &Launch::new(128, 0), None).unwrap();
        assert_eq!(occ.limits.registers, None);
        assert_eq!(occ.limits.shared_memory, None);
        assert_eq!(occ.blocks_per_sm, 8);
    }

    #[test]
    fn small_carveout_preference_grows_to_fit_one_block() {
        // 0 % with 1 KiB dynamic: 2 KiB per block, split grows to 8 KiB -> 4.
        let occ = sm90(
            Launch::new(256, 10)
                .with_dynamic_shared_memory(1024)
                .with_carveout(Carveout::Percent(0)),
        );
        assert_eq!(occ.shared_memory_per_sm, 8 * 1024);
        assert_eq!(occ.blocks_per_sm, 4);
    }

    #[test]
    fn recorded_carveout_in_bytes_reproduces_nsight_limit() {
        // ncu: 60000 B dynamic on a 200704 B split -> Block Limit Shared Mem 3.
        let occ = sm90(
            Launch::new(256, 16)
                .with_dynamic_shared_memory(60_000)
                .with_carveout(Carveout::Bytes(200_704)),
        );
        assert_eq!(occ.limits.shared_memory, Some(3));
    }

    #[test]
    fn waves_and_last_wave_fill_follow_grid_and_sm_count() {
        // Matches ncu's "Waves Per SM 62.06" for this launch on the H200.
        let occ = compute(
            Arch::Sm90,
            &Launch::new(256, 16)
                .with_dynamic_shared_memory(1024)
                .with_grid(65_536),
            Some(132),
        )
        .unwrap();
        assert!((occ.waves.unwrap() - 62.06).abs() < 0.005);
        assert_eq!(occ.full_waves, Some(62));
        // 65536 - 62 * 1056 = 64 blocks in the last wave.
        assert!((occ.last_wave_fill.unwrap() - 64.0 / 1056.0).abs() < 1e-12);

        let exact = compute(Arch::Sm90, &Launch::new(1024, 32).with_grid(264), Some(132)).unwrap();
        assert_eq!(exact.waves, Some(1.0));
        assert_eq!(exact.last_wave_fill, Some(1.0));

        let no_sms = compute(Arch::Sm90, &Launch::new(256, 32).with_grid(10), None).unwrap();
        assert_eq!(no_sms.waves, None);
    }

    #[test]
    fn invalid_launches_are_typed_errors() {
        let err = |arch, launch: Launch| compute(arch, &launch, None).unwrap_err();
        assert_eq!(
            err(Arch::Sm90, Launch::new(0, 32)),
            OccupancyError::EmptyBlock
        );
        assert!(matches!(
            err(Arch::Sm90, Launch::new(1025, 32)),
            OccupancyError::BlockTooLarge { .. }
        ));
        assert!(matches!(
            err(Arch::Sm90, Launch::new(256, 256)),
            OccupancyError::TooManyRegisters { .. }
        ));
        assert!(matches!(
            err(
                Arch::Sm90,
                Launch::new(256, 32).with_dynamic_shared_memory(227 * 1024 + 1)
            ),
            OccupancyError::SharedMemoryTooLarge { .. }
        ));
        assert!(matches!(
            err(
                Arch::Sm90,
                Launch::new(256, 32).with_static_shared_memory(48 * 1024 + 1)
            ),
            OccupancyError::StaticSharedMemoryTooLarge { .. }
        ));
        // 1024 threads x 65 registers: 2304 per warp x 32 warps > 65536.
        assert!(matches!(
            err(Arch::Sm90, Launch::new(1024, 65)),
            OccupancyError::RegistersPerBlockExceeded { needed: 73_728, .. }
        ));
        assert!(matches!(
            err(Arch::Sm90, Launch::new(256, 32).with_barriers(17)),
            OccupancyError::TooManyBarriers { .. }
        ));
        assert_eq!(
            err(
                Arch::Sm90,
                Launch::new(256, 32).with_carveout(Carveout::Percent(101))
            ),
            OccupancyError::CarveoutOutOfRange(101)
        );
        assert_eq!(
            err(Arch::Sm90, Launch::new(256, 32).with_grid(0)),
            OccupancyError::EmptyGrid
        );
        assert!(matches!(
            occupancy_for("sm_70", &Launch::new(256, 32), None),
            Err(OccupancyError::UnknownArch(_))
        ));
        assert_eq!(
            compute(Arch::Sm90, &Launch::new(256, 32), Some(0)).unwrap_err(),
            OccupancyError::NoSms
        );
    }

    #[test]
    fn largest_legal_launch_fits_on_every_arch() {
        for arch in Arch::ALL {
            let l = arch.limits();
            let launch = Launch::new(l.max_threads_per_block, 64)
                .with_dynamic_shared_memory(l.shared_memory_per_block_optin);
            let occ = compute(arch, &launch, None).unwrap();
            assert_eq!(occ.blocks_per_sm, 1, "{arch}");
        }
    }

    /// Points the driver's `cudaOccupancyMaxActiveBlocksPerMultiprocessor`
    /// returned on the project's H200 (driver 580.159.04, CUDA 13.0) for a
    /// kernel using 10 registers per thread; see testdata/README.md.
    #[test]
    fn model_matches_driver_on_recorded_h200_points() {
        let recorded = include_str!("testdata/h200_driver_occupancy.txt");
        let field = |line: &str, key: &str| -> Option<u64> {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
                .and_then(|v| v.parse().ok())
        };
        let registers = recorded
            .lines()
            .find_map(|l| field(l, "numRegs"))
            .expect("numRegs line") as u32;
        let mut checked = 0;
        for line in recorded.lines() {
            let (Some(block), Some(dynamic), Some(blocks)) = (
                field(line, "block"),
                field(line, "dyn"),
                field(line, "blocks"),
            ) else {
                continue;
            };
            let carveout = field(line, "carveout")
                .map(|p| Carveout::Percent(p as u32))
                .unwrap_or(Carveout::Default);
            let launch = Launch::new(block as u32, registers)
                .with_dynamic_shared_memory(dynamic)
                .with_carveout(carveout);
            let occ = compute(Arch::Sm90, &launch, None).unwrap();
            assert_eq!(u64::from(occ.blocks_per_sm), blocks, "{line}");
            checked += 1;
        }
        assert_eq!(checked, 55);
    }
}
