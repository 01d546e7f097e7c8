//! Turning assessed entries into pages: the page contexts templates see, link checks, and
//! the index. Which entries get pages was decided by the gate before this runs.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;
use tera::Context;

use crate::content::{Entry, EntryId, Kind};
use crate::error::{Error, Location, Result};

use super::entry_lists::SourceCtx;
use super::escape::escape_into;
use super::inline::{render_inline, Inline, InlineContext};
use super::input::{Assessment, OutputFile, RenderInput, Shown};
use super::links::LinkTarget;
use super::markdown::{render as render_markdown, LinkPolicy, RenderedMarkdown, TocItem};
use super::navigation::{list_label, NavLink, SidebarGroup};
use super::search::Bodies;
use super::site_wide::{render_site_wide_into, PublishedPage};
use super::tables::TableView;
use super::template_ids::TemplateIds;
use super::templates::render_bytes;
use super::words::{CodedWords, Vocabulary};

#[derive(Serialize)]
pub struct SiteCtx<'a> {
    title: &'a str,
    base_url: &'a str,
    description: &'a str,
    /// glossary.toml's `footer`, rendered for the page's depth; None: the template's own.
    footer: Option<String>,
    /// A `--drafts` preview: every page carries `noindex` and the preview banner.
    drafts_preview: bool,
}

/// The site's settings as a page at `root` (the prefix to the site root) sees them; links
/// in the footer lead to pages in `linkable` only.
pub fn site_ctx<'a>(
    config: &'a crate::config::Config,
    drafts_preview: bool,
    root: &str,
    linkable: &HashSet<EntryId>,
) -> SiteCtx<'a> {
    SiteCtx {
        title: &config.title,
        base_url: &config.base_url,
        description: &config.description,
        footer: config.footer.as_deref().map(|f| {
            let cx = InlineContext {
                written_at: "",
                root,
                linkable,
            };
            render_inline(f, &cx).html
        }),
        drafts_preview,
    }
}

/// A link to another page; `url` is None when that page is not part of this build, so
/// templates show plain text instead of a dead link.
#[derive(Serialize, Clone)]
pub struct LinkCtx {
    pub name: String,
    pub url: Option<String>,
    /// The summary as HTML for the showing page (inline Markdown rendered).
    pub summary: Option<String>,
    pub aliases: Vec<String>,
    pub note: Option<String>,
    pub day: Option<u32>,
    pub draft: bool,
}

#[derive(Serialize)]
struct BylineCtx {
    written_by: Option<String>,
    reviewed_by: Option<String>,
    written_on: Option<String>,
    last_checked_on: Option<String>,
}

#[derive(Serialize)]
struct PageCtx<'a> {
    kind: &'static str,
    slug: &'a str,
    name: &'a str,
    title: &'a str,
    /// The summary rendered as inline HTML, and as plain text (meta description).
    summary: String,
    summary_text: String,
    aliases: &'a [String],
    credit: Option<String>,
    license: Option<String>,
    /// "On this page": the body's level 2 and 3 headings, when the page shows them.
    toc: Vec<TocItem>,
    sidebar: Vec<SidebarGroup>,
    prev: Option<NavLink>,
    next: Option<NavLink>,
    day: Option<u32>,
    /// Relative prefix from this page to the site root ("../../").
    root: &'static str,
    canonical: String,
    /// Reasons the entry is not published (a drafts preview, or `serve` showing an entry
    /// an edit withdrew).
    draft: Option<Vec<String>>,
    /// The page is shown although unpublished outside a drafts preview: only `serve` does
    /// this, for an entry an edit withdrew (`Session::show_withdrawn`).
    withdrawn: bool,
    body: String,
    tables: Vec<TableCtx<'a>>,
    /// A chart per table (same order): the line chart the entry asked for, else a bar chart
    /// where the table has a metric to chart.
    charts: Vec<Option<String>>,
    diagram: Option<String>,
    related: Vec<LinkCtx>,
    meet: Vec<LinkCtx>,
    terms: Vec<LinkCtx>,
    sources: Vec<SourceCtx>,
    /// `related`, `meet`, `terms` and `sources` as `<li>` items (`entry_lists`).
    related_list: String,
    meet_list: String,
    terms_list: String,
    sources_list: String,
    byline: BylineCtx,
}

