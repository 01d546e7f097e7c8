//! Turning assessed entries into pages: the page contexts templates see, link checks, and
//! the index. Which entries get pages was decided by the gate before this runs.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;
use tera::{Context, Tera};

use crate::build::{Assessment, OutputFile, Project};
use crate::content::{Entry, EntryId, Kind};
use crate::error::{Error, Location, Result};

use super::links::LinkTarget;
use super::markdown::{render as render_markdown, LinkPolicy, RenderedMarkdown};
use super::tables::TableView;
use super::templates::render as render_template;

#[derive(Serialize)]
struct SiteCtx<'a> {
    title: &'a str,
    base_url: &'a str,
    description: &'a str,
}

/// A link to another page; `url` is None when that page is not part of this build, so
/// templates show plain text instead of a dead link.
#[derive(Serialize, Clone)]
pub struct LinkCtx {
    pub name: String,
    pub url: Option<String>,
    pub summary: Option<String>,
    pub note: Option<String>,
    pub day: Option<u32>,
    pub draft: bool,
}

#[derive(Serialize)]
struct SourceCtx {
    title: String,
    url: String,
    checked: String,
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
    summary: &'a str,
    day: Option<u32>,
    /// Relative prefix from this page to the site root ("../../").
    root: &'static str,
    canonical: String,
    /// Reasons the entry is not published (drafts preview only).
    draft: Option<Vec<String>>,
    body: String,
    tables: &'a [TableView],
    diagram: Option<String>,
    related: Vec<LinkCtx>,
    meet: Vec<LinkCtx>,
    terms: Vec<LinkCtx>,
    sources: Vec<SourceCtx>,
    byline: BylineCtx,
}

const ENTRY_ROOT: &str = "../../";

pub struct RenderInput<'a> {
    pub project: &'a Project,
    pub assessments: &'a [Assessment],
    pub tera: &'a Tera,
    /// Entries that get a page in this build.
    pub pages: &'a HashSet<EntryId>,
    /// Entries the gate published (a subset of `pages` unless drafts are off).
    pub published: &'a HashSet<EntryId>,
}

/// Render every page of the site. Link errors from all pages are reported together.
pub fn render_site(input: &RenderInput<'_>) -> Result<Vec<OutputFile>> {
    let project = input.project;
    let by_id: HashMap<&EntryId, &Assessment> =
        input.assessments.iter().map(|a| (&a.id, a)).collect();
    let entries: Vec<&Entry> = project
        .content
        .entries
        .iter()
        .filter(|e| input.pages.contains(&e.id))
        .collect();

    // Pass 1: Markdown, so every page's heading ids are known before links are checked.
    let rendered: Vec<RenderedMarkdown> = entries
        .par_iter()
        .map(|e| {
            let page_path = e.id.url_path();
            let policy = LinkPolicy {
                page_path: &page_path,
                linkable: input.pages,
            };
            let md = by_id
                .get(&e.id)
                .map(|a| a.markdown.as_str())
                .unwrap_or(&e.body);
            render_markdown(md, e.body_line, &policy)
        })
        .collect();
    let headings: HashMap<&EntryId, &[String]> = entries
        .iter()
        .zip(&rendered)
        .map(|(e, r)| (&e.id, r.heading_ids.as_slice()))
        .collect();
    let mut errors = Vec::new();
    for (e, r) in entries.iter().zip(&rendered) {
        errors.extend(check_links(project, e, r, input.pages, &headings));
    }
    Error::collect(errors)?;

    // Pass 2: templates.
    let site = SiteCtx {
        title: &project.config.title,
        base_url: &project.config.base_url,
        description: &project.config.description,
    };
    let mut files: Vec<OutputFile> = entries
        .par_iter()
        .zip(rendered.into_par_iter())
        .map(|(e, r)| {
            let a = by_id[&e.id];
            let html = render_entry(input, &site, e, a, r)?;
            Ok(OutputFile {
                path: PathBuf::from(e.id.kind.dir())
                    .join(&e.id.slug)
                    .join("index.html"),
                bytes: html.into_bytes(),
            })
        })
        .collect::<Result<_>>()?;
    files.push(render_index(input, &site)?);
    Ok(files)
}

