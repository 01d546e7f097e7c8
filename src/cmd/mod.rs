//! One file per subcommand: parse nothing here (clap did), call the library, print.

pub mod build;
pub mod check;
pub mod fleet;
pub mod new;
pub mod occupancy;
pub mod records;
pub mod review;
pub mod serve;
pub mod verify;
