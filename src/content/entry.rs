//! The content model: what an entry file holds once parsed.

use std::fmt;
use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// The page kinds, each with its own folder under `content/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Term,
    Lesson,
    Guide,
    /// A section's intro page (`content/sections/<section slug>.md`): the page at the
    /// section's URL, the head of its group in the contents. Zola's `_index.md`, in the
    /// folder-per-kind layout this site has: sections are declared in glossary.toml and
    /// cut across the kinds, so their pages have a folder of their own.
    Section,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Term, Kind::Lesson, Kind::Guide, Kind::Section];

    /// The folder under `content/` and under the output site.
    pub fn dir(self) -> &'static str {
        match self {
            Kind::Term => "terms",
            Kind::Lesson => "lessons",
            Kind::Guide => "guides",
            Kind::Section => "sections",
        }
    }

    pub fn from_dir(dir: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.dir() == dir)
    }

    pub fn singular(self) -> &'static str {
        match self {
            Kind::Term => "term",
            Kind::Lesson => "lesson",
            Kind::Guide => "guide",
            Kind::Section => "section",
        }
    }
}

/// A set of entries by id, hashed with foldhash: the render looks ids up in the site's
/// sets (pages, published) several times per link, and SipHash was a visible part of it.
/// The ids are the site's own file names, so hash flooding is not a concern.
pub type IdSet = std::collections::HashSet<EntryId, foldhash::fast::RandomState>;

/// `terms/occupancy`: a kind and a slug, unique across the site.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct EntryId {
    pub kind: Kind,
    pub slug: String,
}

impl EntryId {
    pub fn new(kind: Kind, slug: impl Into<String>) -> Self {
        EntryId {
            kind,
            slug: slug.into(),
        }
    }

    /// The site-relative URL path, with a trailing slash (pretty URLs).
    pub fn url_path(&self) -> String {
        let mut url = String::with_capacity(self.kind.dir().len() + self.slug.len() + 2);
        self.push_url_path(&mut url);
        url
    }

    /// The URL of the entry's page from a page at `root` (the prefix to the site root),
    /// with an explicit `index.html` so the site also works opened straight from disk.
    /// Links to other pages are made by the dozen on every page: built without `format!`,
    /// which was a visible share of a build.
    pub fn page_url(&self, root: &str) -> String {
        let mut url = String::with_capacity(root.len() + self.slug.len() + 24);
        url.push_str(root);
        self.push_url_path(&mut url);
        url.push_str("index.html");
        url
    }

    fn push_url_path(&self, out: &mut String) {
        out.push_str(self.kind.dir());
        out.push('/');
        out.push_str(&self.slug);
        out.push('/');
    }

    /// Parse `terms/occupancy`.
    pub fn parse(s: &str) -> Option<EntryId> {
        let (dir, slug) = s.trim_matches('/').split_once('/')?;
        let kind = Kind::from_dir(dir)?;
        crate::content::is_valid_slug(slug).then(|| EntryId::new(kind, slug))
    }
}

impl fmt::Display for EntryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.kind.dir(), self.slug)
    }
}

/// One content file, parsed.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: EntryId,
    /// The file it came from, for error messages.
    pub path: PathBuf,
    /// The file's full text: what a signature covers.
    pub raw: String,
    pub meta: FrontMatter,
    /// The Markdown body.
    pub body: String,
    /// 1-based line of the file on which the body starts, so body errors can name a line.
    pub body_line: usize,
    /// Once the text is dropped ([`Entry::thin`]): what reading it again
    /// (`content::reread`) needs.
    pub thinned: Option<Thinned>,
}

/// What [`Entry::thin`] keeps to make the entry whole again for its page.
#[derive(Debug, Clone)]
pub struct Thinned {
    /// A hash of the file's text, so reading it again can tell whether the file changed in
    /// between.
    pub hash: u64,
    /// What [`FrontMatter::thin`] set aside.
    pub page_only: PageOnlyPacked,
}

impl Entry {
    /// The name lists and the index show.
    pub fn name(&self) -> &str {
        self.meta.name.as_deref().unwrap_or(&self.meta.title)
    }

    /// Drop the file's text (`raw`, `body`) and what only the entry's own page reads of its
    /// front matter ([`FrontMatter::thin`]), keeping its id, path and what other pages show
    /// of it: for a build, once the entry is assessed (its digest taken, its body
    /// expanded), so a large site's texts are not all in memory at once. Nothing may read
    /// what was dropped afterwards; `content::reread` gives it all back for the page.
    pub fn thin(&mut self) {
        self.thinned = Some(Thinned {
            hash: text_hash(&self.raw),
            page_only: self.meta.thin(),
        });
        self.raw = String::new();
        self.body = String::new();
    }

