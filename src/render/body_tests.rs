//! Bodies rendered end to end through `markdown::render`: captions and the raw HTML
//! subset as a page shows them. Kept apart from `captions.rs` and `raw_html.rs`, whose own
//! tests need nothing of `markdown`, so test code draws no import circle in `render/`.

mod captions {
    use crate::config::{ContentConfig, Layout};
    use crate::content::IdSet;
    use crate::content::{EntryId, Kind};
    use crate::render::figures::Figures;
    use crate::render::links::LinkTarget;
    use crate::render::markdown::{render, LinkPolicy, RenderedMarkdown};
    use std::collections::HashSet;

    fn body(md: &str, linkable: &[EntryId]) -> RenderedMarkdown {
        let set: IdSet = linkable.iter().cloned().collect();
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

    /// `themed-image://` (a converter's placeholder for a themed figure) is no link scheme
    /// problem to the author: the message says images are local files and names the setting.
    #[test]
    fn an_image_with_a_refused_scheme_says_images_are_local_files() {
        let r = body("![Warp](themed-image://warp.svg)\n", &[]);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        let (line, message) = &r.problems[0];
        assert_eq!(*line, 10);
        assert!(
            message.starts_with("image `themed-image://warp.svg` has the scheme `themed-image:`; images must be local files")
                && message.contains("content/figures/")
                && message.contains("`allow_remote_images = true`"),
            "{message}"
        );
        assert!(!r.html.contains("themed-image"), "{}", r.html);
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
        let set = crate::content::IdSet::default();
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

mod raw_html {
    use crate::render::markdown::{render, LinkPolicy, RenderedMarkdown};
    use std::collections::HashSet;

    /// A body rendered without `allow_html` (a checked build's policy, no figures dir
    /// needed: the HTML rule does not read files).
    fn body(md: &str) -> RenderedMarkdown {
        body_with(md, crate::config::ContentConfig::default())
    }

    fn body_with(md: &str, allow: crate::config::ContentConfig) -> RenderedMarkdown {
        let dir = tempfile::tempdir().expect("temp dir");
        let layout = crate::config::Layout::new(dir.path());
        let set = crate::content::IdSet::default();
        let entry = layout.content().join("terms/x.md");
        let policy = LinkPolicy {
            page_path: "terms/x/",
            linkable: &set,
            figures: Some((
                &entry,
                crate::render::figures::Figures {
                    layout: &layout,
                    allow: &allow,
                },
            )),
            reserved_ids: &HashSet::new(),
        };
        render(md, 5, &policy)
    }

    /// Issue 37: under `allow_html`, raw HTML loads nothing a Markdown image could not:
    /// a remote `<img src>` (however written, a tag over several lines too) is refused at
    /// its line unless remote images are allowed; a local one is kept.
    #[test]
    fn allow_html_keeps_no_remote_resource() {
        let allow = crate::config::ContentConfig {
            allow_html: true,
            ..Default::default()
        };
        for md in [
            "Intro.\n\n<img src=https://evil.example/p.png>\n",
            "Intro.\n\n<div>\n<img\n  src=\"//evil.example/p.png\">\n</div>\n",
            "Intro.\n\nsee <img src='https://evil.example/p.png'> here\n",
        ] {
            let r = body_with(md, allow.clone());
            assert_eq!(r.problems.len(), 1, "{md:?}: {:?}", r.problems);
            assert_eq!(r.problems[0].0, 7, "{md:?}");
            assert!(r.problems[0].1.contains("evil.example"), "{:?}", r.problems);
        }
        let r = body_with(
            "Intro.\n\n<img src=\"../figures/a.png\" alt=a>\n",
            allow.clone(),
        );
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        let remote_ok = crate::config::ContentConfig {
            allow_remote_images: true,
            ..allow
        };
        let r = body_with("Intro.\n\n<img src=https://a.example/p.png>\n", remote_ok);
        assert!(r.problems.is_empty(), "{:?}", r.problems);
    }

    #[test]
    fn a_refused_html_block_is_one_error_at_its_first_line() {
        let pre = (0..14).map(|i| format!("line {i}\n")).collect::<String>();
        let r = body(&format!("Intro.\n\n<pre>\n{pre}</pre>\n\nAfter.\n"));
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert_eq!(r.problems[0].0, 7);
        assert!(!r.html.contains("<pre>"), "{}", r.html);
    }

    #[test]
    fn comments_vanish_and_the_safe_set_renders_in_a_body() {
        let r = body(
            "<!--\nimported from the old site\n-->\n\nPress <kbd>Ctrl</kbd>+<kbd>C</kbd>; \
             H<sub>2</sub>O, x<sup>2</sup>, <small>fine print</small>,<br>\
             an <abbr title=\"Streaming Multiprocessor\">SM</abbr> <!-- inline note -->.\n\n\
             <small>A block of small print.</small>\n",
        );
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        for kept in [
            "<kbd>Ctrl</kbd>",
            "<sub>2</sub>",
            "<sup>2</sup>",
            "<small>fine print</small>",
            "<br>",
            "<abbr title=\"Streaming Multiprocessor\">SM</abbr>",
            "<small>A block of small print.</small>",
        ] {
            assert!(r.html.contains(kept), "{kept} missing from {}", r.html);
        }
        assert!(!r.html.contains("<!--"), "{}", r.html);
        assert!(!r.html.contains("imported"), "{}", r.html);
    }

    #[test]
    fn an_inline_script_or_handler_is_refused_and_not_shown() {
        let r = body("a <small onclick=\"steal()\">b</small> <script>x()</script> c\n");
        // One error per refused inline tag: `<small onclick>`, `<script>`, `</script>`.
        assert_eq!(r.problems.len(), 3, "{:?}", r.problems);
        assert!(r.problems.iter().all(|(line, _)| *line == 5));
        assert!(
            !r.html.contains("onclick") && !r.html.contains("<script"),
            "{}",
            r.html
        );
    }
}
