//! Review: who signed which text, and the publish gate that decides from it.
//!
//! Signatures live in `content/reviews/<kind>/<slug>.yaml`, one file per entry, written by
//! `glossary review sign`: per role, the signer's id in `content/people.toml`, the digest
//! of what they signed (the entry and every number its page shows), the time, and an SSH
//! signature over all of that made with one of the signer's registered keys. The signed
//! text is kept once under its digest in `content/reviews/texts/`.
//!
//! The gate (`gate`, `digest`, `signatures`) is what the build calls. The workflow
//! commands (`status`, `sign`, `diff`) read what the pipeline loaded and assessed (a
//! [`ReviewInput`], the gate's verdicts), so they see exactly what a build would.

mod diff;
mod digest;
mod error;
mod gate;
mod input;
mod log;
mod resolve;
mod sign;
mod signature_file;
mod signatures;
mod signoff;
mod static_file;
mod status;

pub use diff::{cell_changes, explain_changes, CellChange, FirstReview, SinceSigned};
pub use digest::{cited_records, signed_digest, signed_material, SignedMaterial, SignedText};
pub use error::ReviewError;
pub use gate::{check_signature, check_signoffs, decide, Facts, Refusal, SignatureChecks, Verdict};
pub use input::ReviewInput;
pub use log::{log_path, LogLine, LoggedVersion, LOG_DIR};
pub use resolve::resolve_entry;
pub use sign::{
    check_signer, ready_for, save_signed, sign, signature_for, signer_person, signing_key, Signed,
};
/// A sign-off file's text as the gate reads it (the fuzz targets call it).
pub use signature_file::{
    read as read_signature_file, write as write_signature_file, ReadError as SignatureFileError,
};
pub use signatures::{
    load_all_signoffs, load_signoff, load_signoffs, load_text, save_signoff, save_signoffs,
    save_text, signoff_path, text_path, SignOffs, STATIC_DIR, TEXTS_DIR,
};
pub use signoff::{statement, Role, SignOff, Signature};
pub use static_file::{
    load_static_signoff, sign_static, static_diff, static_material, static_name,
    static_signoff_path, static_verdict, StaticSigned,
};
pub use status::{
    entry_status, status_report, EntryStatus, Gated, SignerStatus, State, StatusReport,
};