    /// The section of the contents the entry is in: a section page's is its own slug.
    pub fn section(&self) -> Option<&str> {
        match self.id.kind {
            Kind::Section => Some(&self.id.slug),
            _ => self.meta.section.as_deref(),
        }
    }

    /// The terms this entry says it uses (lessons and guides), in order.
    pub fn term_uses(&self) -> &[TermUse] {
        &self.meta.terms
    }
}

/// The hash [`Entry::thin`] keeps: not cryptographic, it only tells whether a file changed
/// during one build.
pub(crate) fn text_hash(text: &str) -> u64 {
    use std::hash::BuildHasher;
    // Fixed seed: the two hashes compared are taken in one process anyway. foldhash rather
    // than the standard SipHash, which was 1% of a build hashing every entry's text twice.
    foldhash::quality::FixedState::with_seed(0).hash_one(text)
}

/// Front matter of every kind. Fields that belong to one kind only are checked at load.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FrontMatter {
    /// A term's title is the question it answers ("What is occupancy in CUDA?").
    pub title: String,
    /// The short name used in lists and the A-Z index ("occupancy"); defaults to the title.
    #[serde(default)]
    pub name: Option<String>,
    /// Other names the entry goes by: abbreviations ("SM"), spellings, older names. Shown
    /// with the title, matched by search, and listed in the A-Z index pointing here.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The one-line definition (terms) or description (lessons, guides). Inline Markdown
    /// (links, code, emphasis) is allowed; it is rendered wherever the summary appears.
    pub summary: String,
    /// The section of the contents this entry belongs to: a `slug` from `[[sections]]` in
    /// glossary.toml. Entries without one are listed after the declared sections.
    #[serde(default)]
    pub section: Option<String>,
    /// Position within its section (smaller first); entries without one follow, by day
    /// (lessons) and then by name.
    #[serde(default)]
    pub order: Option<i64>,
    /// Whether the page shows an "On this page" contents list. Defaults to on for lessons
    /// and guides with at least three headings, off for terms.
    #[serde(default)]
    pub toc: Option<bool>,
    /// For text adapted from elsewhere: where it comes from and who wrote it (inline
    /// Markdown), shown on the page.
    #[serde(default)]
    pub credit: Option<String>,
    /// The licence the adapted text is used under (inline Markdown, e.g. a link to it).
    #[serde(default)]
    pub license: Option<String>,
    /// Overrides the file name as the slug.
    #[serde(default)]
    pub slug: Option<String>,
    /// Paths the entry's page used to have (`/gpu-glossary/device-hardware/sm`): the build
    /// writes a redirect page at each (`content::redirects`, `render::redirects`).
    #[serde(default)]
    pub redirect_from: Vec<String>,
    /// Lessons only: the day of the course.
    #[serde(default)]
    pub day: Option<u32>,
    /// Terms only: the topic the index and the sidebar group the term under. Terms
    /// without one are listed after every topic, as "Other".
    #[serde(default)]
    pub topic: Option<Topic>,
    /// Related terms, by slug.
    #[serde(default)]
    pub related: Vec<String>,
    /// Lessons and guides: the terms they use. A term's "where you meet this" is derived
    /// from these, so the link is only ever written once.
    #[serde(default)]
    pub terms: Vec<TermUse>,
    #[serde(default)]
    pub sources: Vec<Source>,
    /// Measured tables, pulled from records under `measurements/`.
    #[serde(default)]
    pub measured: Vec<TableRef>,
    /// Statements the record must support, or the entry is refused.
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// Boxed: few entries have one, and inline it was a fifth of every entry's size, which
    /// a build keeps for each entry to the end.
    #[serde(default)]
    pub diagram: Option<Box<DiagramRef>>,
}

impl FrontMatter {
    /// The front matter of an entry whose own could not be read: `title` as its title and
    /// summary, nothing else. Built field by field, not parsed, so that no name can make it
    /// fail.
    pub fn placeholder(title: &str) -> FrontMatter {
        FrontMatter {
            title: title.to_string(),
            name: None,
            aliases: Vec::new(),
            summary: title.to_string(),
            section: None,
            order: None,
            toc: None,
            credit: None,
            license: None,
            slug: None,
            redirect_from: Vec::new(),
            day: None,
            topic: None,
            related: Vec::new(),
            terms: Vec::new(),
            sources: Vec::new(),
            measured: Vec::new(),
            claims: Vec::new(),
            diagram: None,
        }
    }

