//! Turning assessed entries into pages: the page contexts templates see, link checks, and
//! the index. Which entries get pages was decided by the gate before this runs.

use std::borrow::Cow;
use std::path::PathBuf;

use serde::Serialize;
use tera::Context;

use crate::content::{Entry, EntryId, IdSet, Kind};
use crate::error::{Error, Result};

use super::entry_lists::{LinkCtx, SourceCtx};
use super::escape::escape_into;
use super::inline::{render_inline, Inline, InlineContext};
use super::input::{Assessment, OutputFile, RenderInput, Shown};
use super::markdown::{render as render_markdown, LinkPolicy, RenderedMarkdown, TocItem};
use super::navigation::{list_label, NavLink, SidebarGroup};
use super::tables::TableView;
use super::template_ids::TemplateIds;
use super::templates::render_bytes;

#[derive(Serialize)]
pub struct SiteCtx<'a> {
    title: &'a str,
    base_url: &'a str,
    description: &'a str,
    /// glossary.toml's `footer`, rendered for the page's depth; None: no footer line.
    footer: Option<String>,
    /// A `--drafts` preview: every page carries `noindex` and the preview banner.
    drafts_preview: bool,
    /// The Content-Security-Policy every page's head carries (`render::csp`).
    csp: String,
    /// Where `glossary reproduce` fetches this site's bundles: `base_url` without its
    /// trailing `/`, or None when `base_url` is an example address ([`example_host`]), where
    /// the page shows `<this site>` and says so, never a command for a host that does not
    /// exist.
    reproduce_base: Option<String>,
}

/// Whether `base_url`'s host is one reserved for examples and tests (RFC 2606 and 6761:
/// example.com, .net and .org and their subdomains, and the `.example`, `.test` and
/// `.invalid` top-level domains), so that no site is ever served from it. An address that
/// does not parse counts as one too.
pub fn example_host(base_url: &str) -> bool {
    let Some(host) = url::Url::parse(base_url).ok().and_then(|u| {
        u.host_str()
            .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
    }) else {
        return true;
    };
    let under = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    [
        "example.com",
        "example.net",
        "example.org",
        "example",
        "test",
        "invalid",
    ]
    .into_iter()
    .any(under)
}

/// The site's settings as a page at `root` (the prefix to the site root) sees them; links
/// in the footer lead to pages in `linkable` only.
pub fn site_ctx<'a>(
    config: &'a crate::config::Config,
    drafts_preview: bool,
    root: &str,
    linkable: &IdSet,
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
        csp: super::csp::policy_at(
            config.content.allow_remote_images,
            &super::csp::base_path(&config.base_url),
        ),
        reproduce_base: (!example_host(&config.base_url))
            .then(|| config.base_url.trim_end_matches('/').to_string()),
    }
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
    /// Reasons the entry is not published, as HTML (`code_span::backticks_as_code`: escaped, code
    /// spans as `<code>`) (a drafts preview, or `serve` showing an entry
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
    /// A section's page: the pages of the section, in its order (name and summary).
    members: Vec<LinkCtx>,
    sources: Vec<SourceCtx>,
    /// `related`, `meet`, `terms`, `members` and `sources` as `<li>` items
    /// (`entry_lists`).
    related_list: String,
    meet_list: String,
    terms_list: String,
    members_list: String,
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
    let none = IdSet::default();
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
    page_markdown(input, e, a, render_markdown)
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
            Ok((whole, Cow::Owned(shown)))
        }
        (None, None) => Err(Error::Other(format!(
            "{}: its assessment kept nothing to render and there is no way to make it again",
            e.id
        ))),
    }
}

/// Pass 2 for one page, whole: its Markdown (after value expansion) and the template
/// around it, the entry and what it shows made again first where the build let them go.
pub fn render_entry_page(input: &RenderInput<'_>, e: &Entry, a: &Assessment) -> Result<OutputFile> {
    let (e, shown) = shown_of(input, e, a)?;
    let r = markdown_of(input, &e, &shown.markdown, super::markdown::render_html);
    page_file(input, &e, a, &shown, r)
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

/// The link to `entry` as a list on another page shows it: its name, summary, aliases and
/// note. None unless `entry` is published (or this is a drafts preview:
/// [`RenderInput::listed`]): a page shows nothing of an entry that is not published, not
/// even its name, since that text was never signed by the entry's own signers (what they
/// sign is what their page shows, and editing it withdraws the entry, and with it every
/// list that quotes it).
pub fn link_to(
    input: &RenderInput<'_>,
    entry: &Entry,
    note: Option<&str>,
    root_relative: bool,
) -> Option<LinkCtx> {
    if !(input.listed(&entry.id) && input.pages.contains(&entry.id)) {
        return None;
    }
    let published = input.published.contains(&entry.id);
    let root = if root_relative { "" } else { ENTRY_ROOT };
    Some(LinkCtx {
        name: list_label(entry).to_string(),
        url: entry.id.page_url(root),
        summary: Some(entry_inline(input, entry, &entry.meta.summary, root).html),
        aliases: entry.meta.aliases.clone(),
        note: note.map(str::to_string),
        day: entry.meta.day,
        draft: !published,
    })
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
        .filter_map(|t| link_to(input, t, None, false))
        .collect();
    let terms: Vec<LinkCtx> = e
        .meta
        .terms
        .iter()
        .filter_map(|u| term(u.slug()).and_then(|t| link_to(input, t, u.note(), false)))
        .collect();
    let meet: Vec<LinkCtx> = if e.id.kind == Kind::Term {
        content
            .uses_of(&e.id.slug)
            .filter(|(l, _)| l.id.kind == Kind::Lesson)
            .filter_map(|(l, note)| link_to(input, l, note, false))
            .collect()
    } else {
        Vec::new()
    };
    let members: Vec<LinkCtx> = input
        .navigation
        .section_members(&e.id)
        .into_iter()
        .filter_map(|id| content.get(id))
        .filter_map(|m| link_to(input, m, None, false))
        .collect();
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
        draft: (!a.verdict.is_published()).then(|| {
            a.verdict
                .refusals
                .iter()
                .map(|r| super::code_span::backticks_as_code(&r.to_string()))
                .collect()
        }),
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
        members_list: super::entry_lists::related(&members),
        sources_list: super::entry_lists::sources(&sources),
        related,
        meet,
        terms,
        members,
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

#[cfg(test)]
mod tests {
    use super::example_host;

    #[test]
    fn example_addresses_are_the_reserved_ones() {
        for example in [
            "https://gpu-glossary.example.org",
            "https://example.com/",
            "http://notes.example.net/x/",
            "https://glossary.test",
            "https://a.example",
            "https://site.invalid",
            "not a url",
        ] {
            assert!(example_host(example), "{example}");
        }
        for real in [
            "https://gpu-notes.dev",
            "https://example.org.uk",
            "https://myexample.org",
            "http://127.0.0.1:8000/",
            "http://localhost:8000",
        ] {
            assert!(!example_host(real), "{real}");
        }
    }
}
