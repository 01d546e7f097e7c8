//! A synthetic benchmark corpus: N signed term entries in `glossary`'s format and the
//! same text in Hugo's layout, deterministic for a given N. Used by `glossary-corpus`
//! (bench/run.sh), the criterion benches and the incremental-rebuild tests, each of which
//! includes this folder with `#[path]`: it is a dev tool, not part of the library.
//!
//! Its one record is generated, and says so: the node's GPU is "synthetic benchmark
//! node" and the tool version "synthetic benchmark corpus (not a measurement)".

// Each includer (the tool, the benches, a test) uses a different part.
#![allow(dead_code)]

mod glossary_site;
mod hugo_site;
pub mod model;
mod rng;

use std::path::Path;

use glossary::error::Result;

pub use model::{generate, Corpus};

/// Write `corpus` as a `glossary` project under `root` (templates copied from `templates`).
pub fn write_glossary(corpus: &Corpus, root: &Path, templates: &Path) -> Result<()> {
    glossary_site::write(corpus, root, templates)
}

/// Write `corpus` as a Hugo site under `root`.
pub fn write_hugo(corpus: &Corpus, root: &Path) -> Result<()> {
    hugo_site::write(corpus, root)
}
