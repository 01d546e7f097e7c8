//! Review: who signed which text, and the publish gate that decides from it.
//!
//! Signatures live in `content/reviews/<kind>/<slug>.yaml`, one file per entry, written by
//! `glossary review sign`. Each signature holds a digest of what was signed (the entry file
//! and the records it cites), so any later edit or re-measurement shows up as "changed".
//!
//! The gate (`gate`, `digest`, `person`, `signatures`) is what the build calls. The
//! workflow commands (`status`, `sign`, `diff`) read a [`ReviewInput`] the pipeline
//! loaded, and status reads the gate's verdicts, so they see exactly what a build would.

mod diff;
mod digest;
mod error;
mod gate;
mod input;
mod person;
mod resolve;
mod sign;
mod signatures;
mod status;

pub use diff::{diff_since_signed, record_changes, RecordChange, RecordChangeKind, SinceSigned};
pub use digest::{cited_records, signed_digest, SignedMaterial};
pub use error::ReviewError;
pub use gate::{decide, Facts, Refusal, Role, Verdict};
pub use input::ReviewInput;
pub use person::same_person;
pub use resolve::resolve_entry;
pub use sign::{check_signer, git_user_name, sign, Signed};
pub use signatures::{
    load_signoff, load_signoffs, save_signoff, signoff_path, SignOff, SignOffs, Signature,
};
pub use status::{
    entry_status, status_report, EntryStatus, Gated, SignerStatus, State, StatusReport,
};
