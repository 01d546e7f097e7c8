//! `feed.xml`: an Atom feed of the most recently approved entries, newest first. An entry's
//! `updated` is its newest signature date, so a re-reviewed entry shows up again. Feed
//! readers poll it, so it carries the latest [`FEED_ENTRIES`], not the whole glossary
//! (the sitemap lists every page).

use std::path::PathBuf;

use chrono::NaiveDate;

use crate::config::Config;
use crate::render::OutputFile;

use super::published::{rfc3339, PublishedPage};
use crate::render::escape::escape;

pub const FEED_ENTRIES: usize = 50;

pub fn atom_feed(
    config: &Config,
    pages: &[PublishedPage<'_>],
    today: NaiveDate,
    drafts: bool,
) -> OutputFile {
    let base = config.base_url.trim_end_matches('/');
    let mut sorted: Vec<&PublishedPage<'_>> = pages.iter().collect();
    sorted.sort_by(|a, b| b.updated.cmp(&a.updated).then(a.entry.id.cmp(&b.entry.id)));
    // With no published entry there is no approval date; the build date stands in.
    let updated = sorted.first().and_then(|p| p.updated).unwrap_or(today);
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n{banner}<feed xmlns=\"http://www.w3.org/2005/Atom\">\n  <title>{title}</title>\n  <subtitle>{subtitle}</subtitle>\n  <id>{base}/</id>\n  <link rel=\"alternate\" href=\"{base}/\"/>\n  <link rel=\"self\" href=\"{base}/feed.xml\"/>\n  <updated>{updated}</updated>\n",
        banner = if drafts { super::published::DRAFTS_XML_BANNER } else { "" },
        title = escape(&config.title),
        subtitle = escape(&config.description),
        base = escape(base),
        updated = rfc3339(updated),
    );
    for p in sorted.into_iter().take(FEED_ENTRIES) {
        let url = escape(&p.canonical(&config.base_url));
        xml.push_str(&format!(
            "  <entry>\n    <title>{title}</title>\n    <id>{url}</id>\n    <link rel=\"alternate\" href=\"{url}\"/>\n    <updated>{updated}</updated>\n    <summary>{summary}</summary>\n    <author><name>{author}</name></author>\n  </entry>\n",
            title = escape(&p.entry.meta.title),
            updated = rfc3339(p.updated.unwrap_or(today)),
            summary = escape(&crate::render::inline::plain_text(&p.entry.meta.summary)),
            author = escape(p.author.unwrap_or(&config.title)),
        ));
    }
    xml.push_str("</feed>\n");
    OutputFile {
        path: PathBuf::from("feed.xml"),
        bytes: xml.into_bytes(),
    }
}
