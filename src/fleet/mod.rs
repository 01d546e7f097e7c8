//! Verification across a fleet of GPU nodes: what needs measuring (`plan`), handing that
//! work to a batch scheduler (`slurm`), and taking the records it produced back into the
//! project only after checking them (`import`). Nothing here runs a kernel: the tasks run
//! `glossary verify` on the nodes, and `measure` stays the only code that touches a GPU.

pub mod import;
pub mod init_node;
pub mod plan;
pub mod seal;
pub mod slurm;

pub use import::{import, import_contributed, ImportReport, Verdict};
pub use plan::{Plan, Reason, WorkItem};
