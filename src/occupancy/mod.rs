//! Occupancy: how many warps of a kernel launch an SM can hold, which
//! resource caps it, and what that means for the kernel.
//!
//! The data flows through one module per step:
//! - [`arch`]: per-architecture SM limits, each value with its source;
//! - [`model`]: a [`Launch`] plus an [`Arch`] gives an [`Occupancy`],
//!   following the rules of the toolkit's `cuda_occupancy.h`;
//! - [`ncu`]: the same figures read back from an Nsight Compute CSV export;
//! - [`interpret`]: rules (seed workflow 002) that turn either into findings.
//!
//! The `glossary occupancy` subcommand lives in `cmd/occupancy.rs`.
//!
//! Entry points for other modules: [`occupancy_for`] (architecture as text,
//! e.g. "sm_90") or [`compute`] (an [`Arch`] value).

pub mod arch;
pub mod interpret;
pub mod model;
pub mod ncu;

pub use arch::{Arch, ArchLimits, KnownGpu, KNOWN_GPUS};
pub use interpret::{interpret, Finding, Reading, Rule};
pub use model::{
    compute, occupancy_for, BlockLimits, Carveout, Launch, Occupancy, OccupancyError, Resource,
    Waves,
};
pub use ncu::{parse_ncu_csv, read_ncu_csv, NcuError, NcuExport, NcuLaunch};
