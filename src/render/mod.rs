//! Rendering one page: Markdown, measured tables, diagrams, the sidebar and templates into
//! an entry's HTML. Nothing here decides what is published (the build passes that in), and
//! nothing here knows the site-wide files (`crate::site`), which use this, never the reverse.

#[cfg(test)]
mod body_tests;
pub mod calls;
pub mod captions;
pub mod chart;
pub mod code_span;
pub mod csp;
pub mod diagram;
pub mod entry_lists;
pub mod escape;
pub mod figures;
pub mod highlight;
pub mod html_depth;
pub mod inline;
mod input;
pub mod links;
pub mod markdown;
pub mod navigation;
pub mod node_facts;
pub mod pages;
pub mod raw_html;
pub mod svg;
pub mod tables;
pub mod template_ids;
pub mod templates;
pub mod values;

pub use input::{Assessment, OutputFile, RenderInput, Restore, Shown};
