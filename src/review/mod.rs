//! Review: who signed which text, and the publish gate that decides from it.
//!
//! Signatures live in `content/reviews/<kind>/<slug>.yaml`, one file per entry, written by
//! `glossary review sign`. Each signature holds a digest of what was signed (the entry file
//! and the records it cites), so any later edit or re-measurement shows up as "changed".

mod digest;
mod gate;
mod person;
mod signatures;

pub use digest::{cited_records, signed_digest, SignedMaterial};
pub use gate::{decide, Facts, Refusal, Role, Verdict};
pub use person::same_person;
pub use signatures::{
    load_signoff, load_signoffs, save_signoff, signoff_path, SignOff, SignOffs, Signature,
};
