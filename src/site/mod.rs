//! The site as a whole: assembling every page (`assemble`), and the files about the whole
//! site rather than one entry (search index, feed, sitemap, A-Z index, `404.html`, the
//! verification nodes page, `static/`), with the checks that need every page (body links, generated links).
//!
//! `site` takes what `render` makes of one page as data and never the reverse: `render`
//! knows nothing of search, feeds or the index, so a change here cannot break a page's
//! rendering, and page rendering can be tested alone.

pub mod assemble;
pub mod body_links;
pub mod feed;
pub mod home;
pub mod index_page;
mod inert;
mod leb128;
pub mod nodes_page;
pub mod published;
pub mod redirects;
pub mod search;
pub mod site_links;
pub mod site_wide;
pub mod sitemap;
pub mod static_files;
pub mod tokens;
pub mod words;
