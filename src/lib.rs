//! `glossary`: a GPU-programming glossary whose numbers are measured.
//!
//! Two flows run through the crate:
//! - build: [`pipeline`] loads the project ([`content`], [`measure`] records, [`review`]
//!   signatures), assesses each entry and asks the publish gate ([`review`]), hands the
//!   gated entries to [`site`], which assembles the pages [`render`] makes with the
//!   site-wide files (search, feed, sitemap, A-Z index), and writes the site atomically
//!   (or [`serve`] serves it from memory and rebuilds on every save);
//! - verify: [`measure`] specs → runs on the GPU → records with provenance; [`fleet`]
//!   plans that work across nodes, submits it to Slurm and imports the records back.
//!
//! The [`occupancy`] model stands apart and is used by both.
//!
//! Dependencies point one way, top to bottom: [`cmd`] → [`serve`] → [`fleet`] →
//! [`reproduce`] → [`pipeline`] → [`site`] → [`render`] → [`review`] → [`measure`] →
//! [`trust`] → [`content`] / [`occupancy`] → [`config`] → [`error`] / [`names`] /
//! [`visible`] / [`link_scheme`] /
//! [`yaml_depth`]. `tests/layering.rs` fails on an import that points up.

pub mod atomic;
pub mod build_cache;
pub mod cmd;
pub mod config;
pub mod content;
pub mod error;
pub mod fleet;
/// The allocator's settings, and its live-heap counter (used with `--features heap-count`).
pub mod heap_count;
pub mod link_scheme;
pub mod measure;
pub mod names;
pub mod occupancy;
pub mod pipeline;
pub mod rates;
pub mod render;
pub mod reproduce;
pub mod review;
pub mod serve;
pub mod site;
pub mod trust;
pub mod visible;
pub mod yaml_depth;

pub use error::{Error, Result};
