//! Loading content: find the entry files, split and parse their front matter, and check
//! what can be checked from the content alone (slugs, required fields, references).
//!
//! After `load` succeeds, later stages trust the entries: every reference resolves and
//! every slug is safe to use as a path segment.

mod entry;
mod front_matter;
mod load;
mod validate;

pub use entry::{
    Claim, ClaimTest, DiagramRef, Entry, EntryId, FrontMatter, Kind, Source, TableRef, TermUse,
};
pub use front_matter::{line_of_reference, parse_front_matter, split_front_matter};
pub use load::{load_content, load_entry, Content};
pub use validate::{check_section, is_valid_slug};
