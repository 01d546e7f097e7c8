//! Rendering: Markdown, measured tables, diagrams and templates into HTML pages. Nothing
//! here decides what is published; the build passes that in.

pub mod calls;
pub mod captions;
pub mod chart;
pub mod code_span;
pub mod diagram;
pub mod entry_lists;
pub mod escape;
pub mod feed;
pub mod figures;
pub mod highlight;
pub mod index_page;
pub mod inline;
mod input;
mod leb128;
pub mod links;
pub mod markdown;
pub mod navigation;
pub mod pages;
pub mod raw_html;
pub mod redirects;
pub mod search;
pub mod site_links;
pub mod site_wide;
pub mod sitemap;
pub mod static_files;
pub mod tables;
pub mod template_ids;
pub mod templates;
pub mod values;
pub mod words;

pub use input::{Assessment, OutputFile, RenderInput, Restore, Shown};
