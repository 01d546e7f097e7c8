//! Files about the whole site rather than one entry: the search index, `sitemap.xml`, the
//! Atom feed, the search page, `404.html`, the verification nodes page (`nodes_page`) and
//! redirect pages. Only published entries appear
//! in the sitemap and feed; a `--drafts` preview never leaks a draft into what search
//! engines or feed readers see. Redirects lead to the pages a build writes: published
//! entries, and in a preview (every page `noindex`) its drafts too. Its search index, in its own folder, lists what the
//! preview shows, drafts included (`RenderInput::searched`).

use std::path::PathBuf;

use tera::Context;

use super::published::PublishedPage;
use crate::error::Result;
use crate::render::OutputFile;

use crate::render::templates::render as render_template;
use crate::render::RenderInput;

/// Files every build writes besides the entry pages and the index (made here).
pub const SITE_WIDE_FILES: &[&str] = &["feed.xml", "sitemap.xml", "search/", "404.html", "nodes/"];

/// Every site-wide file, each handed to `sink` as it is made (the search index's files as
/// soon as each is made; a build writes them at once). `pages` is every published entry,
/// in id order, and `bodies` their body words for search.
/// The parts are independent, so they are made in parallel: a serve rebuild that touches
/// a published entry remakes all of them.
pub fn render_site_wide_into(
    input: &RenderInput<'_>,
    pages: &[PublishedPage<'_>],
    bodies: super::search::Bodies<'_>,
    sink: &(dyn Fn(OutputFile) -> Result<()> + Sync),
) -> Result<()> {
    render_site_wide_until_into(input, pages, bodies, &|| false, sink)?;
    Ok(())
}

/// Every site-wide file (see [`render_site_wide_into`]), or None when `stop` gave up the
/// search index (see `search::Stop`).
pub fn render_site_wide_until(
    input: &RenderInput<'_>,
    pages: &[PublishedPage<'_>],
    bodies: super::search::Bodies<'_>,
    stop: super::search::Stop<'_>,
) -> Result<Option<Vec<OutputFile>>> {
    // The search index's files come from one thread, in order, and the others after them.
    let files = std::sync::Mutex::new(Vec::new());
    let made = render_site_wide_until_into(input, pages, bodies, stop, &|f| {
        files.lock().unwrap_or_else(|p| p.into_inner()).push(f);
        Ok(())
    })?;
    let files = files.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(made.map(|()| files))
}

fn render_site_wide_until_into(
    input: &RenderInput<'_>,
    pages: &[PublishedPage<'_>],
    bodies: super::search::Bodies<'_>,
    stop: super::search::Stop<'_>,
    sink: &(dyn Fn(OutputFile) -> Result<()> + Sync),
) -> Result<Option<()>> {
    let config = input.config;
    // The search index lists what the build shows; the sitemap and feed only what is
    // published, preview or not.
    let searched = pages;
    let published: Vec<PublishedPage<'_>> = pages
        .iter()
        .filter(|p| input.published.contains(&p.entry.id))
        .copied()
        .collect();
    let pages = &published[..];
    let ((search, feeds), pages_made) = rayon::join(
        || {
            rayon::join(
                || super::search::index_files_into(input, searched, bodies, stop, &mut |f| sink(f)),
                || {
                    let mut v = vec![
                        super::sitemap::sitemap(&config.base_url, pages, input.drafts),
                        super::feed::atom_feed(config, pages, input.today, input.drafts),
                    ];
                    if input.drafts {
                        v.push(OutputFile {
                            path: PathBuf::from("robots.txt"),
                            bytes: b"# A glossary build --drafts preview: not for deployment.\nUser-agent: *\nDisallow: /\n".to_vec(),
                        });
                    }
                    v
                },
            )
        },
        || -> Result<Vec<OutputFile>> {
            // A preview redirects from the old paths of every entry it shows, so a
            // migration's old URLs can be tried before anything is signed; a deployable
            // site only to published pages.
            let redirected = if input.drafts { searched } else { pages };
            let mut made = super::redirects::redirect_pages(&config.base_url, redirected);
            for (template, path, root) in [
                ("404.html", "404.html", not_found_root(&config.base_url)),
                // Without script the search page points at the index, which already lists
                // every published entry; a second full list would double the work.
                ("search.html", "search/index.html", "../".to_string()),
            ] {
                // Optional templates: a project without them simply has no such page.
                if !input.tera.get_template_names().any(|n| n == template) {
                    continue;
                }
                let mut ctx = Context::new();
                ctx.insert(
                    "site",
                    &crate::render::pages::site_ctx(config, input.drafts, &root, input.pages),
                );
                ctx.insert("root", &root);
                ctx.insert(
                    "canonical",
                    &format!("{}/{}", config.base_url.trim_end_matches('/'), path),
                );
                let html = render_template(input.tera, template, &ctx, &input.layout.templates())?;
                made.push(OutputFile {
                    path: PathBuf::from(path),
                    bytes: html.into_bytes(),
                });
            }
            made.extend(super::nodes_page::nodes_page(input)?);
            Ok(made)
        },
    );
    let pages_made = pages_made?;
    if search?.is_none() {
        return Ok(None);
    }
    feeds.into_iter().chain(pages_made).try_for_each(sink)?;
    Ok(Some(()))
}

/// A 404 page is served for any missing path, at any depth, so its links cannot be
/// relative: they start from the path of `base_url` (usually `/`).
fn not_found_root(base_url: &str) -> String {
    let after_scheme = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    let path = after_scheme.split_once('/').map_or("", |(_, p)| p);
    let path = path.trim_matches('/');
    if path.is_empty() {
        "/".into()
    } else {
        format!("/{path}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_links_start_at_the_base_path() {
        assert_eq!(not_found_root("https://example.org"), "/");
        assert_eq!(not_found_root("https://example.org/"), "/");
        assert_eq!(not_found_root("https://example.org/gpu/"), "/gpu/");
        assert_eq!(not_found_root("https://example.org/a/b"), "/a/b/");
    }
}
