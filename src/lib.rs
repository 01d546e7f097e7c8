//! `glossary`: a GPU-programming glossary whose numbers are measured.
//!
//! Two flows run through the crate:
//! - build: [`content`] (load + parse) → [`review`] (the publish gate) → [`render`]
//!   (Markdown, tables, diagrams, templates) → [`pipeline`] writes the site atomically
//!   (or [`serve`] serves it from memory and rebuilds on every save);
//! - verify: [`measure`] specs → runs on the GPU → records with provenance.
//!
//! The [`occupancy`] model stands apart and is used by both.

pub mod cmd;
pub mod config;
pub mod content;
pub mod corpus;
pub mod error;
pub mod measure;
pub mod occupancy;
pub mod pipeline;
pub mod render;
pub mod review;
pub mod serve;

pub use error::{Error, Result};
