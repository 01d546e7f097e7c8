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
}