    /// Set aside the fields that only the entry's assessment and its own page read:
    /// sources, measured tables, claims. The pages that list an entry read its names,
    /// summary, section, order, day, related terms and term uses; credit and licence stay
    /// too, as every entry's links in them are checked with the site's. In the generated
    /// corpus these fields are about 2.4 KB of small allocations an entry; as one JSON text
    /// about 0.7 KB, and LZ4-compressed ([`PageOnlyPacked`]) about 0.5 KB, which
    /// [`FrontMatter::unthin`] reads back far faster than the file's YAML would parse again
    /// (a second YAML parse per page was over 6% of a build's instructions).
    pub fn thin(&mut self) -> PageOnlyPacked {
        let page_only = PageOnly {
            sources: std::mem::take(&mut self.sources),
            measured: std::mem::take(&mut self.measured),
            claims: std::mem::take(&mut self.claims),
        };
        PageOnlyPacked::pack(&page_only)
    }

    /// Put back what [`FrontMatter::thin`] set aside. A claim's bounds are numbers JSON
    /// may not carry exactly (NaN); pages read only which record a claim cites.
    pub fn unthin(&mut self, page_only: &PageOnlyPacked) -> Result<(), UnpackError> {
        let back = page_only.unpack()?;
        self.sources = back.sources;
        self.measured = back.measured;
        self.claims = back.claims;
        Ok(())
    }

    /// The record (experiment, node) that a body's `value()`/`ratio()` call reads when it
    /// names none: the first measured table's. Decided here only.
    pub fn default_record(&self) -> Option<(String, String)> {
        self.measured
            .first()
            .and_then(|t| Some((t.experiment.clone(), t.first_node()?.clone())))
    }

    /// The records a claim is checked against: its own experiment and node, each falling
    /// back to the first measured table's. A claim that names no node is checked on every
    /// node of the table that cites its experiment (the first such table): a statement
    /// about a two-node table must hold on both models, and one true of a single model
    /// says so with `node:`. Decided here only.
    pub fn claim_records(&self, claim: &Claim) -> Vec<(String, String)> {
        let first = self.measured.first();
        let Some(experiment) = claim
            .experiment
            .clone()
            .or_else(|| first.map(|t| t.experiment.clone()))
        else {
            return Vec::new();
        };
        let nodes: Vec<String> = match &claim.node {
            Some(n) => vec![n.clone()],
            None => match self.measured.iter().find(|t| t.experiment == experiment) {
                Some(t) => t.nodes().to_vec(),
                None => first
                    .and_then(|t| t.first_node())
                    .cloned()
                    .into_iter()
                    .collect(),
            },
        };
        nodes.into_iter().map(|n| (experiment.clone(), n)).collect()
    }
}

/// The topics a term may name in `topic:`, in the order the index shows them. A value
/// outside this list is refused while the front matter is read, at its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Topic {
    Memory,
    Execution,
    TensorCores,
    Tools,
}

impl Topic {
    /// Every topic, in the index's order.
    pub const ALL: [Topic; 4] = [
        Topic::Memory,
        Topic::Execution,
        Topic::TensorCores,
        Topic::Tools,
    ];

    /// The heading the index and the sidebar show.
    pub fn title(self) -> &'static str {
        match self {
            Topic::Memory => "Memory",
            Topic::Execution => "Execution",
            Topic::TensorCores => "Tensor cores",
            Topic::Tools => "Tools",
        }
    }

    /// As written in front matter (`tensor-cores`).
    pub fn slug(self) -> &'static str {
        match self {
            Topic::Memory => "memory",
            Topic::Execution => "execution",
            Topic::TensorCores => "tensor-cores",
            Topic::Tools => "tools",
        }
    }

    /// The place of a term's topic in the index: the topics in order, then terms without
    /// one ([`Topic::ALL`]`.len()`).
    pub fn rank(topic: Option<Topic>) -> usize {
        topic.map_or(Topic::ALL.len(), |t| t as usize)
    }
}

