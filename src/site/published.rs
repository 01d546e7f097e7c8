//! The published entries as the site-wide files (feed, sitemap, search index) see them,
//! and what those files share: the drafts banner and the date format.

use chrono::NaiveDate;

use crate::content::Entry;
use crate::render::RenderInput;

/// The first thing in every XML file of a `--drafts` preview: XML has no `noindex`, so it
/// says in words what the HTML pages say with `<meta name="robots">`; `robots.txt` of the
/// preview disallows everything.
pub const DRAFTS_XML_BANNER: &str =
    "<!-- DRAFTS PREVIEW (glossary build --drafts): not for deployment; noindex -->\n";

/// An entry as the site-wide files see it: published, or a draft in a `--drafts`
/// preview's search index (`RenderInput::searched`).
#[derive(Clone, Copy)]
pub struct PublishedPage<'a> {
    pub entry: &'a Entry,
    /// Newest signature date: when the published text was last approved.
    pub updated: Option<NaiveDate>,
    /// The signing author's name, for the feed.
    pub author: Option<&'a str>,
}

impl PublishedPage<'_> {
    /// Root-relative URL of the page file (`terms/occupancy/index.html`).
    pub fn file_url(&self) -> String {
        self.entry.id.page_url("")
    }

    /// The absolute, canonical URL (`https://…/terms/occupancy/`).
    pub fn canonical(&self, base_url: &str) -> String {
        format!(
            "{}/{}",
            base_url.trim_end_matches('/'),
            self.entry.id.url_path()
        )
    }
}

/// The entry as the site-wide files see it: its newest signature date and its author.
pub fn published_page<'a>(input: &'a RenderInput<'a>, e: &'a Entry) -> PublishedPage<'a> {
    let signoff = input.signoffs.get(&e.id);
    let dates = signoff
        .into_iter()
        .flat_map(|s| [s.author.as_ref(), s.reviewer.as_ref()])
        .flatten()
        .map(|s| s.date());
    PublishedPage {
        entry: e,
        updated: dates.max(),
        author: signoff
            .and_then(|s| s.author.as_ref())
            .and_then(|s| input.people.get(&s.person))
            .map(|p| p.name.as_str()),
    }
}

/// Atom and sitemaps want full timestamps; a signature has a date, taken as UTC midnight.
pub fn rfc3339(date: NaiveDate) -> String {
    format!("{}T00:00:00Z", date.format("%Y-%m-%d"))
}
