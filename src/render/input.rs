//! What the renderer is given. The pipeline builds these (load, assess, gate) and the
//! renderer only reads them, so nothing here can publish what the gate refused.

use std::path::PathBuf;

use chrono::NaiveDate;
use tera::Tera;

use crate::config::{Config, Layout};
use crate::content::{Content, Entry, EntryId, IdSet};
use crate::review::{SignOffs, SignedMaterial, Verdict};
use crate::trust::People;

use super::navigation::Navigation;
use super::tables::TableView;
use super::template_ids::TemplateIds;

/// One entry after assessment: its citations resolved, its claims checked, the numbers in
/// its prose expanded, and the gate's verdict.
pub struct Assessment {
    pub id: EntryId,
    pub verdict: Verdict,
    /// The digest of what the page shows: what a signature made now would cover.
    pub digest: String,
    /// The signed text and its stored bytes, kept only where they are used (signing,
    /// `review diff`): a build needs only the digest. Boxed, as is `shown`: a build holds
    /// an assessment per entry with neither, and inline they were 200 of its 336 bytes.
    pub material: Option<Box<SignedMaterial>>,
    /// What the page shows besides the entry's file. None where a build let it go once
    /// the entry was assessed, to be made again for its page ([`RenderInput::restore`]).
    pub shown: Option<Box<Shown>>,
    /// Where the body's value calls start (byte offsets), so that making `shown` again
    /// after a build let it go skips finding them, a Markdown parse of the body.
    pub body_calls: Box<[u32]>,
    /// Newest of the cited records' capture dates and the sources' checked dates.
    pub last_checked: Option<NaiveDate>,
    /// Not reasons to refuse, but the author's to fix (old sources): errors under
    /// `check --strict`.
    pub warnings: Vec<String>,
    /// Notes on measurements that are not the author's to fix, so never errors under
    /// `--strict`: what the cited records say of themselves (a row that stopped at the time
    /// cap before converging, a record that predates intervals: the verification node's to
    /// re-measure), and a fragile claim the entry accepts with `fragile_ok` (its reason
    /// said, as the author decided). `build --verbose` and `check --verbose` list them.
    pub notes: Vec<String>,
}

/// What an entry's page shows that its file alone does not say: made from the file and the
/// records it cites, the same way each time.
#[derive(Clone)]
pub struct Shown {
    /// The body with its `value()`/`ratio()` calls replaced by recorded numbers.
    pub markdown: String,
    pub tables: Vec<TableView>,
    /// The entry's diagram as HTML, drawn at assessment rather than at page time so a
    /// diagram the record contradicts is an error whether or not the entry is published.
    pub diagram: Option<String>,
}

/// The entry as its page reads it, with its [`Shown`], for a page whose assessment let the
/// latter go: the entry itself if it was kept whole, else made whole again from its file
/// ([`Entry::thin`] dropped its text and part of its front matter).
pub type Restore<'a> = dyn for<'e> Fn(&'e Entry, &Assessment) -> crate::error::Result<(std::borrow::Cow<'e, Entry>, Shown)>
    + Sync
    + 'a;

/// Everything a whole-site render reads.
pub struct RenderInput<'a> {
    pub layout: &'a Layout,
    pub config: &'a Config,
    pub content: &'a Content,
    pub signoffs: &'a SignOffs,
    /// Who signed: bylines show registered names.
    pub people: &'a People,
    pub assessments: &'a [Assessment],
    pub tera: &'a Tera,
    /// The ids each kind's entry template uses, read off `tera`.
    pub template_ids: TemplateIds,
    /// Entries that get a page in this build.
    pub pages: &'a IdSet,
    /// Entries the gate published (a subset of `pages` unless drafts are off).
    pub published: &'a IdSet,
    /// The build date: the feed's `updated` when nothing is published yet.
    pub today: NaiveDate,
    /// The reading order of `pages`: the sidebar and previous/next links (borrowed where
    /// a serve session keeps it between edits).
    pub navigation: std::borrow::Cow<'a, Navigation>,
    /// A `--drafts` preview build (see `pipeline::output` for its own folder and marker).
    pub drafts: bool,
    /// Where assessments let their [`Shown`] go (a large build), how to make it again.
    pub restore: Option<&'a Restore<'a>>,
    /// The records, for what the nodes page and the home page say of each node.
    pub library: &'a crate::measure::Library,
    /// Made on first use ([`RenderInput::node_facts`]).
    pub node_facts: std::sync::OnceLock<Vec<super::node_facts::NodeFacts>>,
}

impl RenderInput<'_> {
    /// Each verification node as the nodes page and the home page show it, made once.
    pub fn node_facts(&self) -> &[super::node_facts::NodeFacts] {
        self.node_facts.get_or_init(|| {
            super::node_facts::node_facts(
                self.config,
                self.library,
                self.content,
                &|id| self.listed(id),
                &|id| self.published.contains(id),
                &|person| self.people.get(person).map(|p| p.name.clone()),
            )
        })
    }

    /// Whether the search index lists `id`: what this build shows. A `--drafts` preview
    /// searches its drafts too, in its own index (its own folder); a site's index holds
    /// published entries only. The sitemap and feed list published entries only, always.
    pub fn searched(&self, id: &EntryId) -> bool {
        self.listed(id)
    }

    /// Whether other pages may show anything of `id` (its name, summary, a link): it is
    /// published, or this is a `--drafts` preview, where drafts are shown marked. Not every
    /// page: `serve` keeps serving the page of an entry an edit withdrew, whose text no
    /// signer has seen, so other pages leave it out as a build would.
    pub fn listed(&self, id: &EntryId) -> bool {
        match self.drafts {
            true => self.pages.contains(id),
            false => self.published.contains(id),
        }
    }
}

/// One file of the output, by path relative to the site root.
pub struct OutputFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}