impl<'de> Deserialize<'de> for Topic {
    /// Written by hand for the message: serde's "unknown variant" would not say that the
    /// field may be left out.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Topic, D::Error> {
        let written = String::deserialize(d)?;
        Topic::ALL
            .into_iter()
            .find(|t| t.slug() == written)
            .ok_or_else(|| {
                let known: Vec<String> = Topic::ALL
                    .iter()
                    .map(|t| format!("`{}`", t.slug()))
                    .collect();
                serde::de::Error::custom(format!(
                    "unknown topic `{}`: a term's `topic` is one of {}; leave it out to list \
                     the term under \"Other\"",
                    crate::visible::escape(&written),
                    known.join(", ")
                ))
            })
    }
}

/// The fields [`FrontMatter::thin`] sets aside.
#[derive(Deserialize, Serialize)]
struct PageOnly {
    sources: Vec<Source>,
    measured: Vec<TableRef>,
    claims: Vec<Claim>,
}

/// [`PageOnly`] as a thinned entry holds it until its page: JSON (self-describing, so the
/// untagged and optional fields come back as they were), LZ4-compressed. At 100,000 entries
/// of the benchmark corpus the JSON was 73 MB of the build's peak and packed it is 47 MB,
/// with no change in wall time (LZ4 is far cheaper per entry than parsing the file's YAML
/// again, which was over 6% of a build's instructions).
#[derive(Debug, Clone)]
pub struct PageOnlyPacked {
    lz4: Box<[u8]>,
    has_measured: bool,
    has_claims: bool,
}

