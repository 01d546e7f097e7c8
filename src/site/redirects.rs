//! Redirect pages at an entry's old paths (`redirect_from:`, checked and normalized by
//! `content::redirects`): a meta refresh for browsers, a canonical link and `noindex` for
//! search engines, and a visible link for everyone else. Written for published entries
//! only, so an old URL never leads to a page the build did not write.

use std::path::PathBuf;

use super::published::PublishedPage;
use crate::render::escape::escape;
use crate::render::OutputFile;

/// The redirect pages of every published entry.
pub fn redirect_pages(base_url: &str, pages: &[PublishedPage<'_>]) -> Vec<OutputFile> {
    let mut files = Vec::new();
    for page in pages {
        for raw in &page.entry.meta.redirect_from {
            // Checked at load: a path that fails here was refused already.
            let Ok(file) = crate::content::redirect_file(raw) else {
                continue;
            };
            let up = "../".repeat(file.matches('/').count());
            let target = page.entry.id.page_url(&up);
            files.push(OutputFile {
                path: PathBuf::from(&file),
                bytes: redirect_html(&target, &page.canonical(base_url), page.entry.name())
                    .into_bytes(),
            });
        }
    }
    files
}

/// Every redirect of `entries` that would be written where a published `static/` file is
/// (its page replaced), or above or below one (`notes.txt/index.html` beside a file
/// `notes.txt`, which no folder can be made over): an error naming the entry's file and
/// the static file, before anything is written. All entries' redirects are checked, not
/// only published ones', so that signing an entry cannot turn a clean build into this.
pub fn check_against_static(
    entries: &[&crate::content::Entry],
    statics: &[OutputFile],
    static_dir: &std::path::Path,
) -> Vec<crate::error::Error> {
    use std::collections::BTreeSet;
    if statics.is_empty() {
        return Vec::new();
    }
    let files: BTreeSet<String> = statics
        .iter()
        .map(|f| f.path.to_string_lossy().replace('\\', "/"))
        .collect();
    // A path is a file of the other set, or a folder the other set's file needs.
    let folders = |paths: &BTreeSet<String>| -> BTreeSet<String> {
        paths
            .iter()
            .flat_map(|p| {
                p.match_indices('/')
                    .map(|(i, _)| p[..i].to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let static_folders = folders(&files);
    let mut errors = Vec::new();
    for e in entries {
        for raw in &e.meta.redirect_from {
            let Ok(file) = crate::content::redirect_file(raw) else {
                continue;
            };
            let above: Vec<String> = file
                .match_indices('/')
                .map(|(i, _)| file[..i].to_string())
                .collect();
            let clash = if files.contains(&file) {
                Some((file.clone(), "would replace the published static file"))
            } else if let Some(f) = above.iter().find(|f| files.contains(*f)) {
                Some((f.clone(), "needs a folder where there is the static file"))
            } else if static_folders.contains(&file) {
                let below = files
                    .iter()
                    .find(|f| f.starts_with(&format!("{file}/")))
                    .cloned()
                    .unwrap_or_default();
                Some((
                    below,
                    "would be written as a file where a folder holds the static file",
                ))
            } else {
                None
            };
            if let Some((other, why)) = clash {
                errors.push(crate::error::Error::content(
                    &e.path,
                    None,
                    format!(
                        "redirect_from `{raw}` of `{}` (site file {file}) {why} {}; remove the redirect or the static file",
                        e.id,
                        static_dir.join(&other).display()
                    ),
                ));
            }
        }
    }
    errors
}

/// One redirect page to `target` (relative, so the site also works from disk).
pub fn redirect_html(target: &str, canonical: &str, name: &str) -> String {
    let (target, canonical, name) = (escape(target), escape(canonical), escape(name));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>Moved: {name}</title>\n\
         <meta http-equiv=\"refresh\" content=\"0; url={target}\">\n\
         <link rel=\"canonical\" href=\"{canonical}\">\n\
         <meta name=\"robots\" content=\"noindex\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         </head>\n<body>\n<p>This page has moved to <a href=\"{target}\">{name}</a>.</p>\n\
         </body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_page_refreshes_names_its_canonical_and_is_noindex() {
        let html = redirect_html(
            "../../terms/sm/index.html",
            "https://g.test/terms/sm/",
            "SM <&>",
        );
        assert!(html.contains(
            "<meta http-equiv=\"refresh\" content=\"0; url=../../terms/sm/index.html\">"
        ));
        assert!(html.contains("<link rel=\"canonical\" href=\"https://g.test/terms/sm/\">"));
        assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
        assert!(html.contains("<a href=\"../../terms/sm/index.html\">SM &lt;&amp;&gt;</a>"));
    }
}
