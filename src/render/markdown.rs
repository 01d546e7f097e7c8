//! Markdown to HTML: pulldown-cmark with tables, footnotes and heading ids, plus the two
//! things a glossary needs from its renderer: internal links resolved against the set of
//! published pages, and code blocks handed to the highlighter.

use std::collections::{HashMap, HashSet};

use pulldown_cmark::{
    html, CodeBlockKind, CowStr, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd,
};

use crate::content::IdSet;

use super::captions;
use super::figures::Figures;
use super::highlight;
use super::links::{resolve_link, written_href, LinkTarget};

/// What a page's Markdown turned into.
#[derive(Debug, Default)]
pub struct RenderedMarkdown {
    pub html: String,
    /// Ids of the headings and footnotes, in order, for anchor checks.
    pub heading_ids: Vec<String>,
    /// The level 2 and 3 headings, for a page's "On this page" list (empty in an
    /// [`outline`]).
    pub toc: Vec<TocItem>,
    /// Internal links, with the 1-based body line they were written on.
    pub links: Vec<(LinkTarget, usize)>,
    /// The body's text for the search index: headings, prose and code, each piece
    /// followed by white space, so no word runs into the next (`search::words` cuts it).
    /// Made here, in the parallel per-page pass; what keeps it keeps only its distinct
    /// words (`search::distinct_words`, or a build's `words::Vocabulary::code`).
    pub text: String,
    /// What the author must fix (bad images, raw HTML), with the 1-based file line.
    pub problems: Vec<(usize, String)>,
    /// Image files the page shows: (source file, site path), to copy into the site.
    pub copies: Vec<(std::path::PathBuf, String)>,
}

/// One heading in a page's contents list.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TocItem {
    pub level: u8,
    pub id: String,
    pub text: String,
}

/// How the renderer treats internal links.
pub struct LinkPolicy<'a> {
    /// The page's own URL path, e.g. `terms/occupancy/`.
    pub page_path: &'a str,
    /// Entries that will have a page in this build. A link to any other entry becomes
    /// plain text, so a refused entry never leaves a dead link behind.
    pub linkable: &'a IdSet,
    /// The entry's file and how its images are checked; None leaves images unchecked
    /// (Markdown rendered outside a build: unit tests, benchmarks).
    pub figures: Option<(&'a std::path::Path, Figures<'a>)>,
    /// Ids the page's template gives its own elements (`render::template_ids`): the
    /// body's ids keep off them.
    pub reserved_ids: &'a HashSet<String>,
}

/// The ids a page's body has given so far, kept off the template's: one id may name one
/// element of a page, or the skip link, "On this page" and `aria-labelledby` land on the
/// wrong one.
struct PageIds<'a> {
    reserved: &'a HashSet<String>,
    /// Id -> the body line of the element that has it.
    used: HashMap<String, usize>,
    /// Footnote label -> the id its definition gets: a label is any text (`[^a b]`,
    /// `[^sources]`), an id holds no space and repeats no other id.
    footnotes: HashMap<String, String>,
}

impl PageIds<'_> {
    /// Why `id` cannot be given again, if it cannot.
    fn taken(&self, id: &str) -> Option<String> {
        if self.reserved.contains(id) {
            return Some(format!(
                "is already used by the page template (`id=\"{id}\"`)"
            ));
        }
        let line = self.used.get(id)?;
        Some(format!("is already used on this page (line {line})"))
    }

    /// `base`, or the first of `base-1`, `base-2`, ... that is free: automatic ids never
    /// repeat one.
    fn unique(&self, base: &str) -> String {
        let free = |id: &str| self.taken(id).is_none();
        if free(base) {
            return base.to_string();
        }
        (1..)
            .map(|n| format!("{base}-{n}"))
            .find(|c| free(c))
            .unwrap_or_default()
    }

    fn claim(&mut self, id: &str, line: usize) {
        self.used.entry(id.to_string()).or_insert(line);
    }

    /// The id of footnote `label`, seen at `line`; true when first seen (a new id).
    /// A label that is already a free id keeps it, as pulldown-cmark would write it.
    fn footnote(&mut self, label: &str, line: usize) -> (String, bool) {
        if let Some(id) = self.footnotes.get(label) {
            return (id.clone(), false);
        }
        let base = label.split_whitespace().collect::<Vec<_>>().join("-");
        let id = self.unique(if base.is_empty() { "note" } else { &base });
        self.claim(&id, line);
        self.footnotes.insert(label.to_string(), id.clone());
        (id, true)
    }
}

