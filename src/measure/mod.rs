//! Measurements: experiment specs (`spec`), running them on the GPU (`run`), and the
//! records they leave behind (`record`). The site builder reads specs and records through
//! [`Library`]; only `verify` runs anything.

pub mod bundle;
pub mod claims;
pub mod compare;
pub mod history;
pub mod library;
pub mod record;
pub mod roofs;
pub mod run;
pub mod spec;
pub mod units;
pub mod verdict;

pub use library::{Citation, Library, Staleness};
pub use record::{ColumnValue, ConfigRecord, Record};
pub use spec::Experiment;
