//! One-line Markdown outside the body: summaries, credits, licences and the site footer.
//! They may hold links, code and emphasis, and are shown on pages at other depths than the
//! one they were written for (a term's summary appears on the index, in search results and
//! under related terms), so every internal link is rewritten to start from the showing
//! page's root and to end in `index.html` (the site also works opened from disk).
//!
//! Raw HTML is never emitted: it is shown as the text it is.

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::content::IdSet;

use super::escape::escape;
use super::links::{resolve_link, LinkTarget};

/// A rendered inline snippet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inline {
    /// HTML without a wrapping paragraph.
    pub html: String,
    /// The same text without markup: meta descriptions, feeds, search matching.
    pub text: String,
    /// Internal links, for checking (external links are not listed).
    pub links: Vec<LinkTarget>,
    /// Links refused by [`crate::link_scheme::check`] (a `javascript:` link, ...), each
    /// written as text: what the author must fix, as a whole message.
    pub refused: Vec<String>,
}

/// Where a snippet was written and where it is shown.
#[derive(Clone, Copy)]
pub struct InlineContext<'a> {
    /// The page the author wrote the links relative to (`terms/occupancy/`, or `` for the
    /// site root, as in glossary.toml's footer).
    pub written_at: &'a str,
    /// The prefix from the showing page to the site root (`../../`, ``).
    pub root: &'a str,
    /// Entries with a page in this build; a link to any other becomes plain text.
    pub linkable: &'a IdSet,
}

/// Characters that can start inline Markdown or need escaping. A snippet without any of
/// them (most summaries) is escaped and returned without parsing.
const MARKUP: &[char] = &['[', '`', '*', '_', '<', '>', '&', '\\', '!', '~', '"', '\''];

pub fn render_inline(markdown: &str, cx: &InlineContext<'_>) -> Inline {
    let markdown = markdown.trim();
    if !markdown.contains(MARKUP) {
        return Inline {
            html: markdown.to_string(),
            text: markdown.to_string(),
            links: Vec::new(),
            refused: Vec::new(),
        };
    }
    let mut out = Inline::default();
    // Links whose target has no page here: their tags are dropped, their text kept.
    let mut dropped = 0usize;
    let options = Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Text(t) => {
                out.html.push_str(&escape(&t));
                out.text.push_str(&t);
            }
            Event::Code(t) => {
                out.html.push_str(&super::code_span::code_span(&t));
                out.text.push_str(&t);
            }
            // Raw HTML is text here: never markup an author did not write as Markdown.
            Event::Html(t) | Event::InlineHtml(t) => {
                out.html.push_str(&escape(&t));
                out.text.push_str(&t);
            }
            Event::SoftBreak | Event::HardBreak => {
                out.html.push(' ');
                out.text.push(' ');
            }
            Event::Start(Tag::Emphasis) => out.html.push_str("<em>"),
            Event::End(TagEnd::Emphasis) => out.html.push_str("</em>"),
            Event::Start(Tag::Strong) => out.html.push_str("<strong>"),
            Event::End(TagEnd::Strong) => out.html.push_str("</strong>"),
            Event::Start(Tag::Strikethrough) => out.html.push_str("<del>"),
            Event::End(TagEnd::Strikethrough) => out.html.push_str("</del>"),
            Event::Start(Tag::Link {
                link_type: LinkType::Email,
                dest_url,
                ..
            }) => {
                // `<a@example.org>`: the address, which pulldown-cmark gives without its
                // `mailto:`.
                out.html.push_str("<a href=\"mailto:");
                out.html.push_str(&escape(&dest_url));
                out.html.push_str("\">");
            }
            Event::Start(Tag::Link { dest_url, .. }) if refused(&dest_url, &mut out) => {
                dropped += 1;
            }
            Event::Start(Tag::Link { dest_url, .. }) => match link_href(&dest_url, cx) {
                (target, Some(href)) => {
                    if let Some(t) = target {
                        out.links.push(t);
                    }
                    out.html.push_str("<a href=\"");
                    out.html.push_str(&escape(&href));
                    out.html.push_str("\">");
                }
                (target, None) => {
                    out.links.extend(target);
                    dropped += 1;
                }
            },
            Event::End(TagEnd::Link) => {
                if dropped > 0 {
                    dropped -= 1;
                } else {
                    out.html.push_str("</a>");
                }
            }
            // Block structure (a `#` or `-` at the start of a summary), images and the
            // like keep only their text.
            _ => {}
        }
    }
    out
}