/// A measured table as templates see it: the view, plus each column's class (`num` or
/// `label`), so a template needs no lookup by index per cell (in Tera,
/// `t.numeric[loop.index0]` per cell was about a twentieth of a build's CPU), and the rows
/// as HTML. The rows are made here, as the sidebar's list is (`navigation`): a Tera loop
/// over every cell was about a twentieth of a build's instructions again. The cells stay
/// in `rows` (and their numbers in `values`) for a template that lays a table out itself.
#[derive(Serialize)]
struct TableCtx<'a> {
    #[serde(flatten)]
    view: &'a TableView,
    columns: Vec<CellCtx<'a>>,
    /// The `<thead>` (`entry_lists::table_head`).
    head: String,
    /// The table's chart in its `<div class="chart">`, or empty: whole, so a template
    /// neither tests the chart (Tera escapes a string to test it) nor looks it up by index.
    chart: String,
    /// Each row as `<tr><td class="num|label">…</td>…</tr>`, each followed by a line
    /// break and the `<tbody>`'s indentation.
    body: String,
}

/// A heading, with its class.
#[derive(Serialize)]
struct CellCtx<'a> {
    text: &'a str,
    class: &'static str,
}

impl<'a> TableCtx<'a> {
    fn new(view: &'a TableView, chart: Option<&str>) -> TableCtx<'a> {
        let class = |i: usize| match view.numeric.get(i) {
            Some(true) => "num",
            _ => "label",
        };
        let mut body = String::new();
        for row in &view.rows {
            body.push_str("<tr>");
            for (i, text) in row.iter().enumerate() {
                body.push_str("<td class=\"");
                body.push_str(class(i));
                body.push_str("\">");
                escape_into(&mut body, text);
                body.push_str("</td>");
            }
            body.push_str("</tr>\n      ");
        }
        TableCtx {
            view,
            head: super::entry_lists::table_head(view, class),
            chart: chart.map_or_else(String::new, |svg| {
                format!("<div class=\"chart\">{svg}</div>")
            }),
            columns: view
                .headings
                .iter()
                .enumerate()
                .map(|(i, text)| CellCtx {
                    text,
                    class: class(i),
                })
                .collect(),
            body,
        }
    }
}

const ENTRY_ROOT: &str = "../../";

/// A lesson or guide shows its contents when its body has at least this many headings.
const TOC_MIN_HEADINGS: usize = 3;

/// What a whole-site render learned, for incremental rebuilds (`pipeline::Session`).
#[derive(Default)]
pub struct SiteLinks {
    /// Entry -> its heading ids, for anchor checks.
    pub headings: HashMap<EntryId, Vec<String>>,
    /// Entry -> the entries its body links to.
    pub links_to: HashMap<EntryId, Vec<EntryId>>,
    /// Entry -> plain text of its body (the search index needs every published one).
    pub texts: HashMap<EntryId, String>,
}

/// Render every page, handing each file to `sink` as soon as it is made, so a build never
/// holds the whole site's HTML at once. Body links are checked before any page is handed
/// over; the links templates make are checked by the caller (`site_links::SiteLinkIndex`)
/// as the files pass.
pub fn render_site_into(
    input: &RenderInput<'_>,
    sink: &(dyn Fn(OutputFile) -> Result<()> + Sync),
) -> Result<SiteLinks> {
    render_site_into_with(input, Vec::new(), Retain::Links, sink)
}

/// What a whole-site render keeps of pass 1 once the pages are made.
#[derive(Default)]
pub enum Retain<'a> {
    /// The links and search words (`serve`: it remakes pages and the index after an edit).
    #[default]
    Links,
    /// Nothing (a build): the [`SiteLinks`] returned are empty, pass 1's outlines go
    /// before pass 2, and each page's search words once the index notes them, held until
    /// then coded against `vocabulary`. `words[i]`, where given, is entry `i`'s, coded
    /// with its outline (the outline's text then empty).
    Nothing {
        vocabulary: &'a Vocabulary,
        words: Vec<Option<CodedWords>>,
    },
}