fn check_links(
    project: &Project,
    entry: &Entry,
    r: &RenderedMarkdown,
    pages: &HashSet<EntryId>,
    headings: &HashMap<&EntryId, &[String]>,
) -> Vec<Error> {
    let mut errors = Vec::new();
    let at = |line| Some(Location { line, column: 1 });
    for (target, line) in &r.links {
        match target {
            LinkTarget::Entry { id, anchor } => {
                if project.content.get(id).is_none() {
                    errors.push(Error::content(
                        &entry.path,
                        at(*line),
                        format!("link to missing page `{id}`"),
                    ));
                } else if let (Some(anchor), true) = (anchor, pages.contains(id)) {
                    if !headings
                        .get(id)
                        .is_some_and(|h| h.iter().any(|x| x == anchor))
                    {
                        errors.push(Error::content(
                            &entry.path,
                            at(*line),
                            format!("link to missing heading `#{anchor}` on `{id}`"),
                        ));
                    }
                }
            }
            LinkTarget::SamePage { anchor } => {
                let known = r.heading_ids.iter().any(|h| h == anchor) || anchor.starts_with("fn");
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
                let known = path.is_empty() || path.starts_with("static/");
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

/// URL from an entry page to another entry's page. Explicit `index.html` so the site also
/// works opened straight from disk.
fn entry_url(id: &EntryId) -> String {
    format!("{ENTRY_ROOT}{}index.html", id.url_path())
}

fn link_to(
    input: &RenderInput<'_>,
    entry: &Entry,
    note: Option<&str>,
    root_relative: bool,
) -> LinkCtx {
    let linked = input.pages.contains(&entry.id);
    let published = input.published.contains(&entry.id);
    LinkCtx {
        name: match entry.id.kind {
            Kind::Lesson => entry.meta.title.clone(),
            _ => entry.name().to_string(),
        },
        url: linked.then(|| {
            if root_relative {
                format!("{}index.html", entry.id.url_path())
            } else {
                entry_url(&entry.id)
            }
        }),
        summary: Some(entry.meta.summary.clone()),
        note: note.map(str::to_string),
        day: entry.meta.day,
        draft: !published,
    }
}

fn render_entry(
    input: &RenderInput<'_>,
    site: &SiteCtx<'_>,
    e: &Entry,
    a: &Assessment,
    r: RenderedMarkdown,
) -> Result<String> {
    let project = input.project;
    let content = &project.content;
    let term = |slug: &str| content.get(&EntryId::new(Kind::Term, slug));
    let related = e
        .meta
        .related
        .iter()
        .filter_map(|s| term(s))
        .map(|t| link_to(input, t, None, false))
        .collect();
    let terms = e
        .meta
        .terms
        .iter()
        .filter_map(|u| term(u.slug()).map(|t| link_to(input, t, u.note(), false)))
        .collect();
    let meet = if e.id.kind == Kind::Term {
        content
            .uses_of(&e.id.slug)
            .filter(|(l, _)| l.id.kind == Kind::Lesson)
            .map(|(l, note)| link_to(input, l, note, false))
            .collect()
    } else {
        Vec::new()
    };
    let signoff = project.signoffs.get(&e.id);
    let name_of = |s: Option<&crate::review::Signature>| s.map(|s| s.name.trim().to_string());
    let byline = BylineCtx {
        written_by: name_of(signoff.and_then(|s| s.author.as_ref())),
        reviewed_by: name_of(signoff.and_then(|s| s.reviewer.as_ref())),
        written_on: signoff
            .and_then(|s| s.author.as_ref())
            .map(|s| s.date.to_string()),
        last_checked_on: a.last_checked.map(|d| d.to_string()),
    };
    let diagram = match &e.meta.diagram {
        Some(d) => Some(super::diagram::render(d, project, a)?),
        None => None,
    };
    let ctx = PageCtx {
        kind: e.id.kind.singular(),
        slug: &e.id.slug,
        name: e.name(),
        title: &e.meta.title,
        summary: &e.meta.summary,
        day: e.meta.day,
        root: ENTRY_ROOT,
        canonical: format!(
            "{}/{}",
            project.config.base_url.trim_end_matches('/'),
            e.id.url_path()
        ),
        draft: (!a.verdict.is_published())
            .then(|| a.verdict.refusals.iter().map(|r| r.to_string()).collect()),
        body: r.html,
        tables: &a.tables,
        diagram,
        related,
        meet,
        terms,
        sources: e
            .meta
            .sources
            .iter()
            .map(|s| SourceCtx {
                title: s.title.clone(),
                url: s.url.clone(),
                checked: s.checked.to_string(),
            })
            .collect(),
        byline,
    };
    let mut tctx = Context::new();
    tctx.insert("site", site);
    tctx.insert("page", &ctx);
    // base.html links stylesheets and the index through `root`, as the index page does.
    tctx.insert("root", ENTRY_ROOT);
    let template = format!("{}.html", e.id.kind.singular());
    render_template(input.tera, &template, &tctx, &project.layout.templates())
}

#[derive(Serialize)]
struct LetterGroup {
    letter: String,
    terms: Vec<LinkCtx>,
}

fn render_index(input: &RenderInput<'_>, site: &SiteCtx<'_>) -> Result<OutputFile> {
    let content = &input.project.content;
    let listed = |kind| {
        content
            .of_kind(kind)
            .filter(|e| input.pages.contains(&e.id))
    };
    let mut terms: Vec<LinkCtx> = listed(Kind::Term)
        .map(|e| link_to(input, e, None, true))
        .collect();
    terms.sort_by_key(|t| t.name.to_lowercase());
    let mut groups: Vec<LetterGroup> = Vec::new();
    for t in terms {
        let letter = t
            .name
            .chars()
            .next()
            .map(|c| c.to_uppercase().to_string())
            .unwrap_or_default();
        match groups.last_mut() {
            Some(g) if g.letter == letter => g.terms.push(t),
            _ => groups.push(LetterGroup {
                letter,
                terms: vec![t],
            }),
        }
    }
    let mut lessons: Vec<LinkCtx> = listed(Kind::Lesson)
        .map(|e| link_to(input, e, None, true))
        .collect();
    lessons.sort_by_key(|l| (l.day, l.name.clone()));
    let mut guides: Vec<LinkCtx> = listed(Kind::Guide)
        .map(|e| link_to(input, e, None, true))
        .collect();
    guides.sort_by_key(|g| g.name.to_lowercase());
    let mut ctx = Context::new();
    ctx.insert("site", site);
    ctx.insert("root", "");
    ctx.insert(
        "canonical",
        &format!("{}/", input.project.config.base_url.trim_end_matches('/')),
    );
    ctx.insert("letters", &groups);
    ctx.insert("lessons", &lessons);
    ctx.insert("guides", &guides);
    let html = render_template(
        input.tera,
        "index.html",
        &ctx,
        &input.project.layout.templates(),
    )?;
    Ok(OutputFile {
        path: PathBuf::from("index.html"),
        bytes: html.into_bytes(),
    })
}
