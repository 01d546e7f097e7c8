//! Figure captions: an image whose Markdown title is set (`![alt](fig.svg "Caption")`) and
//! that stands alone in its paragraph becomes a `<figure>` with the title, as inline
//! Markdown, in its `<figcaption>` (Pandoc's `implicit_figures`, with the title rather than
//! the alt text as the caption: the alt text says what the image shows, for those who cannot
//! see it; the caption says what to read in it, for everyone). An image without a title, or
//! one inside running text, stays as it was: a `<figure>` cannot sit inside a paragraph.
//!
//! The caption's Markdown is rendered by the body's own renderer (`markdown::render_as`), so
//! its links go through the same rule as the body's: resolved against the published
//! pages, checked, and dropped to text when they point at an entry without a page.

/// An image waiting to learn whether it stands alone in its paragraph: where its HTML sits
/// among the page's events and the two ways it can be written.
#[derive(Debug)]
pub struct PendingFigure {
    /// Index of the image's event in the page's event list.
    pub at: usize,
    /// The image (or `<picture>`) on its own, as written inside text.
    pub inline: String,
    /// The same in a figure (see [`without_title`]).
    pub in_figure: String,
    /// The rendered caption (inline HTML, no wrapping paragraph).
    pub caption: String,
}

/// The image's HTML without its `title` attribute: in a figure the caption shows the title
/// (rendered), and a tooltip of its Markdown source would only repeat it, links unrendered.
pub fn without_title(image: &str, title: &str) -> String {
    let attribute = format!(" title=\"{}\"", super::escape::escape(title));
    image.replacen(&attribute, "", 1)
}

/// The `<figure>` for an image and its rendered caption.
pub fn figure_html(image: &str, caption: &str) -> String {
    let mut html = String::with_capacity(image.len() + caption.len() + 48);
    html.push_str("<figure>");
    html.push_str(image);
    html.push_str("<figcaption>");
    html.push_str(caption);
    html.push_str("</figcaption></figure>\n");
    html
}

/// A caption's rendered Markdown without its paragraph; Err when the title held block
/// Markdown (a heading, a list), which a caption cannot show.
pub fn caption_inline(rendered: &str) -> Result<&str, String> {
    let inner = rendered
        .trim_end()
        .strip_prefix("<p>")
        .and_then(|s| s.strip_suffix("</p>"));
    match inner {
        Some(inner) if !inner.contains("<p>") => Ok(inner),
        _ => Err(
            "an image's title is its caption and may hold inline Markdown only (links, code, \
             emphasis), not headings, lists or paragraphs"
                .to_string(),
        ),
    }
}