/// [`render_site_into`], with pass 1 already done for some entries: `outlines[i]`, where
/// given, is entry `i`'s (in `input.content.entries` order; see [`outline_of`]).
pub fn render_site_into_with(
    input: &RenderInput<'_>,
    mut outlines: Vec<Option<RenderedMarkdown>>,
    retain: Retain<'_>,
    sink: &(dyn Fn(OutputFile) -> Result<()> + Sync),
) -> Result<SiteLinks> {
    let keep_links = matches!(retain, Retain::Links);
    let by_id: HashMap<&EntryId, &Assessment> =
        input.assessments.iter().map(|a| (&a.id, a)).collect();
    // Pass 1: headings, links and text of every entry (no HTML, no highlighting), so every
    // page's heading ids are known before links are checked, and a broken link is an error
    // even in an entry that is not published.
    let entries: Vec<&Entry> = input.content.entries.iter().collect();
    // The missing ones are made in place: collecting them into a second vector held two
    // for a moment, at a build's peak.
    outlines.resize_with(entries.len(), || None);
    outlines
        .par_iter_mut()
        .zip(entries.par_iter())
        .filter(|(given, _)| given.is_none())
        .try_for_each(|(slot, e)| {
            let mut outline = page_outline(input, e, by_id.get(&e.id).copied())?;
            // Kept (`serve`): only the distinct words, made here in parallel.
            if keep_links {
                outline.text = super::search::distinct_words(&outline.text);
            }
            *slot = Some(outline);
            Ok::<_, Error>(())
        })?;
    // Every slot is filled. `map_while` over the vector's own iterator reuses its buffer
    // (`flatten` would not).
    let mut outlines: Vec<RenderedMarkdown> = outlines.into_iter().map_while(|slot| slot).collect();
    let headings: HashMap<&EntryId, &[String]> = entries
        .iter()
        .zip(&outlines)
        .map(|(e, r)| (&e.id, r.heading_ids.as_slice()))
        .collect();
    // Each entry's links checked in parallel, the errors kept in entry order.
    let headings_of = |id: &EntryId| headings.get(id).copied();
    let mut errors: Vec<Error> = entries
        .par_iter()
        .zip(&outlines)
        .flat_map_iter(|(e, r)| {
            let mut errors = check_links(input, e, r, input.pages, &headings_of);
            errors.extend(check_inline_links(input, e, input.pages, &headings_of));
            errors
        })
        .collect();
    // Figures the pages show, each file once, and the project's static/ files.
    let mut copies: std::collections::BTreeMap<&str, &std::path::Path> = Default::default();
    for (e, r) in entries.iter().zip(&outlines) {
        if input.pages.contains(&e.id) {
            for (source, site_path) in &r.copies {
                copies.insert(site_path, source);
            }
        }
    }
    let statics = super::static_files::static_files(input.layout).unwrap_or_else(|e| {
        errors.extend(e.flatten());
        Vec::new()
    });
    Error::collect(errors)?;
    drop(headings);
    for (site_path, source) in copies {
        let bytes = std::fs::read(source).map_err(|e| Error::io(source, e))?;
        sink(OutputFile {
            path: site_path.into(),
            bytes,
        })?;
    }
    statics.into_iter().try_for_each(sink)?;
    // The search words go to the site-wide thread; a build's are coded, and the search
    // index lets each go once it is noted (the A-Z index is made after).
    let mut texts: Vec<String> = Vec::new();
    let mut coded: Vec<CodedWords> = Vec::new();
    let vocabulary = match retain {
        Retain::Links => {
            texts = outlines
                .iter_mut()
                .map(|r| std::mem::take(&mut r.text))
                .collect();
            None
        }
        Retain::Nothing { vocabulary, words } => {
            coded = outlines
                .iter_mut()
                .zip(words.into_iter().chain(std::iter::repeat(None)))
                .map(|(r, given)| given.unwrap_or_else(|| vocabulary.code(&r.text)))
                .collect();
            Some(vocabulary)
        }
    };
    // Past the link checks, only `serve` reads the outlines (what links where): a build
    // lets them go before pass 2, about 0.7 KB an entry.
    if !keep_links {
        outlines = Vec::new();
    }
    // Pass 2: Markdown and templates, each page handed over as soon as it is rendered. The
    // site-wide files (one thread: the search index is one document) are made alongside.
    let (site_wide, pages) = rayon::join(
        || -> Result<Option<Vec<String>>> {
            let texts = std::mem::take(&mut texts);
            let mut coded = std::mem::take(&mut coded);
            let published_at: Vec<usize> = (0..entries.len())
                .filter(|&i| input.searched(&entries[i].id))
                .collect();
            let published: Vec<PublishedPage<'_>> = published_at
                .iter()
                .map(|&i| published_page(input, entries[i]))
                .collect();
            let bodies = match vocabulary {
                None => Bodies::Lent(published_at.iter().map(|&i| texts[i].as_str()).collect()),
                Some(vocabulary) => Bodies::Coded(
                    vocabulary,
                    published_at
                        .iter()
                        .map(|&i| std::mem::take(&mut coded[i]))
                        .collect(),
                ),
            };
            drop(coded);
            render_site_wide_into(input, &published, bodies, sink)?;
            drop(published);
            let kept = keep_links.then_some(texts);
            sink(super::index_page::render_index(input)?)?;
            Ok(kept)
        },
        || {
            entries
                .par_iter()
                .filter(|e| input.pages.contains(&e.id))
                .try_for_each(|e| {
                    let a = by_id[&e.id];
                    let (e, shown) = shown_of(input, e, a)?;
                    // The text for search came from pass 1.
                    let r = markdown_of(input, &e, &shown.markdown, super::markdown::render_html);
                    sink(page_file(input, &e, a, &shown, r)?)
                })
        },
    );
    let mut texts = site_wide?.map(Vec::into_iter);
    pages?;

    let mut links = SiteLinks::default();
    for (e, r) in entries.iter().zip(outlines) {
        links.links_to.insert(e.id.clone(), linked_entries(&r));
        links.headings.insert(e.id.clone(), r.heading_ids);
        let text = texts.as_mut().and_then(Iterator::next);
        if let (true, Some(text)) = (input.searched(&e.id), text) {
            links.texts.insert(e.id.clone(), text);
        }
    }
    Ok(links)
}

