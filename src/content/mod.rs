//! Loading content: find the entry files, split and parse their front matter, and check
//! them: slugs, required fields, references between entries (at load), and references to
//! experiments, nodes and columns ([`check_references`], given what the project defines).
//! All entry validation lives in `validate.rs`.
//!
//! After `load` succeeds, later stages trust the entries: every reference resolves and
//! every slug is safe to use as a path segment.

mod entry;
mod front_matter;
mod load;
mod redirects;
mod validate;

pub use entry::{
    Claim, ClaimTest, DiagramRef, Entry, EntryId, FrontMatter, IdSet, Kind, LineChartRef,
    PageOnlyPacked, Source, TableRef, TermUse, Thinned, Topic, UnpackError, LATENCY_BOUND,
};
pub use front_matter::{
    line_of_item_field, line_of_reference, parse_front_matter, split_front_matter,
};
pub use load::{
    by_file_name, is_side_file, is_side_path, list_content, load_content, load_content_collecting,
    load_content_visiting, load_entry, load_listed_visiting, read_entry, reread, Content,
};
pub use redirects::{check_redirects, redirect_file};
pub use validate::{
    check_page_only, check_references, check_section, is_valid_slug, is_web_url, placeholder,
    slug_problem, Known, PLACEHOLDER,
};
