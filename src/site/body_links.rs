//! Links in entries' bodies and one-line fields, checked against every page of the build:
//! a link to a missing page or heading is an error at its file:line. The links templates
//! make are checked in the generated pages (`site_links`).

use crate::content::{Entry, EntryId, IdSet};
use crate::error::{Error, Location};
use crate::render::inline::{render_inline, InlineContext};
use crate::render::links::LinkTarget;
use crate::render::markdown::RenderedMarkdown;
use crate::render::RenderInput;

use super::site_wide::SITE_WIDE_FILES;

/// Body link errors on one page; `headings` gives the heading ids of any entry.
pub fn check_links<'h>(
    input: &RenderInput<'_>,
    entry: &Entry,
    r: &RenderedMarkdown,
    pages: &IdSet,
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
            LinkTarget::Other { path, shown, .. } => {
                let known = path.is_empty()
                    || SITE_WIDE_FILES.contains(&path.as_str())
                    || path
                        .strip_prefix("static/")
                        .is_some_and(|f| input.layout.templates().join("static").join(f).is_file());
                if !known {
                    let message = match moved_to(&input.content.entries, path) {
                        Some(now) => format!(
                            "link to `{shown}`, an old path of `{}` (its `redirect_from`): link \
                             to the entry itself, `/{}`",
                            now.id,
                            now.id.url_path()
                        ),
                        None => format!("link to missing page `{shown}`"),
                    };
                    errors.push(Error::content(&entry.path, at(*line), message));
                }
            }
            LinkTarget::External => {}
        }
    }
    errors
}

/// The entry that names site path `path` (as [`LinkTarget::Other`] holds it) in its
/// `redirect_from`: a link written to a page's old address. Asked only for a link that
/// reaches no page, so a scan of the entries costs nothing on a good build.
fn moved_to<'e>(entries: &'e [Entry], path: &str) -> Option<&'e Entry> {
    let file = if path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_string()
    };
    entries.iter().find(|e| {
        e.meta
            .redirect_from
            .iter()
            .any(|raw| crate::content::redirect_file(raw).is_ok_and(|f| f == file))
    })
}

/// Link errors in an entry's one-line Markdown fields (summary, credit, licence), at the
/// field's line.
pub fn check_inline_links<'h>(
    input: &RenderInput<'_>,
    entry: &Entry,
    pages: &IdSet,
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
        // A link needs `[` (or `<` for an autolink).
        let Some(text) = text.filter(|t| t.contains(['[', '<'])) else {
            continue;
        };
        let inline = render_inline(text, &cx);
        if inline.links.is_empty() && inline.refused.is_empty() {
            continue;
        }
        let line = crate::content::split_front_matter(&entry.path, &entry.raw)
            .ok()
            .and_then(|s| crate::content::line_of_reference(&s, key, key))
            .unwrap_or(1);
        let r = RenderedMarkdown {
            problems: inline
                .refused
                .into_iter()
                .map(|why| (line, format!("`{key}`: {why}")))
                .collect(),
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
