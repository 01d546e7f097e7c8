//! `static/` at the project root: files copied as they are to the site root (CNAME,
//! robots.txt, favicon.ico, .well-known/...). The site's own assets stay in
//! `templates/static/`, served under `static/`.

use walkdir::WalkDir;

use crate::config::{inside_project, Layout};
use crate::error::{Error, Result};

use crate::render::OutputFile;

/// Names the build itself writes at the site root; a static file may not replace them.
const GENERATED: &[&str] = &[
    "index.html",
    "404.html",
    "feed.xml",
    "sitemap.xml",
    "search",
    "static",
    "media",
    "terms",
    "lessons",
    "guides",
    "sections",
];

/// Every file under `static/`, as output files at the site root. A symlink is followed
/// when it stays inside the project and refused otherwise.
pub fn static_files(layout: &Layout) -> Result<Vec<OutputFile>> {
    let dir = layout.static_files();
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let root = layout
        .root
        .canonicalize()
        .map_err(|e| Error::io(&layout.root, e))?;
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for item in WalkDir::new(&dir)
        .min_depth(1)
        .follow_links(true)
        .sort_by_file_name()
    {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                let path = e.path().unwrap_or(&dir).to_path_buf();
                errors.push(Error::content(path, None, format!("cannot read: {e}")));
                continue;
            }
        };
        if let Err(why) = inside_project(item.path(), &root) {
            errors.push(Error::content(item.path(), None, why));
            continue;
        }
        if !item.file_type().is_file() {
            continue;
        }
        let rel = item.path().strip_prefix(&dir).unwrap_or(item.path());
        let first = rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default();
        if GENERATED.contains(&first.as_str()) {
            errors.push(Error::content(
                item.path(),
                None,
                format!("static/{first} would replace what the build writes at the site root"),
            ));
            continue;
        }
        match std::fs::read(item.path()) {
            Ok(bytes) => files.push(OutputFile {
                path: rel.to_path_buf(),
                bytes,
            }),
            Err(e) => errors.push(Error::io(item.path(), e)),
        }
    }
    Error::collect(errors)?;
    Ok(files)
}