/// Whether the link to `dest` may not be written ([`crate::link_scheme::check`]); if so,
/// why is noted in `out`.
fn refused(dest: &str, out: &mut Inline) -> bool {
    let Err(why) = crate::link_scheme::check(dest) else {
        return false;
    };
    out.refused
        .push(format!("link `{}` {why}", crate::link_scheme::shown(dest)));
    true
}

/// The text of an inline snippet without its markup (feeds, meta descriptions).
pub fn plain_text(markdown: &str) -> String {
    let none = IdSet::default();
    render_inline(
        markdown,
        &InlineContext {
            written_at: "",
            root: "",
            linkable: &none,
        },
    )
    .text
}

/// The href a link gets on the showing page, and the internal target to check. None for
/// the href when the link becomes plain text.
fn link_href(dest: &str, cx: &InlineContext<'_>) -> (Option<LinkTarget>, Option<String>) {
    let target = resolve_link(cx.written_at, dest);
    let anchor = |a: &Option<String>| a.as_ref().map(|a| format!("#{a}")).unwrap_or_default();
    let href = match &target {
        LinkTarget::External => return (None, Some(dest.to_string())),
        LinkTarget::Entry { id, anchor: a } => cx
            .linkable
            .contains(id)
            .then(|| id.page_url(cx.root) + &anchor(a)),
        LinkTarget::SamePage { anchor: a } => {
            Some(format!("{}{}index.html#{a}", cx.root, cx.written_at))
        }
        LinkTarget::Other {
            path, anchor: a, ..
        } => {
            let file = if path.is_empty() || path.ends_with('/') {
                format!("{path}index.html")
            } else {
                path.clone()
            };
            Some(format!("{}{file}{}", cx.root, anchor(a)))
        }
        LinkTarget::OutsideSite { .. } => None,
    };
    (Some(target), href)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{EntryId, Kind};

    fn render(md: &str, root: &str, linkable: &[&str]) -> Inline {
        let set: IdSet = linkable
            .iter()
            .map(|s| EntryId::new(Kind::Term, *s))
            .collect();
        render_inline(
            md,
            &InlineContext {
                written_at: "terms/occupancy/",
                root,
                linkable: &set,
            },
        )
    }

    #[test]
    fn plain_summary_is_left_as_is() {
        let r = render("The share of warp slots filled.", "", &[]);
        assert_eq!(r.html, "The share of warp slots filled.");
        assert_eq!(r.text, r.html);
    }

    #[test]
    fn links_are_rewritten_for_the_showing_page() {
        let md = "Set by the [register file](../register-file/#size) and `__launch_bounds__`.";
        let on_index = render(md, "", &["register-file"]);
        assert_eq!(
            on_index.html,
            "Set by the <a href=\"terms/register-file/index.html#size\">register file</a> and <code>__launch_bounds__</code>."
        );
        assert_eq!(
            on_index.text,
            "Set by the register file and __launch_bounds__."
        );
        let on_entry = render(md, "../../", &["register-file"]);
        assert!(on_entry
            .html
            .contains("href=\"../../terms/register-file/index.html#size\""));
        assert_eq!(on_entry.links.len(), 1);
    }

    #[test]
    fn link_to_an_entry_without_a_page_is_text() {
        let r = render("See [warps](../warp/).", "", &[]);
        assert_eq!(r.html, "See warps.");
        assert!(matches!(r.links[0], LinkTarget::Entry { .. }));
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let r = render("A <script>alert(1)</script> & <b>bold</b>", "", &[]);
        assert!(!r.html.contains("<script"), "{}", r.html);
        assert!(r.html.contains("&lt;script&gt;"), "{}", r.html);
        assert!(r.html.contains("&amp;"), "{}", r.html);
    }

    #[test]
    fn external_links_stay_and_are_not_checked() {
        let r = render(
            "From [the guide](https://docs.nvidia.com/x?a=1&b=2).",
            "",
            &[],
        );
        assert!(
            r.html
                .contains("<a href=\"https://docs.nvidia.com/x?a=1&amp;b=2\">"),
            "{}",
            r.html
        );
        assert!(r.links.is_empty());
    }
}
