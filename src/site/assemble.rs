//! Assembling the site: every entry's page in two passes (outlines and link checks, then
//! Markdown and templates), figures and `static/` files, and the site-wide files made
//! alongside from the pages' data. One page's pieces come from `render`; what needs every
//! page (headings for link checks, the published list, the search words) is gathered here.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::content::{Entry, EntryId};
use crate::error::{Error, Result};
use crate::render::markdown::RenderedMarkdown;
use crate::render::pages::{page_outline, render_entry_page};
use crate::render::{Assessment, OutputFile, RenderInput};

use super::body_links::{check_inline_links, check_links, linked_entries};
use super::index_page::render_index;
use super::published::{published_page, PublishedPage};
use super::search::{Bodies, Stop};
use super::site_wide::{render_site_wide_into, render_site_wide_until};
use super::static_files::static_files;
use super::tokens::distinct_words;
use super::words::{CodedWords, Vocabulary};

/// Pages per rayon task in pass 2: about a millisecond of work, so the last task leaves
/// the other threads idle for no longer than that.
const PAGES_PER_TASK: usize = 16;

/// What a whole-site render learned, for incremental rebuilds (`pipeline::Session`).
#[derive(Default)]
pub struct SiteLinks {
    /// Entry -> its heading ids, for anchor checks.
    pub headings: HashMap<EntryId, Vec<String>>,
    /// Entry -> the entries its body links to.
    pub links_to: HashMap<EntryId, Vec<EntryId>>,
    /// Entry -> plain text of its body (the search index needs every published one).
    pub texts: HashMap<EntryId, String>,
    /// `static/` files left out by the gate (`static_files`), with its reasons: for the
    /// build's report.
    pub static_refused: Vec<(String, Vec<crate::review::Refusal>)>,
    /// Why each of those is not inert, by `static/<path>`.
    pub static_not_inert: std::collections::BTreeMap<String, String>,
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
/// given, is entry `i`'s (in `input.content.entries` order; see [`crate::render::pages::outline_of`]).
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
                outline.text = distinct_words(&outline.text);
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
    // The home page's own text (`content/index.md`): its errors with the pages', its
    // images copied with theirs.
    let mut home = super::home::home(input);
    if let Some(h) = &mut home {
        errors.append(&mut h.errors);
    }
    // Figures the pages show, each file once, and the project's static/ files.
    let mut copies: std::collections::BTreeMap<&str, &std::path::Path> = Default::default();
    for (source, site_path) in home.iter().flat_map(|h| &h.copies) {
        copies.insert(site_path, source);
    }
    for (e, r) in entries.iter().zip(&outlines) {
        if input.pages.contains(&e.id) {
            for (source, site_path) in &r.copies {
                copies.insert(site_path, source);
            }
        }
    }
    let statics = static_files(
        input.layout,
        input.people,
        &input.config.base_url,
        input.config.content.allow_remote_images,
    )
    .unwrap_or_else(|e| {
        errors.extend(e.flatten());
        Default::default()
    });
    errors.extend(super::redirects::check_against_static(
        &entries,
        &statics.files,
        &input.layout.static_files(),
    ));
    let static_refused = statics.refused;
    let static_not_inert = statics.not_inert;
    Error::collect(errors)?;
    drop(headings);
    for (site_path, source) in copies {
        let bytes = std::fs::read(source).map_err(|e| Error::io(source, e))?;
        sink(OutputFile {
            path: site_path.into(),
            bytes,
        })?;
    }
    statics.files.into_iter().try_for_each(sink)?;
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
            sink(render_index(input)?)?;
            Ok(kept)
        },
        || {
            entries
                .par_iter()
                // Small pieces, so no thread is left alone with a long run of pages at
                // the end (rayon's adaptive split left one idle for a twentieth of a build).
                .with_max_len(PAGES_PER_TASK)
                .filter(|e| input.pages.contains(&e.id))
                // The text for search came from pass 1.
                .try_for_each(|e| sink(render_entry_page(input, e, by_id[&e.id])?))
        },
    );
    let mut texts = site_wide?.map(Vec::into_iter);
    pages?;

    let mut links = SiteLinks {
        static_refused,
        static_not_inert,
        ..Default::default()
    };
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

/// The site-wide files for the published entries whose body text is in `texts`; None
/// when `stop` gave them up (see `search::Stop`).
pub fn render_site_wide_from(
    input: &RenderInput<'_>,
    texts: &HashMap<EntryId, String>,
    stop: Stop<'_>,
) -> Result<Option<Vec<OutputFile>>> {
    let (published, bodies): (Vec<PublishedPage<'_>>, Vec<&str>) = input
        .content
        .entries
        .iter()
        .filter(|e| input.searched(&e.id))
        .filter_map(|e| Some((published_page(input, e), texts.get(&e.id)?.as_str())))
        .unzip();
    render_site_wide_until(input, &published, Bodies::Lent(bodies), stop)
}