/// Whether the event before and after `at` are the start and end of a paragraph: the
/// image stands alone in it.
pub fn alone_in_paragraph(events: &[pulldown_cmark::Event<'_>], at: usize) -> bool {
    use pulldown_cmark::{Event, Tag, TagEnd};
    at > 0
        && matches!(events.get(at - 1), Some(Event::Start(Tag::Paragraph)))
        && matches!(events.get(at + 1), Some(Event::End(TagEnd::Paragraph)))
}

/// Put each pending figure in place: a `<figure>` instead of its paragraph when the image
/// stands alone in it, else the image as written inline.
pub fn place(events: &mut [pulldown_cmark::Event<'_>], pending: Vec<PendingFigure>) {
    use pulldown_cmark::{CowStr, Event};
    for f in pending {
        if alone_in_paragraph(events, f.at) {
            events[f.at - 1] = Event::Html(CowStr::from(""));
            events[f.at + 1] = Event::Html(CowStr::from(""));
            events[f.at] = Event::Html(CowStr::from(figure_html(&f.in_figure, &f.caption)));
        } else {
            events[f.at] = Event::Html(CowStr::from(f.inline));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caption_is_its_paragraph_s_inside() {
        assert_eq!(
            caption_inline("<p>a <a href=\"x\">b</a></p>\n"),
            Ok("a <a href=\"x\">b</a>")
        );
        assert!(caption_inline("<h1>big</h1>\n").is_err());
        assert!(caption_inline("<p>a</p>\n<p>b</p>\n").is_err());
    }

    #[test]
    fn a_figure_holds_the_image_then_its_caption() {
        assert_eq!(
            figure_html("<img src=\"a.svg\" alt=\"A\">", "the <em>caption</em>"),
            "<figure><img src=\"a.svg\" alt=\"A\"><figcaption>the <em>caption</em></figcaption></figure>\n"
        );
    }

    use crate::config::{ContentConfig, Layout};
    use crate::content::{EntryId, Kind};
    use crate::render::figures::Figures;
    use crate::render::links::LinkTarget;
    use crate::render::markdown::{render, LinkPolicy, RenderedMarkdown};
    use std::collections::HashSet;

    fn body(md: &str, linkable: &[EntryId]) -> RenderedMarkdown {
        let set: HashSet<EntryId> = linkable.iter().cloned().collect();
        let policy = LinkPolicy {
            page_path: "terms/occupancy/",
            linkable: &set,
            figures: None,
            reserved_ids: &HashSet::new(),
        };
        render(md, 10, &policy)
    }

    #[test]
    fn a_titled_image_alone_is_a_figure_with_its_links_rendered() {
        let warp = EntryId::new(Kind::Term, "warp");
        let r = body(
            "Text.\n\n![A warp](w.svg \"One [warp](../warp/) of *32* threads\")\n",
            std::slice::from_ref(&warp),
        );
        assert!(
            r.html.contains(
                "<figure><img src=\"w.svg\" alt=\"A warp\" loading=\"lazy\"><figcaption>One <a href=\"../warp/index.html\">warp</a> of <em>32</em> threads</figcaption></figure>"
            ),
            "{}",
            r.html
        );
        assert!(!r.html.contains("<p><figure>"), "{}", r.html);
        // The caption's link is checked with the body's, at the image's line.
        assert!(
            r.links.iter().any(
                |(t, line)| matches!(t, LinkTarget::Entry { id, .. } if *id == warp) && *line == 12
            ),
            "{:?}",
            r.links
        );
        assert!(r.text.contains("threads"), "{}", r.text);
    }

    #[test]
    fn a_caption_link_to_an_entry_without_a_page_is_text() {
        let r = body("![A warp](w.svg \"see [warp](../warp/)\")\n", &[]);
        assert!(
            r.html.contains("<figcaption>see warp</figcaption>"),
            "{}",
            r.html
        );
    }

    #[test]
    fn untitled_and_inline_images_stay_as_they_are() {
        let r = body("![A warp](w.svg)\n", &[]);
        assert_eq!(
            r.html,
            "<p><img src=\"w.svg\" alt=\"A warp\" loading=\"lazy\"></p>\n"
        );
        let r = body("see ![A warp](w.svg \"t\") here\n", &[]);
        assert!(!r.html.contains("<figure>"), "{}", r.html);
        assert!(r.html.contains("<p>see <img src=\"w.svg\""), "{}", r.html);
    }

    #[test]
    fn a_caption_with_block_markdown_is_a_problem_at_its_line() {
        let r = body("\n![A](w.svg \"# big\")\n", &[]);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert_eq!(r.problems[0].0, 11);
    }

    #[test]
    fn light_and_dark_variants_work_inside_a_figure() {
        let dir = tempfile::tempdir().expect("temp dir");
        let layout = Layout::new(dir.path());
        let terms = layout.content().join("terms");
        std::fs::create_dir_all(&terms).expect("mkdir");
        std::fs::write(
            terms.join("w.svg"),
            "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        )
        .expect("w");
        std::fs::write(
            terms.join("w.dark.svg"),
            "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        )
        .expect("w");
        let allow = ContentConfig::default();
        let set = HashSet::new();
        let policy = LinkPolicy {
            page_path: "terms/occupancy/",
            linkable: &set,
            figures: Some((
                &terms.join("occupancy.md"),
                Figures {
                    layout: &layout,
                    allow: &allow,
                },
            )),
            reserved_ids: &HashSet::new(),
        };
        let r = render("![A warp](w.svg \"The warp\")\n", 1, &policy);
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert!(
            r.html.starts_with("<figure><picture><source srcset=\"../../media/terms/w.dark.svg\" media=\"(prefers-color-scheme: dark)\"><img src=\"../../media/terms/w.svg\""),
            "{}",
            r.html
        );
        assert!(
            r.html
                .contains("</picture><figcaption>The warp</figcaption></figure>"),
            "{}",
            r.html
        );
        assert_eq!(r.copies.len(), 2);
    }
}
