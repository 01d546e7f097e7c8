//! Who and what may be trusted: registered people and their SSH keys, nodes and theirs.
//!
//! `people` loads the registry (its names compared as a reader sees them, by
//! [`crate::names`]), `sshsig` signs and verifies git-style SSH signatures. The review
//! gate and the record loader both depend on this module; it depends on neither.

pub mod contributed;
pub mod file;
pub mod keygen;
pub mod node;
pub mod node_list;
pub mod people;
pub mod rotation;
pub mod sshsig;

pub use file::{read_trust_file, read_trust_text, TrustFileError};
pub use people::{People, Person, PEOPLE_FILE};
pub use sshsig::{Signer, SshError, VerifyFailure, RECORD_NAMESPACE, REVIEW_NAMESPACE};