/// Raw HTML is refused unless glossary.toml allows it, and then sanitized.
fn html_allowed(policy: &LinkPolicy<'_>) -> bool {
    policy
        .figures
        .as_ref()
        .is_some_and(|(_, f)| f.allow.allow_html)
}

pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_STRIKETHROUGH
}

/// Render `markdown`. `first_line` is the file line the body starts on.
pub fn render(markdown: &str, first_line: usize, policy: &LinkPolicy<'_>) -> RenderedMarkdown {
    render_as(markdown, first_line, policy, true, true)
}

/// Heading ids, links and text as [`render`] finds them, without the HTML: no code is
/// highlighted. A build checks every page's links this way before rendering any page, so
/// it never holds every page's HTML at once.
pub fn outline(markdown: &str, first_line: usize, policy: &LinkPolicy<'_>) -> RenderedMarkdown {
    render_as(markdown, first_line, policy, false, true)
}

/// [`render`] without the search text (left empty): a build already has it from
/// [`outline`], and gathering a page's distinct words again was a tenth of the build.
pub fn render_html(markdown: &str, first_line: usize, policy: &LinkPolicy<'_>) -> RenderedMarkdown {
    render_as(markdown, first_line, policy, true, false)
}

fn render_as(
    markdown: &str,
    first_line: usize,
    policy: &LinkPolicy<'_>,
    with_html: bool,
    with_text: bool,
) -> RenderedMarkdown {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(markdown.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| first_line + line_starts.partition_point(|&s| s <= offset) - 1;

    let mut out = RenderedMarkdown::default();
    let mut events: Vec<Event<'_>> = Vec::new();
    // Heading text is collected to make its id; code text to highlight it in one piece.
    let mut heading: Option<(usize, HeadingLevel, Vec<Event<'_>>)> = None;
    let mut code: Option<(String, String)> = None;
    // Links to entries that will not be published: drop the tags, keep the text.
    let mut unlinked_depth = 0usize;
    let mut ids = PageIds {
        reserved: policy.reserved_ids,
        used: HashMap::new(),
        footnotes: HashMap::new(),
    };
    let mut heading_line = 0;
    // An image's (dest, title, line) while its alt text is collected.
    let mut image: Option<(CowStr<'_>, CowStr<'_>, usize, String)> = None;
    let allow_html = html_allowed(policy);
    let mut had_html = false;
    // The line of the body's first raw HTML, where an error about all of it points.
    let mut first_html: Option<usize> = None;
    // Titled images, placed once their paragraph is known (`captions::place`).
    let mut figures: Vec<captions::PendingFigure> = Vec::new();
    // An HTML block's first line and text, while it is collected (without `allow_html`).
    let mut html_block: Option<(usize, String)> = None;

    for (event, range) in Parser::new_ext(markdown, options()).into_offset_iter() {
        if let Some((lang, buf)) = &mut code {
            match event {
                Event::Text(t) => buf.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    if with_html {
                        let html = highlight::code_block(lang, buf);
                        events.push(Event::Html(CowStr::from(html)));
                    }
                    if with_text {
                        out.text.push_str(buf);
                        out.text.push('\n');
                    }
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        if let Some((_, _, _, alt)) = &mut image {
            match event {
                Event::Text(t) | Event::Code(t) => alt.push_str(&t),
                Event::End(TagEnd::Image) => {
                    if let Some((dest, title, line, alt)) = image.take() {
                        if let Some(html) = image_html(policy, &mut out, &dest, &title, &alt, line)
                        {
                            if !title.trim().is_empty() && heading.is_none() {
                                let caption =
                                    caption(&title, line, policy, &mut out, with_html, with_text);
                                figures.push(captions::PendingFigure {
                                    at: events.len(),
                                    in_figure: captions::without_title(&html, &title),
                                    inline: html,
                                    caption,
                                });
                                events.push(Event::Html(CowStr::from("")));
                            } else {
                                push(&mut heading, &mut events, Event::Html(CowStr::from(html)));
                            }
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        if let Some((line, block)) = &mut html_block {
            match event {
                Event::Html(t) => block.push_str(&t),
                Event::End(TagEnd::HtmlBlock) => {
                    let (line, block) = (*line, std::mem::take(block));
                    html_block = None;
                    first_html.get_or_insert(line);
                    if allow_html {
                        refuse_remote(&block, line, policy, &mut out);
                        had_html = true;
                        push(&mut heading, &mut events, Event::Html(CowStr::from(block)));
                    } else {
                        had_html |= keep_subset(&block, line, &mut out, &mut heading, &mut events);
                    }
                }
                _ => {}
            }
            continue;
        }
        match event {
            // Without `allow_html`, an HTML block is judged whole: one error at its first
            // line, not one per line.
            // With it, a block is still read whole, so a tag split over lines is seen
            // whole by the remote-resource check.
            Event::Start(Tag::HtmlBlock) => {
                html_block = Some((line_of(range.start), String::new()));
            }
            Event::Html(html) | Event::InlineHtml(html) if !allow_html => {
                first_html.get_or_insert(line_of(range.start));
                had_html |= keep_subset(
                    &html,
                    line_of(range.start),
                    &mut out,
                    &mut heading,
                    &mut events,
                );
            }
            Event::Start(Tag::Image {
                dest_url, title, ..
            }) => {
                image = Some((dest_url, title, line_of(range.start), String::new()));
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                refuse_remote(&html, line_of(range.start), policy, &mut out);
                first_html.get_or_insert(line_of(range.start));
                had_html = true;
                push(&mut heading, &mut events, Event::Html(html));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
            }
            Event::Start(Tag::Heading { level, id, .. }) => {
                let explicit = id.map(|s| s.to_string());
                heading = Some((events.len(), level, Vec::new()));
                heading_line = line_of(range.start);
                events.push(Event::Start(Tag::Heading {
                    level,
                    id: explicit.map(CowStr::from),
                    classes: vec![],
                    attrs: vec![],
                }));
            }
            Event::End(TagEnd::Heading(level)) => {
                if let Some((start, _, text_events)) = heading.take() {
                    let text: String = text_events
                        .iter()
                        .filter_map(|e| match e {
                            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                            _ => None,
                        })
                        .collect();
                    let id = match &events[start] {
                        Event::Start(Tag::Heading { id: Some(id), .. }) => {
                            if let Some(why) = ids.taken(id) {
                                out.problems.push((
                                    heading_line,
                                    format!("heading id `{{#{id}}}` {why}; choose another"),
                                ));
                            }
                            id.to_string()
                        }
                        _ => ids.unique(&heading_id(&text)),
                    };
                    ids.claim(&id, heading_line);
                    events[start] = Event::Start(Tag::Heading {
                        level,
                        id: Some(CowStr::from(id.clone())),
                        classes: vec![],
                        attrs: vec![],
                    });
                    // Only a page shows its contents list; an outline (pass 1) is kept for
                    // every entry until the links are checked, and its list went unread
                    // (about 30 MB at 100,000 entries).
                    if with_html && matches!(level, HeadingLevel::H2 | HeadingLevel::H3) {
                        out.toc.push(TocItem {
                            level: level as u8,
                            id: id.clone(),
                            text: text.trim().to_string(),
                        });
                    }
                    out.heading_ids.push(id);
                    if with_text {
                        out.text.push_str(&text);
                        out.text.push('\n');
                    }
                    events.extend(text_events);
                }
                events.push(Event::End(TagEnd::Heading(level)));
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) if !matches!(link_type, LinkType::Email) => {
                if let Err(why) = crate::link_scheme::check(&dest_url) {
                    out.problems.push((
                        line_of(range.start),
                        format!("link `{}` {why}", crate::link_scheme::shown(&dest_url)),
                    ));
                    unlinked_depth += 1;
                    continue;
                }
                // `[text]()`: a placeholder left in, which a browser would read as a link
                // to the page itself.
                if dest_url.trim().is_empty() {
                    out.problems.push((
                        line_of(range.start),
                        "link with no destination: write where it goes between the \
                         parentheses, e.g. [occupancy](../occupancy/)"
                            .to_string(),
                    ));
                }
                let target = resolve_link(policy.page_path, &dest_url);
                let keep = match &target {
                    LinkTarget::Entry { id, .. } => policy.linkable.contains(id),
                    _ => true,
                };
                let dest_url = match target {
                    LinkTarget::Entry { .. } | LinkTarget::Other { .. } => {
                        CowStr::from(written_href(policy.page_path, &dest_url))
                    }
                    _ => dest_url,
                };
                if !matches!(target, LinkTarget::External) {
                    out.links.push((target, line_of(range.start)));
                }
                if keep {
                    push(
                        &mut heading,
                        &mut events,
                        Event::Start(Tag::Link {
                            link_type,
                            dest_url,
                            title,
                            id,
                        }),
                    );
                } else {
                    unlinked_depth += 1;
                }
            }
            Event::End(TagEnd::Link) if unlinked_depth > 0 => unlinked_depth -= 1,
            Event::FootnoteReference(label) => {
                let (id, new) = ids.footnote(&label, line_of(range.start));
                if new {
                    out.heading_ids.push(id.clone());
                }
                push(
                    &mut heading,
                    &mut events,
                    Event::FootnoteReference(id.into()),
                );
            }
            Event::Start(Tag::FootnoteDefinition(label)) => {
                let (id, new) = ids.footnote(&label, line_of(range.start));
                if new {
                    out.heading_ids.push(id.clone());
                }
                events.push(Event::Start(Tag::FootnoteDefinition(id.into())));
            }
            // A wide table scrolls inside its own box instead of widening the page; the box
            // takes focus so keyboard users can scroll it too.
            Event::Start(Tag::Table(align)) => {
                events.push(Event::Html(CowStr::from(
                    "<div class=\"table-scroll\" tabindex=\"0\">",
                )));
                events.push(Event::Start(Tag::Table(align)));
            }
            Event::End(TagEnd::Table) => {
                events.push(Event::End(TagEnd::Table));
                events.push(Event::Html(CowStr::from("</div>")));
            }
            // A heading keeps its code events: its id and contents entry read their text.
            Event::Code(t) if heading.is_none() => {
                events.push(Event::Html(CowStr::from(super::code_span::code_span(&t))));
            }
            Event::Text(t) => {
                if heading.is_none() && with_text {
                    out.text.push_str(&t);
                    out.text.push(' ');
                }
                push(&mut heading, &mut events, Event::Text(t));
            }
            other => push(&mut heading, &mut events, other),
        }
    }
    captions::place(&mut events, figures);
    if had_html {
        // A page with raw HTML is measured before the sanitizer's parser sees it (slow on
        // deep nesting, see `html_depth`), in the outline pass too, which reports the
        // problems a build checks: there its HTML is made for the measure alone (pages
        // with raw HTML are few).
        let mut html = String::new();
        let made = if with_html { &mut out.html } else { &mut html };
        html::push_html(made, events.iter().cloned());
        if super::html_depth::too_deep(made) {
            out.problems.push((
                first_html.unwrap_or(first_line),
                format!(
                    "the HTML nests deeper than {} elements; no page needs that many",
                    super::html_depth::MAX_DEPTH
                ),
            ));
            out.html.clear();
        } else if with_html {
            out.html = sanitize(&out.html);
        }
    } else if with_html {
        html::push_html(&mut out.html, events.into_iter());
    }
    out
}

/// Under `allow_html`, a problem at `line` for each remote resource `html` would load,
/// unless glossary.toml allows remote images: the rule Markdown images follow
/// (`figures::Figures::resolve`), so raw HTML is no way around it.
fn refuse_remote(html: &str, line: usize, policy: &LinkPolicy<'_>, out: &mut RenderedMarkdown) {
    let allowed = policy
        .figures
        .as_ref()
        .is_some_and(|(_, f)| f.allow.allow_remote_images);
    // HTML nested too deep is refused whole at the end of the body (`html_depth`) and
    // never parsed: html5ever takes minutes on a megabyte of it.
    if allowed
        || !html.contains('<')
        || !super::raw_html::may_load(html)
        || super::html_depth::too_deep(html)
    {
        return;
    }
    for url in super::raw_html::remote_resources(html) {
        out.problems.push((
            line,
            format!(
                "raw HTML loads `{}` from outside the site (remote images need \
                 `allow_remote_images = true` under [content] in glossary.toml)",
                crate::link_scheme::shown(&url)
            ),
        ));
    }
}

/// Raw HTML without `allow_html`: what `raw_html::allowed_subset` keeps goes on the page
/// (true: the page then needs sanitizing), or one problem at `line`.
fn keep_subset<'a>(
    html: &str,
    line: usize,
    out: &mut RenderedMarkdown,
    heading: &mut Option<(usize, HeadingLevel, Vec<Event<'a>>)>,
    events: &mut Vec<Event<'a>>,
) -> bool {
    match super::raw_html::allowed_subset(html) {
        Ok(kept) if kept.trim().is_empty() => false,
        Ok(kept) => {
            push(heading, events, Event::Html(CowStr::from(kept)));
            true
        }
        Err(why) => {
            out.problems.push((line, why));
            false
        }
    }
}

/// An image title's Markdown as a caption: rendered as the body is (same link rule, its
/// links checked and its text searched with the page's), inline only.
fn caption(
    title: &str,
    line: usize,
    policy: &LinkPolicy<'_>,
    out: &mut RenderedMarkdown,
    with_html: bool,
    with_text: bool,
) -> String {
    let r = render_as(title, line, policy, with_html, with_text);
    out.links.extend(r.links);
    out.problems.extend(r.problems);
    out.copies.extend(r.copies);
    out.text.push_str(&r.text);
    if !with_html {
        return String::new();
    }
    match captions::caption_inline(&r.html) {
        Ok(inner) => inner.to_string(),
        Err(why) => {
            out.problems.push((line, why));
            String::new()
        }
    }
}

/// An image as HTML, after checking it; None (and a problem) if it fails a check.
fn image_html(
    policy: &LinkPolicy<'_>,
    out: &mut RenderedMarkdown,
    dest: &str,
    title: &str,
    alt: &str,
    line: usize,
) -> Option<String> {
    if let Err(why) = crate::link_scheme::check(dest) {
        let shown = crate::link_scheme::shown(dest);
        // A scheme no link may have (`themed-image://`, `javascript:`): say what an image
        // may be, not what a link may be.
        let message = match crate::link_scheme::refused_scheme(dest) {
            Some(scheme) => format!(
                "image `{shown}` has the scheme `{}:`; images must be local files of this \
                 project (beside the entry or in content/figures/), or http: or https: URLs \
                 with `allow_remote_images = true` under [content] in glossary.toml",
                scheme.escape_debug()
            ),
            None => format!("image `{shown}` {why}"),
        };
        out.problems.push((line, message));
        return None;
    }
    let Some((entry_path, figures)) = &policy.figures else {
        let img = super::figures::Image::Unchecked(dest.to_string());
        return Some(img.html(policy.page_path, alt, title));
    };
    if alt.trim().is_empty() {
        out.problems.push((
            line,
            format!(
                "image `{dest}` has no alt text (write what it shows: ![what it shows]({dest}))"
            ),
        ));
    }
    match figures.resolve(entry_path, dest) {
        Ok(img) => {
            out.copies.extend(img.copies());
            Some(img.html(policy.page_path, alt, title))
        }
        Err(why) => {
            out.problems.push((line, why));
            None
        }
    }
}

/// A page body with author HTML in it, through ammonia: scripts, event handlers, styles and
/// unknown tags go; what Markdown and the highlighter make (ids, classes, pictures) stays.
fn sanitize(html: &str) -> String {
    ammonia::Builder::default()
        .url_schemes(crate::link_scheme::ALLOWED.iter().copied().collect())
        .add_generic_attributes(["id", "class", "title"])
        .add_tags(["picture", "source", "figure", "figcaption"])
        .add_tag_attributes("source", ["srcset", "media", "type"])
        .add_tag_attributes("img", ["loading", "width", "height"])
        .add_tag_attributes("ol", ["start"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tags(["input"])
        .clean(html)
        .to_string()
}

fn push<'a>(
    heading: &mut Option<(usize, HeadingLevel, Vec<Event<'a>>)>,
    events: &mut Vec<Event<'a>>,
    e: Event<'a>,
) {
    match heading {
        Some((_, _, buf)) => buf.push(e),
        None => events.push(e),
    }
}

/// GitHub-style heading id: lowercase, alphanumerics kept, spaces to hyphens.
pub fn heading_id(text: &str) -> String {
    let mut id = String::new();
    for c in text.trim().chars() {
        if c.is_alphanumeric() {
            id.extend(c.to_lowercase());
        } else if (c == ' ' || c == '-' || c == '_') && !id.ends_with('-') {
            id.push('-');
        }
    }
    let id = id.trim_matches('-').to_string();
    if id.is_empty() {
        "section".into()
    } else {
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::EntryId;

    fn render_with(md: &str, linkable: &[EntryId]) -> RenderedMarkdown {
        let set: IdSet = linkable.iter().cloned().collect();
        render(
            md,
            1,
            &LinkPolicy {
                page_path: "terms/occupancy/",
                linkable: &set,
                figures: None,
                reserved_ids: &HashSet::new(),
            },
        )
    }

    #[test]
    fn headings_get_ids() {
        let r = render_with("## Why it matters\n\n## Why it matters\n", &[]);
        assert_eq!(r.heading_ids, vec!["why-it-matters", "why-it-matters-1"]);
        assert!(
            r.html
                .contains(r#"<h2 id="why-it-matters">Why it matters</h2>"#),
            "{}",
            r.html
        );
    }

    #[test]
    fn a_link_with_no_destination_is_a_problem_at_its_line() {
        let r = render_with("text\n\nsee [this]() and [top](#)\n", &[]);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert_eq!(r.problems[0].0, 3);
        assert!(
            r.problems[0].1.contains("no destination"),
            "{:?}",
            r.problems
        );
    }

    #[test]
    fn link_to_unpublished_entry_becomes_text() {
        let r = render_with("see [latency hiding](../latency-hiding/) now", &[]);
        assert!(!r.html.contains("<a"), "{}", r.html);
        assert!(r.html.contains("see latency hiding now"), "{}", r.html);
    }

    #[test]
    fn folder_links_name_the_file() {
        use crate::render::links::file_url;
        assert_eq!(file_url("../x/"), "../x/index.html");
        assert_eq!(file_url("../x/#a"), "../x/index.html#a");
        assert_eq!(file_url("../x"), "../x/index.html");
        assert_eq!(file_url("../../"), "../../index.html");
        assert_eq!(file_url("../../feed.xml"), "../../feed.xml");
        assert_eq!(file_url("../x/index.html#a"), "../x/index.html#a");
    }

    #[test]
    fn toc_lists_level_two_and_three_headings() {
        let r = render_with(
            "# Top\n\n## Why `it` matters\n\n### Detail\n\n#### Deep\n",
            &[],
        );
        let toc: Vec<(u8, &str)> = r.toc.iter().map(|t| (t.level, t.id.as_str())).collect();
        assert_eq!(toc, vec![(2, "why-it-matters"), (3, "detail")]);
        assert_eq!(r.toc[0].text, "Why it matters");
    }

    #[test]
    fn link_to_published_entry_stays() {
        let id = EntryId::new(crate::content::Kind::Term, "latency-hiding");
        let r = render_with("see [latency hiding](../latency-hiding/)", &[id]);
        assert!(
            r.html
                .contains(r#"<a href="../latency-hiding/index.html">latency hiding</a>"#),
            "{}",
            r.html
        );
    }

    #[test]
    fn tables_and_footnotes_render() {
        let r = render_with(
            "| a | b |\n|---|---|\n| 1 | 2 |\n\nText[^1].\n\n[^1]: Note.\n",
            &[],
        );
        assert!(r.html.contains("<table>"));
        assert!(r.html.contains("footnote"));
    }

    #[test]
    fn outline_finds_what_render_finds() {
        let md = "## A\n\nsee [x](../x/#y) and [z](#a)\n\n```cuda\nint a;\n```\n\n## A\n";
        let set = crate::content::IdSet::default();
        let reserved = HashSet::new();
        let policy = LinkPolicy {
            page_path: "terms/occupancy/",
            linkable: &set,
            figures: None,
            reserved_ids: &reserved,
        };
        let (full, outline) = (render(md, 1, &policy), outline(md, 1, &policy));
        assert_eq!(full.heading_ids, outline.heading_ids);
        assert_eq!(full.links, outline.links);
        assert_eq!(full.text, outline.text);
        assert!(outline.html.is_empty());
        let html = render_html(md, 1, &policy);
        assert_eq!(html.html, full.html);
        assert_eq!(html.heading_ids, full.heading_ids);
        assert!(html.text.is_empty());
    }

    #[test]
    fn sanitized_html_keeps_only_the_schemes_markdown_links_may_have() {
        let html = sanitize(
            "<a href=\"tel:+1555\">t</a><a href=\"java&#x09;script:x\">j</a>\
             <img src=\"data:image/png;base64,AA\" alt=\"d\"><a href=\"https://a.org/\">h</a>",
        );
        assert!(
            !html.contains("tel:") && !html.contains("script:"),
            "{html}"
        );
        assert!(!html.contains("data:"), "{html}");
        assert!(html.contains("href=\"https://a.org/\""), "{html}");
    }

    #[test]
    fn a_refused_link_is_a_problem_and_its_text_stays() {
        let r = render_with(
            "one\n\nsee [x](JaVaScRiPt:alert(1)) and <vbscript:y>\n",
            &[],
        );
        assert!(!r.html.contains("<a"), "{}", r.html);
        assert!(r.html.contains("see x and"), "{}", r.html);
        let lines: Vec<usize> = r.problems.iter().map(|p| p.0).collect();
        assert_eq!(lines, [3, 3], "{:?}", r.problems);
    }

    #[test]
    fn links_remember_their_line() {
        let r = render_with("one\n\ntwo [x](../nope/)\n", &[]);
        assert_eq!(r.links.len(), 1);
        assert_eq!(r.links[0].1, 3);
    }
}
