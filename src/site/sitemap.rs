//! `sitemap.xml`: the index and every published entry at its canonical URL.

use std::path::PathBuf;

use crate::render::OutputFile;

use super::published::PublishedPage;
use crate::render::escape::escape;

pub fn sitemap(base_url: &str, pages: &[PublishedPage<'_>], drafts: bool) -> OutputFile {
    let base = base_url.trim_end_matches('/');
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    if drafts {
        xml.push_str(super::published::DRAFTS_XML_BANNER);
    }
    xml.push_str("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    let newest = pages.iter().filter_map(|p| p.updated).max();
    xml.push_str(&url_element(&format!("{base}/"), newest));
    for p in pages {
        xml.push_str(&url_element(&p.canonical(base_url), p.updated));
    }
    xml.push_str("</urlset>\n");
    OutputFile {
        path: PathBuf::from("sitemap.xml"),
        bytes: xml.into_bytes(),
    }
}

fn url_element(loc: &str, lastmod: Option<chrono::NaiveDate>) -> String {
    let lastmod = lastmod
        .map(|d| format!("<lastmod>{}</lastmod>", d.format("%Y-%m-%d")))
        .unwrap_or_default();
    format!("  <url><loc>{}</loc>{lastmod}</url>\n", escape(loc))
}