/// A packed [`PageOnly`] that did not read back; only a bug (or memory corrupted in
/// between) makes one, as the same process packed it.
#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("decompressing: {0}")]
    Lz4(#[from] lz4_flex::block::DecompressError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

impl PageOnlyPacked {
    fn pack(page_only: &PageOnly) -> Self {
        // Plain data (strings, numbers, dates): serializing it cannot fail.
        let json = serde_json::to_vec(page_only).unwrap_or_default();
        PageOnlyPacked {
            lz4: lz4_flex::block::compress_prepend_size(&json).into_boxed_slice(),
            has_measured: !page_only.measured.is_empty(),
            has_claims: !page_only.claims.is_empty(),
        }
    }

    fn unpack(&self) -> Result<PageOnly, UnpackError> {
        let json = lz4_flex::block::decompress_size_prepended(&self.lz4)?;
        Ok(serde_json::from_slice(&json)?)
    }

    /// Whether it holds a measured table: bundles skip the entries that hold none without
    /// unpacking them.
    pub fn has_measured(&self) -> bool {
        self.has_measured
    }

    /// Whether it cites a record at all, by a table or a claim: the nodes page skips the
    /// entries that cite none without unpacking them.
    pub fn cites_records(&self) -> bool {
        self.has_measured || self.has_claims
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum TermUse {
    Slug(String),
    Noted {
        slug: String,
        #[serde(default)]
        note: Option<String>,
    },
}

impl TermUse {
    pub fn slug(&self) -> &str {
        match self {
            TermUse::Slug(s) => s,
            TermUse::Noted { slug, .. } => slug,
        }
    }
    pub fn note(&self) -> Option<&str> {
        match self {
            TermUse::Slug(_) => None,
            TermUse::Noted { note, .. } => note.as_deref(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub title: String,
    pub url: String,
    /// When someone last confirmed the source says what the entry cites it for.
    pub checked: NaiveDate,
}

/// A measured table: which records, which rows, which columns. `node: h200` cuts it from
/// one node's record; `nodes: [t4, h200]` sets the same rows side by side, a column group
/// per node.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TableRef {
    pub experiment: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    #[serde(default)]
    pub caption: Option<String>,
    /// Which chart the table gets: `{x, y}` draws a line chart of one column against
    /// another (a numeric axis such as a working-set size); `{y}` alone names the column of
    /// the bar chart (by default its GB/s column, else its first numeric one).
    #[serde(default)]
    pub chart: Option<LineChartRef>,
}

/// `chart: {x: working_set_mib, y: gbps}`: both are columns of the same table. The x axis
/// is logarithmic when its values span more than two decades. Without `x`, the table keeps
/// its bar chart, of column `y`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LineChartRef {
    #[serde(default)]
    pub x: Option<String>,
    pub y: String,
}

impl TableRef {
    /// The cited nodes, in the order the entry lists them (one for `node:`). Loading
    /// checks that exactly one of `node` and `nodes` is given, and `nodes` is not empty.
    pub fn nodes(&self) -> &[String] {
        match &self.node {
            Some(n) => std::slice::from_ref(n),
            None => &self.nodes,
        }
    }

    /// The node that `value()`, `ratio()` and claims read when they name none: the first.
    pub fn first_node(&self) -> Option<&String> {
        self.nodes().first()
    }
}

/// A claim as written in front matter. Exactly one test form is allowed; `load` turns it
/// into a [`ClaimTest`] and rejects other combinations.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The sentence the claim backs, shown when it fails.
    pub says: String,
    pub column: String,
    /// Defaults to the first measured table's experiment and node.
    #[serde(default)]
    pub experiment: Option<String>,
    #[serde(default)]
    pub node: Option<String>,
    /// `within`: all these rows' values lie within this relative spread (max/min - 1).
    #[serde(default)]
    pub rows: Vec<String>,
    #[serde(default)]
    pub within: Option<f64>,
    /// `row: a` with `below` and/or `above`: bounds on value(a) itself.
    #[serde(default)]
    pub row: Option<String>,
    /// `ratio: [a, b]` with `below` and/or `above`: bounds on value(a) / value(b).
    #[serde(default)]
    pub ratio: Option<[String; 2]>,
    #[serde(default)]
    pub below: Option<f64>,
    #[serde(default)]
    pub above: Option<f64>,
    /// Why this claim may be published although it is fragile (its interval clears the
    /// threshold by less than the experiment's reproducibility band, so another GPU of
    /// the model may not support it): the reason is shown with the warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragile_ok: Option<String>,
    /// `share: true` with `row`: `below`/`above` bound the row's share (0..1) of the roof
    /// its column names (`roof:` in experiment.yaml), at the clock the row ran at.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub share: bool,
    /// `bound: dram` with `row` and `above`: the row is bound by that roof, which holds
    /// only if its share of it is above `above` and no other roof of the row is nearer.
    /// `bound: latency` with `below`: every roof of the row is under that share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<String>,
}

/// The checked form of a claim.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimTest {
    Within {
        rows: Vec<String>,
        tolerance: f64,
    },
    Ratio {
        of: String,
        to: String,
        below: Option<f64>,
        above: Option<f64>,
    },
    Value {
        row: String,
        below: Option<f64>,
        above: Option<f64>,
    },
    /// The row's share of its column's roof, bounded.
    Share {
        row: String,
        below: Option<f64>,
        above: Option<f64>,
    },
    /// The row is bound by `roof` (its share above `above`, and the nearest of the row's
    /// roofs), or by latency (`roof` is `latency`: every share under `below`).
    Bound {
        row: String,
        roof: String,
        threshold: f64,
    },
}

/// What `bound:` names for a row far from every roof.
pub const LATENCY_BOUND: &str = "latency";

impl Claim {
    /// The test this claim states, or why it states none or several.
    pub fn test(&self) -> Result<ClaimTest, String> {
        let bounded = self.below.is_some() || self.above.is_some();
        if self.share || self.bound.is_some() {
            return self.roof_test();
        }
        match (&self.within, &self.ratio, &self.row) {
            (Some(tol), None, None) => {
                if self.rows.len() < 2 {
                    return Err("a `within` claim needs at least two `rows`".into());
                }
                if bounded {
                    return Err(
                        "`below`/`above` belong to `ratio` and `row` claims, not `within`".into(),
                    );
                }
                if !tol.is_finite() || *tol < 0.0 {
                    return Err(format!("`within` must be a non-negative number, got {tol}"));
                }
                Ok(ClaimTest::Within {
                    rows: self.rows.clone(),
                    tolerance: *tol,
                })
            }
            (None, Some(_), None) | (None, None, Some(_)) if !self.rows.is_empty() => {
                Err("`rows` belongs to `within` claims".into())
            }
            (None, Some(_), None) | (None, None, Some(_)) if !bounded => {
                Err("a `ratio` or `row` claim needs `below`, `above` or both".into())
            }
            (None, Some([of, to]), None) => Ok(ClaimTest::Ratio {
                of: of.clone(),
                to: to.clone(),
                below: self.below,
                above: self.above,
            }),
            (None, None, Some(row)) => Ok(ClaimTest::Value {
                row: row.clone(),
                below: self.below,
                above: self.above,
            }),
            (None, None, None) => {
                Err("a claim needs `within` (with `rows`), `ratio` or `row`".into())
            }
            _ => Err("a claim is one of `within`, `ratio` or `row`, not several".into()),
        }
    }
}

impl Claim {
    /// `share` and `bound` claims: a `row`, and shares between 0 and 1.
    fn roof_test(&self) -> Result<ClaimTest, String> {
        let row = match (&self.row, &self.within, &self.ratio, self.rows.is_empty()) {
            (Some(r), None, None, true) => r.clone(),
            _ => return Err(
                "`share` and `bound` claims name one `row`, without `within`, `ratio` or `rows`"
                    .into(),
            ),
        };
        for t in [self.below, self.above].into_iter().flatten() {
            if !(0.0..=1.0).contains(&t) {
                return Err(format!(
                    "a share is between 0 and 1 (0.8 is 80% of the roof), got {t}"
                ));
            }
        }
        match (&self.bound, self.share) {
            (Some(_), true) => Err("a claim is `share` or `bound`, not both".into()),
            (None, _) if self.below.is_none() && self.above.is_none() => {
                Err("a `share` claim needs `below`, `above` or both".into())
            }
            (None, _) => Ok(ClaimTest::Share {
                row,
                below: self.below,
                above: self.above,
            }),
            (Some(roof), false) if roof == LATENCY_BOUND => match (self.below, self.above) {
                (Some(t), None) => Ok(ClaimTest::Bound {
                    row,
                    roof: roof.clone(),
                    threshold: t,
                }),
                _ => Err(
                    "`bound: latency` takes `below`: the share every roof of the row stays under"
                        .into(),
                ),
            },
            (Some(roof), false) if crate::rates::roof(roof).is_none() => Err(format!(
                "`bound: {roof}` names no roof: write one of {} or `{LATENCY_BOUND}`",
                crate::rates::roof_names()
            )),
            (Some(roof), false) => match (self.above, self.below) {
                (Some(t), None) => Ok(ClaimTest::Bound {
                    row,
                    roof: roof.clone(),
                    threshold: t,
                }),
                _ => Err(format!(
                    "`bound: {roof}` takes `above`: the share of the roof the row must exceed"
                )),
            },
        }
    }
}

/// A diagram drawn at build time.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DiagramRef {
    pub kind: String,
    pub preset: String,
    /// Required: the figure's accessible name. A diagram without one is a build error.
    #[serde(default)]
    pub alt: Option<String>,
    #[serde(default)]
    pub experiment: Option<String>,
    #[serde(default)]
    pub node: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `thin` sets aside comes back field for field: sources with their dates, tables
    /// with `node` or `nodes` and a chart, claims of each form.
    #[test]
    fn thin_then_unthin_gives_the_front_matter_back() {
        let yaml = r#"
title: What is it?
summary: S.
related: [a]
sources:
  - {title: A, url: "https://a.example", checked: 2026-01-02}
measured:
  - {experiment: e, node: h200, rows: [r1, r2], columns: [label, gbps], caption: C, chart: {y: gbps}}
  - {experiment: e, nodes: [t4, h200], rows: [r1], columns: [label, gbps], chart: {x: label, y: gbps}}
claims:
  - {says: X, column: gbps, rows: [r1, r2], within: 0.1}
  - {says: Y, column: gbps, experiment: f, node: t4, ratio: [r1, r2], below: 2.5}
  - {says: Z, column: gbps, row: r1, above: 1.0e-3}
"#;
        let whole: FrontMatter = serde_yaml::from_str(yaml).unwrap();
        let mut thin = whole.clone();
        let page_only = thin.thin();
        assert!(thin.sources.is_empty() && thin.measured.is_empty() && thin.claims.is_empty());
        assert_eq!(thin.related, ["a"]);
        assert!(page_only.has_measured());
        thin.unthin(&page_only).unwrap();
        assert_eq!(format!("{thin:?}"), format!("{whole:?}"));
    }

    #[test]
    fn an_entry_without_tables_says_so_packed_and_a_damaged_pack_is_an_error() {
        let yaml = "title: T\nsummary: S\nsources:\n  - {title: A, url: \"https://a.example\", checked: 2026-01-02}\n";
        let mut thin: FrontMatter = serde_yaml::from_str(yaml).unwrap();
        let mut page_only = thin.thin();
        assert!(!page_only.has_measured());
        // Cut short: LZ4 or JSON refuses it rather than giving back a different entry.
        let mut bytes = page_only.lz4.to_vec();
        bytes.truncate(bytes.len() / 2);
        page_only.lz4 = bytes.into_boxed_slice();
        assert!(thin.unthin(&page_only).is_err());
    }
}