/// The entries a page's body links to.
pub fn linked_entries(r: &RenderedMarkdown) -> Vec<EntryId> {
    let mut ids: Vec<EntryId> = r
        .links
        .iter()
        .filter_map(|(t, _)| match t {
            LinkTarget::Entry { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Where an entry's page lives in the site.
pub fn page_path(id: &EntryId) -> PathBuf {
    PathBuf::from(id.kind.dir())
        .join(&id.slug)
        .join("index.html")
}

fn link_policy<'a>(input: &'a RenderInput<'_>, page_path: &'a str, e: &'a Entry) -> LinkPolicy<'a> {
    LinkPolicy {
        page_path,
        linkable: input.pages,
        reserved_ids: input.template_ids.of_kind(e.id.kind),
        figures: Some((
            &e.path,
            super::figures::Figures {
                layout: input.layout,
                allow: &input.config.content,
            },
        )),
    }
}

/// Pass 1 for one entry: headings, links and text only.
pub fn page_outline(
    input: &RenderInput<'_>,
    e: &Entry,
    a: Option<&Assessment>,
) -> Result<RenderedMarkdown> {
    page_markdown(input, e, a, super::markdown::outline)
}

/// Pass 1 for one entry whose expanded body is `markdown`, without a [`RenderInput`]: a
/// build does it while the entry's text is still in memory. Pass 1 does not depend on
/// which entries get pages (only whether a link becomes text, which it does not record).
pub fn outline_of(
    layout: &crate::config::Layout,
    config: &crate::config::Config,
    template_ids: &TemplateIds,
    e: &Entry,
    markdown: &str,
) -> RenderedMarkdown {
    let page_path = e.id.url_path();
    let none = HashSet::new();
    let policy = LinkPolicy {
        page_path: &page_path,
        linkable: &none,
        reserved_ids: template_ids.of_kind(e.id.kind),
        figures: Some((
            &e.path,
            super::figures::Figures {
                layout,
                allow: &config.content,
            },
        )),
    };
    super::markdown::outline(markdown, e.body_line, &policy)
}

/// Pass 2 for one page: its Markdown (after value expansion) to HTML.
pub fn render_page_markdown(
    input: &RenderInput<'_>,
    e: &Entry,
    a: Option<&Assessment>,
) -> Result<RenderedMarkdown> {
    let mut r = page_markdown(input, e, a, render_markdown)?;
    // `serve` keeps it: only the distinct words.
    r.text = super::search::distinct_words(&r.text);
    Ok(r)
}

/// The entry's Markdown, after value expansion when it has been assessed, through `pass`.
fn page_markdown(
    input: &RenderInput<'_>,
    e: &Entry,
    a: Option<&Assessment>,
    pass: fn(&str, usize, &LinkPolicy<'_>) -> RenderedMarkdown,
) -> Result<RenderedMarkdown> {
    Ok(match a {
        Some(a) => markdown_of(input, e, &shown_of(input, e, a)?.1.markdown, pass),
        None => markdown_of(input, e, &e.body, pass),
    })
}

fn markdown_of(
    input: &RenderInput<'_>,
    e: &Entry,
    md: &str,
    pass: fn(&str, usize, &LinkPolicy<'_>) -> RenderedMarkdown,
) -> RenderedMarkdown {
    let page_path = e.id.url_path();
    pass(md, e.body_line, &link_policy(input, &page_path, e))
}

/// The entry as its page reads it and what the page shows of its assessment, both made
/// again from the entry's file where the build let them go (`Entry::thin`).
fn shown_of<'a>(
    input: &RenderInput<'_>,
    e: &'a Entry,
    a: &'a Assessment,
) -> Result<(Cow<'a, Entry>, Cow<'a, Shown>)> {
    match (&a.shown, input.restore) {
        (Some(shown), _) => Ok((Cow::Borrowed(e), Cow::Borrowed(shown))),
        (None, Some(restore)) => {
            let (whole, shown) = restore(e, a)?;
            Ok((Cow::Owned(whole), Cow::Owned(shown)))
        }
        (None, None) => Err(Error::Other(format!(
            "{}: its assessment kept nothing to render and there is no way to make it again",
            e.id
        ))),
    }
}

/// Pass 2 for one page: the template around its rendered Markdown.
pub fn render_page(
    input: &RenderInput<'_>,
    e: &Entry,
    a: &Assessment,
    r: RenderedMarkdown,
) -> Result<OutputFile> {
    let (e, shown) = shown_of(input, e, a)?;
    page_file(input, &e, a, &shown, r)
}

fn page_file(
    input: &RenderInput<'_>,
    e: &Entry,
    a: &Assessment,
    shown: &Shown,
    r: RenderedMarkdown,
) -> Result<OutputFile> {
    let html = render_entry(
        input,
        &site_ctx(input.config, input.drafts, ENTRY_ROOT, input.pages),
        e,
        a,
        shown,
        r,
    )?;
    Ok(OutputFile {
        path: page_path(&e.id),
        bytes: html,
    })
}

/// The site-wide files for the published entries whose body text is in `texts`; None
/// when `stop` gave them up (see `search::Stop`).
pub fn render_site_wide_from(
    input: &RenderInput<'_>,
    texts: &HashMap<EntryId, String>,
    stop: super::search::Stop<'_>,
) -> Result<Option<Vec<OutputFile>>> {
    let (published, bodies): (Vec<PublishedPage<'_>>, Vec<&str>) = input
        .content
        .entries
        .iter()
        .filter(|e| input.searched(&e.id))
        .filter_map(|e| Some((published_page(input, e), texts.get(&e.id)?.as_str())))
        .unzip();
    super::site_wide::render_site_wide_until(input, &published, Bodies::Lent(bodies), stop)
}

fn published_page<'a>(input: &'a RenderInput<'a>, e: &'a Entry) -> PublishedPage<'a> {
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

/// Files every build writes besides the entry pages and the index (see `site_wide`).
const SITE_WIDE_FILES: &[&str] = &["feed.xml", "sitemap.xml", "search/", "404.html"];

/// Body link errors on one page; `headings` gives the heading ids of any entry.
pub fn check_links<'h>(
    input: &RenderInput<'_>,
    entry: &Entry,
    r: &RenderedMarkdown,
    pages: &HashSet<EntryId>,
    headings: &dyn Fn(&EntryId) -> Option<&'h [String]>,
) -> Vec<Error> {
    let mut errors = Vec::new();
    let at = |line| Some(Location { line, column: 1 });
    for (line, problem) in &r.problems {
        errors.push(Error::content(&entry.path, at(*line), problem.clone()));
    }
    for (target, line) in &r.links {
        match target {
            LinkTarget::Entry { id, anchor } => {
                if input.content.get(id).is_none() {
                    errors.push(Error::content(
                        &entry.path,
                        at(*line),
                        format!("link to missing page `{id}`"),
                    ));
                } else if let (Some(anchor), true) = (anchor, pages.contains(id)) {
                    // The template's own ids (`#sources`) are checked in the generated
                    // page, where a section the template leaves out is missing.
                    let known = headings(id).is_some_and(|h| h.iter().any(|x| x == anchor))
                        || input.template_ids.of_kind(id.kind).contains(anchor);
                    if !known {
                        errors.push(Error::content(
                            &entry.path,
                            at(*line),
                            format!("link to missing heading `#{anchor}` on `{id}`"),
                        ));
                    }
                }
            }
            LinkTarget::SamePage { anchor } => {
                let known = anchor.is_empty()
                    || r.heading_ids.iter().any(|h| h == anchor)
                    || input.template_ids.of_kind(entry.id.kind).contains(anchor)
                    || anchor.starts_with("fn");
                if !known {
                    errors.push(Error::content(
                        &entry.path,
                        at(*line),
                        format!("link to missing heading `#{anchor}`"),
                    ));
                }
            }
            LinkTarget::OutsideSite { dest } => errors.push(Error::content(
                &entry.path,
                at(*line),
                format!("link `{dest}` points outside the site"),
            )),
            LinkTarget::Other { path, .. } => {
                let known = path.is_empty()
                    || SITE_WIDE_FILES.contains(&path.as_str())
                    || path
                        .strip_prefix("static/")
                        .is_some_and(|f| input.layout.templates().join("static").join(f).is_file());
                if !known {
                    errors.push(Error::content(
                        &entry.path,
                        at(*line),
                        format!("link to missing page `/{path}`"),
                    ));
                }
            }
            LinkTarget::External => {}
        }
    }
    errors
}

/// Link errors in an entry's one-line Markdown fields (summary, credit, licence), at the
/// field's line.
pub fn check_inline_links<'h>(
    input: &RenderInput<'_>,
    entry: &Entry,
    pages: &HashSet<EntryId>,
    headings: &dyn Fn(&EntryId) -> Option<&'h [String]>,
) -> Vec<Error> {
    let m = &entry.meta;
    let fields = [
        ("summary", Some(&m.summary)),
        ("credit", m.credit.as_ref()),
        ("license", m.license.as_ref()),
    ];
    let written_at = entry.id.url_path();
    let cx = InlineContext {
        written_at: &written_at,
        root: "",
        linkable: pages,
    };
    let mut errors = Vec::new();
    for (key, text) in fields {
        let Some(text) = text.filter(|t| t.contains('[')) else {
            continue;
        };
        let inline = render_inline(text, &cx);
        if inline.links.is_empty() {
            continue;
        }
        let line = crate::content::split_front_matter(&entry.path, &entry.raw)
            .ok()
            .and_then(|s| crate::content::line_of_reference(&s, key, key))
            .unwrap_or(1);
        let r = RenderedMarkdown {
            heading_ids: headings(&entry.id)
                .map(<[String]>::to_vec)
                .unwrap_or_default(),
            links: inline.links.into_iter().map(|t| (t, line)).collect(),
            ..RenderedMarkdown::default()
        };
        errors.extend(check_links(input, entry, &r, pages, headings));
    }
    errors
}

/// An entry's inline Markdown field (summary, credit, licence) as a page at `root` shows it.
pub fn entry_inline(input: &RenderInput<'_>, entry: &Entry, text: &str, root: &str) -> Inline {
    let written_at = entry.id.url_path();
    render_inline(
        text,
        &InlineContext {
            written_at: &written_at,
            root,
            linkable: input.pages,
        },
    )
}

pub(super) fn link_to(
    input: &RenderInput<'_>,
    entry: &Entry,
    note: Option<&str>,
    root_relative: bool,
) -> LinkCtx {
    let linked = input.pages.contains(&entry.id);
    let published = input.published.contains(&entry.id);
    let root = if root_relative { "" } else { ENTRY_ROOT };
    LinkCtx {
        name: list_label(entry).to_string(),
        url: linked.then(|| entry.id.page_url(root)),
        summary: Some(entry_inline(input, entry, &entry.meta.summary, root).html),
        aliases: entry.meta.aliases.clone(),
        note: note.map(str::to_string),
        day: entry.meta.day,
        draft: !published,
    }
}

/// An entry's page before its template runs: the template's name and what it sees.
pub struct PageTemplate {
    pub name: String,
    pub context: Context,
    /// The output buffer's starting size.
    pub capacity: usize,
}

fn render_entry(
    input: &RenderInput<'_>,
    site: &SiteCtx<'_>,
    e: &Entry,
    a: &Assessment,
    shown: &Shown,
    r: RenderedMarkdown,
) -> Result<Vec<u8>> {
    let page = entry_template(input, site, e, a, shown, r);
    render_bytes(
        input.tera,
        &page.name,
        &page.context,
        &input.layout.templates(),
        page.capacity,
    )
    .map_err(|err| match err {
        // The same template renders every entry of its kind: name the one it failed on,
        // whose front matter is most often what the template could not use.
        Error::Template { path, message } => Error::content(
            &e.path,
            None,
            format!("rendering {}: {message}", path.display()),
        ),
        other => other,
    })
}

/// [`render_page`] up to the template: what bench/floor times the template engine on.
pub fn page_template(
    input: &RenderInput<'_>,
    e: &Entry,
    a: &Assessment,
    r: RenderedMarkdown,
) -> Result<PageTemplate> {
    let (e, shown) = shown_of(input, e, a)?;
    let site = site_ctx(input.config, input.drafts, ENTRY_ROOT, input.pages);
    Ok(entry_template(input, &site, &e, a, &shown, r))
}

fn entry_template(
    input: &RenderInput<'_>,
    site: &SiteCtx<'_>,
    e: &Entry,
    a: &Assessment,
    shown: &Shown,
    r: RenderedMarkdown,
) -> PageTemplate {
    let content = input.content;
    let term = |slug: &str| content.get(&EntryId::new(Kind::Term, slug));
    let related: Vec<LinkCtx> = e
        .meta
        .related
        .iter()
        .filter_map(|s| term(s))
        .map(|t| link_to(input, t, None, false))
        .collect();
    let terms: Vec<LinkCtx> = e
        .meta
        .terms
        .iter()
        .filter_map(|u| term(u.slug()).map(|t| link_to(input, t, u.note(), false)))
        .collect();
    let meet: Vec<LinkCtx> = if e.id.kind == Kind::Term {
        content
            .uses_of(&e.id.slug)
            .filter(|(l, _)| l.id.kind == Kind::Lesson)
            .map(|(l, note)| link_to(input, l, note, false))
            .collect()
    } else {
        Vec::new()
    };
    let signoff = input.signoffs.get(&e.id);
    // The registered name; a draft may carry a signature of someone not (yet) registered.
    let name_of = |s: Option<&crate::review::Signature>| {
        s.map(|s| {
            input
                .people
                .get(&s.person)
                .map_or_else(|| s.person.clone(), |p| p.name.clone())
        })
    };
    let byline = BylineCtx {
        written_by: name_of(signoff.and_then(|s| s.author.as_ref())),
        reviewed_by: name_of(signoff.and_then(|s| s.reviewer.as_ref())),
        written_on: signoff
            .and_then(|s| s.author.as_ref())
            .map(|s| s.date().to_string()),
        last_checked_on: a.last_checked.map(|d| d.to_string()),
    };
    let summary = entry_inline(input, e, &e.meta.summary, ENTRY_ROOT);
    let inline = |t: &Option<String>| {
        t.as_deref()
            .map(|t| entry_inline(input, e, t, ENTRY_ROOT).html)
    };
    let show_toc = e.meta.toc.unwrap_or(
        matches!(e.id.kind, Kind::Lesson | Kind::Guide) && r.toc.len() >= TOC_MIN_HEADINGS,
    );
    let (prev, next) = input.navigation.prev_next(&e.id, ENTRY_ROOT);
    let sources: Vec<SourceCtx> = e
        .meta
        .sources
        .iter()
        .map(|s| SourceCtx {
            title: s.title.clone(),
            url: s.url.clone(),
            checked: s.checked.to_string(),
        })
        .collect();
    let charts: Vec<Option<String>> = shown
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| super::chart::chart(t, i))
        .collect();
    let ctx = PageCtx {
        kind: e.id.kind.singular(),
        slug: &e.id.slug,
        name: e.name(),
        title: &e.meta.title,
        summary: summary.html,
        summary_text: summary.text,
        aliases: &e.meta.aliases,
        credit: inline(&e.meta.credit),
        license: inline(&e.meta.license),
        toc: if show_toc { r.toc.clone() } else { Vec::new() },
        sidebar: input.navigation.sidebar(Some(&e.id), ENTRY_ROOT),
        prev,
        next,
        day: e.meta.day,
        root: ENTRY_ROOT,
        canonical: format!(
            "{}/{}",
            input.config.base_url.trim_end_matches('/'),
            e.id.url_path()
        ),
        draft: (!a.verdict.is_published())
            .then(|| a.verdict.refusals.iter().map(|r| r.to_string()).collect()),
        withdrawn: !input.drafts && !a.verdict.is_published(),
        body: r.html,
        tables: shown
            .tables
            .iter()
            .zip(&charts)
            .map(|(t, chart)| TableCtx::new(t, chart.as_deref()))
            .collect(),
        charts,
        diagram: shown.diagram.clone(),
        related_list: super::entry_lists::related(&related),
        meet_list: super::entry_lists::meet(&meet),
        terms_list: super::entry_lists::terms(&terms),
        sources_list: super::entry_lists::sources(&sources),
        related,
        meet,
        terms,
        sources,
        byline,
    };
    let mut tctx = Context::new();
    tctx.insert("site", site);
    tctx.insert("page", &ctx);
    tctx.insert("root", ENTRY_ROOT);
    PageTemplate {
        name: format!("{}.html", e.id.kind.singular()),
        context: tctx,
        // Room for what the templates put around the body (about 8 KB with this
        // project's) without growing the buffer.
        capacity: 16 * 1024 + ctx.body.len() + ctx.diagram.as_ref().map_or(0, String::len),
    }
}
